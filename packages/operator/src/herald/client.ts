// HTTP client for Herald's subscriber API (edge). Bearer API token; JSON in and out.
import { HeraldApiError, HeraldUnreachableError } from './errors.js';
import type { Subscriber, SubscriberPage, SubscriberRequest } from './types.js';

export interface HeraldClientOptions {
  /** Base URL of the host, e.g. http://herald:8080 (the /api/v0.9 prefix is added here). */
  baseUrl: string;
  token: () => string;
  timeoutMs?: number;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

export class HeraldClient {
  private readonly apiBase: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: HeraldClientOptions) {
    this.apiBase = `${options.baseUrl.replace(/\/+$/, '')}/api/v0.9`;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  getSubscriber(id: string): Promise<Subscriber> {
    return this.call<Subscriber>('GET', `/webhook-subscribers/${encodeURIComponent(id)}`);
  }

  createSubscriber(request: SubscriberRequest): Promise<Subscriber> {
    return this.call<Subscriber>('POST', '/webhook-subscribers', request);
  }

  updateSubscriber(id: string, patch: SubscriberRequest): Promise<Subscriber> {
    return this.call<Subscriber>('PUT', `/webhook-subscribers/${encodeURIComponent(id)}`, patch);
  }

  async deleteSubscriber(id: string): Promise<void> {
    await this.call<undefined>('DELETE', `/webhook-subscribers/${encodeURIComponent(id)}`);
  }

  listSubscribers(limit: number, offset: number): Promise<SubscriberPage> {
    return this.call<SubscriberPage>('GET', `/webhook-subscribers?limit=${limit}&offset=${offset}`);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.options.token()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.apiBase}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // fetch puts the reason (ECONNREFUSED, timeout…) in `cause`; it never contains the body.
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new HeraldUnreachableError(`Herald at ${this.options.baseUrl} is unreachable: ${cause}`);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as T;
    if (response.status === 502 || response.status === 503 || response.status === 504) {
      throw new HeraldUnreachableError(`Herald at ${this.options.baseUrl} answered HTTP ${response.status}`);
    }
    throw toApiError(response.status, text);
  }
}

function toApiError(status: number, text: string): HeraldApiError {
  let parsed: ErrorBody = {};
  try {
    parsed = JSON.parse(text) as ErrorBody;
  } catch {
    // Not JSON: keep the status only; the raw text could echo anything.
  }
  const code = typeof parsed.code === 'string' ? parsed.code : `HTTP_${status}`;
  const message = typeof parsed.message === 'string' ? parsed.message : `HTTP ${status}`;
  const fieldErrors = Array.isArray(parsed.errors) ? (parsed.errors as { field?: string; message?: string }[]) : [];
  return new HeraldApiError(status, code, message, fieldErrors);
}
