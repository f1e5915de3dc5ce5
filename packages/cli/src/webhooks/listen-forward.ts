// One relayed delivery: POST it to the local receiver exactly as the engine sent it (same headers,
// same bytes, so its signature verifies), then describe the outcome for the server and the user.
import { describeNetworkFailure } from './listen-describe.js';

export interface RelayedDelivery {
  deliveryId: string;
  headers: Record<string, string>;
  body: string;
}

export interface LocalOutcome {
  /** The receiver's status, or 502 when it could not be reached (the engine then retries). */
  status: number;
  body: string;
  durationMs: number;
  /** Set when no HTTP answer came back. */
  error?: string;
}

const SNIPPET_CHARS = 4096;
/** Headers fetch sets itself or that describe the hop from the server, not the delivery. */
const SKIPPED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'accept-encoding']);

export async function forwardDelivery(forwardTo: string, delivery: RelayedDelivery, timeoutMs: number): Promise<LocalOutcome> {
  const headers = Object.fromEntries(Object.entries(delivery.headers).filter(([name]) => !SKIPPED.has(name.toLowerCase())));
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    const response = await fetch(forwardTo, { method: 'POST', headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return { status: response.status, body: text.slice(0, SNIPPET_CHARS), durationMs: elapsed() };
  } catch (error) {
    const message = describeNetworkFailure(error, forwardTo);
    return { status: 502, body: message, durationMs: elapsed(), error: message };
  }
}

/**
 * Event type and id from the envelope (standard or api-portal profile), Herald's delivery id from
 * the headers; '-' when unreadable.
 */
export function describeDelivery(delivery: RelayedDelivery): { type: string; eventId: string; deliveryId: string } {
  const deliveryId = delivery.headers['herald-delivery-id'] ?? delivery.headers['x-api-portal-delivery-id'] ?? '-';
  try {
    const envelope = JSON.parse(delivery.body) as Record<string, unknown>;
    const type = envelope.type ?? envelope.event_type;
    const eventId = envelope.id ?? envelope.event_id;
    return { type: typeof type === 'string' ? type : '-', eventId: typeof eventId === 'string' ? eventId : '-', deliveryId };
  } catch {
    return { type: '-', eventId: '-', deliveryId };
  }
}
