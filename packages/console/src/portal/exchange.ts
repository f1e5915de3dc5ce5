// Spends a portal link's code for a session (POST /api/v0.9/portal-sessions, no credentials).
import { ApiError } from '../api/client';
import type { ErrorBody, PortalSession } from '../api/types';

export async function exchangePortalCode(code: string): Promise<PortalSession> {
  let response: Response;
  try {
    response = await fetch('/api/v0.9/portal-sessions', {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      cache: 'no-store',
      body: JSON.stringify({ code }),
    });
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Herald did not answer: check that the host is running and reachable.');
  }
  const payload = (await response.json().catch(() => undefined)) as PortalSession | ErrorBody | undefined;
  if (response.ok && payload && 'token' in payload) return payload;
  const error = payload && 'code' in payload ? payload : undefined;
  throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? `Herald answered ${response.status}`);
}
