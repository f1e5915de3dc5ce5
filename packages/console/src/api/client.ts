// fetch() against this origin's API with the signed-in token. Every failure becomes an ApiError
// that says in words what went wrong: the API's ErrorResponse when there is one, else the status,
// else that the host did not answer.
import type { ErrorBody, FieldError } from './types';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: readonly FieldError[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClient {
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Partial<ErrorBody>;
  return body.status === 'error' && typeof body.code === 'string' && typeof body.message === 'string';
}

async function readJson(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return undefined;
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** `onUnauthorized` hears every 401: the token was revoked or expired while signed in. */
export function createClient(token: string, onUnauthorized?: (error: ApiError) => void): ApiClient {
  return {
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        // no-store: the live views must see the store, never a cached page.
        response = await fetch(path, { method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) });
      } catch {
        throw new ApiError(0, 'NETWORK_ERROR', `Herald did not answer ${method} ${path}: check that the host is running and reachable.`);
      }
      const payload = await readJson(response);
      if (response.ok) return payload as T;
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const error = isErrorBody(payload)
        ? new ApiError(response.status, payload.code, payload.message, payload.errors ?? [], requestId)
        : new ApiError(response.status, `HTTP_${response.status}`, `Herald answered ${response.status} ${response.statusText}`.trim(), [], requestId);
      if (response.status === 401) onUnauthorized?.(error);
      throw error;
    },
  };
}

/** Any thrown value as an ApiError, so every failure can be shown the same way. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, 'CLIENT_ERROR', error instanceof Error ? error.message : String(error));
}
