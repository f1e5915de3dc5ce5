// Request headers of one delivery attempt, per profile (DECISIONS §6, names exactly).
import { API_PORTAL_HEADERS, STANDARD_HEADERS } from './profiles.js';
import { signApiPortal, signStandard, type Body, type SigningSecret } from './sign.js';

export const DEFAULT_USER_AGENT = 'Herald/0.1.0';

export interface StandardHeaderInput {
  /** The event id: stable across retries, so receivers can de-duplicate. */
  eventId: string;
  deliveryId: string;
  attempt: number;
  /** Unix seconds at send time. */
  timestamp: number;
  body: Body;
  /** Current secret first, then unexpired previous ones; empty → no signature header. */
  secrets: readonly SigningSecret[];
  userAgent?: string;
}

export function buildStandardHeaders(input: StandardHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': input.userAgent ?? DEFAULT_USER_AGENT,
    [STANDARD_HEADERS.id]: input.eventId,
    [STANDARD_HEADERS.timestamp]: String(input.timestamp),
    [STANDARD_HEADERS.deliveryId]: input.deliveryId,
    [STANDARD_HEADERS.attempt]: String(input.attempt),
  };
  if (input.secrets.length > 0) {
    headers[STANDARD_HEADERS.signature] = signStandard({
      id: input.eventId,
      timestamp: input.timestamp,
      body: input.body,
      secrets: input.secrets,
    });
  }
  return headers;
}

export interface ApiPortalHeaderInput {
  eventType: string;
  eventId: string;
  deliveryId: string;
  timestamp: number;
  body: Body;
  /** The subscriber's secret; without one the signature header is omitted. */
  secret?: SigningSecret | undefined;
  userAgent?: string;
}

export function buildApiPortalHeaders(input: ApiPortalHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': input.userAgent ?? DEFAULT_USER_AGENT,
    [API_PORTAL_HEADERS.event]: input.eventType,
    [API_PORTAL_HEADERS.eventId]: input.eventId,
    [API_PORTAL_HEADERS.deliveryId]: input.deliveryId,
  };
  if (input.secret) {
    headers[API_PORTAL_HEADERS.signature] = signApiPortal({ secret: input.secret, timestamp: input.timestamp, body: input.body });
  }
  return headers;
}
