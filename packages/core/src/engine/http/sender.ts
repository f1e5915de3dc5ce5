// Sends one delivery attempt over one shared undici Agent (keep-alive, per-origin connection
// cap). Redirects are never followed (undici's request does not follow them). The whole exchange
// — connect, headers, body — is bounded by the subscriber's timeoutMs. At most 4 KiB of the
// response body is kept for the attempt history; the rest is drained (bounded) or dropped.
import { Agent, request } from 'undici';
import { classifyNetworkError, describeNetworkError, type NetworkErrorClass } from '../network-errors.js';
import { createSsrfPolicy, type SsrfPolicy } from '../ssrf/policy.js';
import { createGuardedConnector } from './guarded-connector.js';

export const RESPONSE_SNIPPET_BYTES = 4096;
/** Beyond this the connection is dropped instead of drained for reuse. */
const MAX_DRAIN_BYTES = 64 * 1024;

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /**
   * Whose connections to use (the subscriber id): each key has its own pool, as many connections as
   * the engine lets that subscriber have in flight, so a request never waits for a connection held
   * by another subscriber's slow receiver on the same origin, and its timeout is its own exchange's.
   */
  poolKey?: string;
  /** Aborts the exchange from outside (shutdown past its drain bound). */
  signal?: AbortSignal;
}

export type SendResult =
  | { kind: 'response'; status: number; retryAfter?: string | undefined; responseSnippet: string; durationMs: number }
  | { kind: 'error'; errorClass: NetworkErrorClass; message: string; durationMs: number };

export interface HttpSender {
  send(outgoing: OutgoingRequest): Promise<SendResult>;
  /** Closes the pools; `force` drops connections with requests still in flight instead of waiting. */
  close(force?: boolean): Promise<void>;
}

export interface HttpSenderOptions {
  /** CIDRs exempt from the SSRF guard. */
  ssrfAllowList?: readonly string[] | undefined;
  /** Policy override (tests); default built from ssrfAllowList. */
  ssrfPolicy?: SsrfPolicy;
  connectionsPerOrigin?: number | undefined;
  keepAliveTimeoutMs?: number;
  /** URLs starting with this exact prefix go out unguarded (DeliveryOptions.selfTargetPrefix). */
  selfTargetPrefix?: (() => string | undefined) | undefined;
}

/** Only an absolute http(s) prefix with a path counts, so a misconfiguration never exempts a whole origin. */
export function isSelfTarget(url: string, prefix: string | undefined): boolean {
  if (prefix === undefined || !/^https?:\/\/[^/]+\/.+\/$/.test(prefix)) return false;
  return url.startsWith(prefix) && !url.slice(prefix.length).includes('..');
}

/** Pools unused for this long are closed. */
const IDLE_POOL_MS = 60_000;

export function createHttpSender(options: HttpSenderOptions = {}): HttpSender {
  const policy = options.ssrfPolicy ?? createSsrfPolicy(options.ssrfAllowList ?? []);
  const connect = createGuardedConnector(policy, 30_000);
  const newAgent = (): Agent =>
    new Agent({ connections: options.connectionsPerOrigin ?? 32, keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000, connect });
  const shared = newAgent();
  // Its own pool without the guard: used only for the host's self target (isSelfTarget).
  let self: Agent | undefined;
  const selfAgent = (): Agent => (self ??= new Agent({ connections: options.connectionsPerOrigin ?? 32, keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000 }));
  const pools = new Map<string, { agent: Agent; usedAt: number }>();
  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_POOL_MS;
    for (const [key, pool] of pools) {
      if (pool.usedAt < cutoff) {
        pools.delete(key);
        void pool.agent.close();
      }
    }
  }, IDLE_POOL_MS);
  sweep.unref();
  const agentFor = (key: string | undefined): Agent => {
    if (key === undefined) return shared;
    let pool = pools.get(key);
    if (!pool) {
      pool = { agent: newAgent(), usedAt: 0 };
      pools.set(key, pool);
    }
    pool.usedAt = Date.now();
    return pool.agent;
  };

  return {
    async send(outgoing) {
      const started = performance.now();
      const elapsed = (): number => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(outgoing.url);
      } catch {
        return { kind: 'error', errorClass: 'INVALID_URL', message: 'the target URL is not a valid URL', durationMs: 0 };
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return { kind: 'error', errorClass: 'INVALID_URL', message: `unsupported scheme ${url.protocol}`, durationMs: 0 };
      }

      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(new DOMException(`no complete answer within ${outgoing.timeoutMs} ms`, 'TimeoutError')), outgoing.timeoutMs);
      const stop = (): void => abort.abort(outgoing.signal?.reason);
      outgoing.signal?.addEventListener('abort', stop, { once: true });
      try {
        const response = await request(url, {
          method: 'POST',
          headers: outgoing.headers,
          body: outgoing.body,
          dispatcher: isSelfTarget(url.href, options.selfTargetPrefix?.()) ? selfAgent() : agentFor(outgoing.poolKey),
          signal: abort.signal,
          headersTimeout: outgoing.timeoutMs,
          bodyTimeout: outgoing.timeoutMs,
        });
        const responseSnippet = await readSnippet(response.body);
        const retryAfter = response.headers['retry-after'];
        return {
          kind: 'response',
          status: response.statusCode,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          responseSnippet,
          durationMs: elapsed(),
        };
      } catch (error) {
        const reason: unknown = abort.signal.aborted ? abort.signal.reason : error;
        return { kind: 'error', errorClass: classifyNetworkError(reason), message: describeNetworkError(reason), durationMs: elapsed() };
      } finally {
        clearTimeout(timer);
        outgoing.signal?.removeEventListener('abort', stop);
      }
    },
    async close(force = false) {
      clearInterval(sweep);
      const agents = [shared, ...(self ? [self] : []), ...[...pools.values()].map((pool) => pool.agent)];
      pools.clear();
      await Promise.all(agents.map((agent) => (force ? agent.destroy() : agent.close())));
    },
  };
}

async function readSnippet(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seenBytes = 0;
  for await (const chunk of body) {
    if (keptBytes < RESPONSE_SNIPPET_BYTES) {
      const slice = chunk.subarray(0, RESPONSE_SNIPPET_BYTES - keptBytes);
      kept.push(slice);
      keptBytes += slice.length;
    }
    seenBytes += chunk.length;
    if (seenBytes > MAX_DRAIN_BYTES) {
      body.destroy();
      break;
    }
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(kept));
}
