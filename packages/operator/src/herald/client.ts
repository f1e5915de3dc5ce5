// HTTP client for the slice of Herald's API the operator uses (edge): the subscriber API under
// /api/v0.9 and `GET /api/v1/me`. Bearer API token; JSON in and out.
import { HeraldApiError, HeraldUnreachableError } from './errors.js';
import type { Me, Subscriber, SubscriberPage, SubscriberRequest } from './types.js';

export interface HeraldClientOptions {
  /** Base URL of the host, e.g. http://herald:8080 (the /api/… prefixes are added here). */
  baseUrl: string;
  token: () => string;
  timeoutMs?: number;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
}

const WEBHOOK_API = '/api/v0.9';

export class HeraldClient {
  private readonly hostBase: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: HeraldClientOptions) {
    this.hostBase = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Who the token is: its principal id is what Herald records as createdBy. */
  me(): Promise<Me> {
    return this.request<Me>('GET', '/api/v1/me');
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

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, `${WEBHOOK_API}${path}`, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.options.token()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.hostBase}${path}`, {
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
