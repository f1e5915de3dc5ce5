// A token endpoint's answer (RFC 6749 §5.1) read into a token and the time it stops being used.
// Pure. Messages name the status and what is wrong, never the token or the body (which may hold it).

/** The longest token answer read; anything larger is refused rather than half-parsed. */
export const TOKEN_RESPONSE_MAX_BYTES = 32 * 1024;
/** An answer without expires_in: the token is taken to live this long. */
export const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;
/** A token is dropped this long before it expires (capped at a tenth of its life, so short-lived tokens are used at all). */
export const EXPIRY_MARGIN_MS = 30_000;
/** An access token goes into a header: visible ASCII only (RFC 6750 b64token and the like), bounded. */
const ACCESS_TOKEN = /^[\x21-\x7e]{1,8192}$/;

export interface AccessToken {
  value: string;
  /** Epoch ms after which the token is no longer sent (expiry minus the margin). */
  usableUntilMs: number;
}

export type TokenAnswer = { ok: true; token: AccessToken } | { ok: false; message: string };

/** When a token obtained at `nowMs` with `expires_in` seconds (or none) stops being used. */
export function usableUntil(nowMs: number, expiresInSeconds: number | undefined): number {
  const lifetimeMs = expiresInSeconds === undefined ? DEFAULT_TOKEN_LIFETIME_MS : expiresInSeconds * 1000;
  return nowMs + lifetimeMs - Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 10);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `expires_in` as a number of seconds; a numeric string is accepted, as some servers send one. */
function expiresIn(value: unknown): number | undefined | 'invalid' {
  if (value === undefined || value === null) return undefined;
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : 'invalid';
}

export function parseTokenAnswer(status: number, body: string, nowMs: number): TokenAnswer {
  if (status < 200 || status >= 300) return { ok: false, message: `the token endpoint answered HTTP ${status}` };
  if (Buffer.byteLength(body) >= TOKEN_RESPONSE_MAX_BYTES) return { ok: false, message: `the token endpoint's answer is larger than ${TOKEN_RESPONSE_MAX_BYTES} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, message: `the token endpoint answered HTTP ${status} with a body that is not JSON` };
  }
  if (!isRecord(parsed)) return { ok: false, message: `the token endpoint answered HTTP ${status} with JSON that is not an object` };
  const token = parsed.access_token;
  if (typeof token !== 'string' || token === '') return { ok: false, message: `the token endpoint answered HTTP ${status} without an access_token` };
  if (!ACCESS_TOKEN.test(token)) return { ok: false, message: 'the access_token is not visible ASCII of at most 8192 characters' };
  // RFC 6749 requires token_type; a missing one is read as Bearer, the only type Herald sends.
  const type = parsed.token_type;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer')) {
    return { ok: false, message: `the token_type is ${typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : 'not a string'}, not Bearer` };
  }
  const seconds = expiresIn(parsed.expires_in);
  if (seconds === 'invalid') return { ok: false, message: 'the expires_in is not a positive number of seconds' };
  return { ok: true, token: { value: token, usableUntilMs: usableUntil(nowMs, seconds) } };
}
