// Sends one delivery attempt over one shared undici Agent (keep-alive, per-origin connection
// cap). Redirects are never followed (undici's request does not follow them). The whole exchange
// — connect, headers, body — is bounded by the subscriber's timeoutMs. At most 4 KiB of the
// response body is kept for the attempt history; the rest is drained (bounded) or dropped.
// With an egress proxy configured the pools connect through it (tunnel-connector.ts). A subscriber
// with a client certificate (mutual TLS) has pools whose connector presents it (clientTlsPool).
import { Agent, request, type buildConnector } from 'undici';
import { createEgressProxies, type EgressProxies, type EgressProxy } from '../egress/proxy-config.js';
import { classifyNetworkError, describeNetworkError, type NetworkErrorClass } from '../network-errors.js';
import { createSsrfPolicy, type SsrfPolicy } from '../ssrf/policy.js';
import { createGuardedConnector, type ClientTlsOptions } from './guarded-connector.js';
import { watchTlsAlerts, type TlsAlertLog } from './tls-alerts.js';
import { createTunnelConnector } from './tunnel-connector.js';

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
  /** The subscriber's egress setting: a configured proxy name, `none` (direct), or undefined (the default proxy, if any). */
  egressProxy?: string | undefined;
  /** Aborts the exchange from outside (shutdown past its drain bound). */
  signal?: AbortSignal;
  /** The subscriber's TLS client certificate and CAs (engine/client-tls.ts); https targets only. */
  clientTls?: ClientTlsMaterial | undefined;
  /** How much of the response body is kept; default RESPONSE_SNIPPET_BYTES (a token answer needs more). */
  responseLimitBytes?: number;
}

/**
 * TLS client material with an id naming this exact version of it. Each version gets pools of its
 * own: a rotated certificate is used by the next connection at once, while connections opened with
 * the previous one finish the requests they carry and then idle out (no delivery is cut off).
 */
export interface ClientTlsMaterial extends ClientTlsOptions {
  id: string;
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
  /** The configured egress proxies (egress/proxy-config.ts); default: none, every delivery direct. */
  egressProxies?: EgressProxies | undefined;
}

/** Only an absolute http(s) prefix with a path counts, so a misconfiguration never exempts a whole origin. */
export function isSelfTarget(url: string, prefix: string | undefined): boolean {
  if (prefix === undefined || !/^https?:\/\/[^/]+\/.+\/$/.test(prefix)) return false;
  return url.startsWith(prefix) && !url.slice(prefix.length).includes('..');
}

/** Pools unused for this long are closed. */
const IDLE_POOL_MS = 60_000;
const CONNECT_TIMEOUT_MS = 30_000;

export function createHttpSender(options: HttpSenderOptions = {}): HttpSender {
  const policy = options.ssrfPolicy ?? createSsrfPolicy(options.ssrfAllowList ?? []);
  const egress = options.egressProxies ?? createEgressProxies({});
  const direct = createGuardedConnector(policy, CONNECT_TIMEOUT_MS);
  // One connector per proxy, made when first used.
  const tunnels = new Map<EgressProxy, buildConnector.connector>();
  const connectorFor = (proxy: EgressProxy | undefined): buildConnector.connector => {
    if (!proxy) return direct;
    let connector = tunnels.get(proxy);
    if (!connector) {
      connector = createTunnelConnector(proxy, policy, CONNECT_TIMEOUT_MS);
      tunnels.set(proxy, connector);
    }
    return connector;
  };
  const agentWith = (connect: buildConnector.connector): Agent =>
    new Agent({ connections: options.connectionsPerOrigin ?? 32, keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000, connect });
  const newAgent = (proxy: EgressProxy | undefined): Agent => agentWith(connectorFor(proxy));
  // A connector of its own per pool: undici keeps TLS sessions per connector, so a session is never
  // resumed under another subscriber's or another version's certificate.
  const clientTlsPool = (proxy: EgressProxy | undefined, clientTls: ClientTlsMaterial): { agent: Agent; alerts: TlsAlertLog } => {
    const { connector, log } = watchTlsAlerts(
      proxy ? createTunnelConnector(proxy, policy, CONNECT_TIMEOUT_MS, clientTls) : createGuardedConnector(policy, CONNECT_TIMEOUT_MS, clientTls),
    );
    return { agent: agentWith(connector), alerts: log };
  };
  const shared = new Map<EgressProxy | undefined, Agent>();
  const sharedAgent = (proxy: EgressProxy | undefined): Agent => {
    let agent = shared.get(proxy);
    if (!agent) {
      agent = newAgent(proxy);
      shared.set(proxy, agent);
    }
    return agent;
  };
  // Its own pool without the guard: used only for the host's self target (isSelfTarget).
  let self: Agent | undefined;
  const selfAgent = (): Agent => (self ??= new Agent({ connections: options.connectionsPerOrigin ?? 32, keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000 }));
  const pools = new Map<string, { agent: Agent; usedAt: number; alerts?: TlsAlertLog }>();
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
  const poolFor = (key: string | undefined, proxy: EgressProxy | undefined, clientTls: ClientTlsMaterial | undefined): { agent: Agent; alerts?: TlsAlertLog } => {
    if (key === undefined && !clientTls) return { agent: sharedAgent(proxy) };
    // A subscriber moved to another proxy, or given other TLS material, gets a pool of its own; the
    // old one finishes what it carries and idles out.
    const poolId = [key ?? '', proxy?.name ?? '', clientTls?.id ?? ''].join('\u0000');
    let pool = pools.get(poolId);
    if (!pool) {
      pool = { ...(clientTls ? clientTlsPool(proxy, clientTls) : { agent: newAgent(proxy) }), usedAt: 0 };
      pools.set(poolId, pool);
    }
    pool.usedAt = Date.now();
    return pool;
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

      // The host's own listen endpoint is reached directly, never through a proxy.
      const self = isSelfTarget(url.href, options.selfTargetPrefix?.());
      const route = self ? { proxy: undefined } : egress.route(outgoing.egressProxy);
      if ('unknown' in route) return { kind: 'error', errorClass: 'PROXY', message: route.unknown, durationMs: 0 };

      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(new DOMException(`no complete answer within ${outgoing.timeoutMs} ms`, 'TimeoutError')), outgoing.timeoutMs);
      const stop = (): void => abort.abort(outgoing.signal?.reason);
      outgoing.signal?.addEventListener('abort', stop, { once: true });
      const pool = self ? { agent: selfAgent() } : poolFor(outgoing.poolKey, route.proxy, url.protocol === 'https:' ? outgoing.clientTls : undefined);
      try {
        const exchange = request(url, {
          method: 'POST',
          headers: outgoing.headers,
          body: outgoing.body,
          dispatcher: pool.agent,
          signal: abort.signal,
          headersTimeout: outgoing.timeoutMs,
          bodyTimeout: outgoing.timeoutMs,
        });
        // undici fails an aborted request only once its connection attempt ends (up to the connect
        // timeout: a silent proxy or a black-holed address), so the abort is raced here: the attempt
        // ends at timeoutMs, within its lease, and whatever undici settles later is discarded.
        const response = await Promise.race([exchange, rejectWhenAborted(abort.signal)]).catch((error: unknown) => {
          void exchange.then((late) => late.body.destroy(), () => undefined);
          throw error;
        });
        const responseSnippet = await readSnippet(response.body, outgoing.responseLimitBytes ?? RESPONSE_SNIPPET_BYTES);
        const retryAfter = response.headers['retry-after'];
        return {
          kind: 'response',
          status: response.statusCode,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          responseSnippet,
          durationMs: elapsed(),
        };
      } catch (error) {
        let reason: unknown = abort.signal.aborted ? abort.signal.reason : error;
        // A connection closed under the request, when a TLS alert closed one of this pool's
        // connections during the attempt: the alert is the cause (tls-alerts.ts).
        const alert = pool.alerts?.since(started);
        if (alert && ['CONNECTION_RESET', 'NETWORK'].includes(classifyNetworkError(reason))) reason = alert;
        return { kind: 'error', errorClass: classifyNetworkError(reason), message: describeNetworkError(reason), durationMs: elapsed() };
      } finally {
        clearTimeout(timer);
        outgoing.signal?.removeEventListener('abort', stop);
      }
    },
    async close(force = false) {
      clearInterval(sweep);
      const agents = [...shared.values(), ...(self ? [self] : []), ...[...pools.values()].map((pool) => pool.agent)];
      pools.clear();
      shared.clear();
      await Promise.all(agents.map((agent) => (force ? agent.destroy() : agent.close())));
    },
  };
}

function rejectWhenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

async function readSnippet(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seenBytes = 0;
  for await (const chunk of body) {
    if (keptBytes < limit) {
      const slice = chunk.subarray(0, limit - keptBytes);
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
