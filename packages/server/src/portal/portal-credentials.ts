// The two secrets of the consumer portal (pure except for the random source): a link's one-time
// code and the session token it is exchanged for. Each is 32 random bytes; only its SHA-256 hash is
// stored, so a copy of the database cannot open a portal.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** One-time code carried in a portal link's URL fragment. */
export const PORTAL_CODE_PREFIX = 'hpl_';
/** Bearer token of a portal session (kept by the browser tab, never in a URL). */
export const PORTAL_SESSION_PREFIX = 'hps_';
const CODE_SHAPE = /^hpl_[A-Za-z0-9_-]{43}$/;
const SESSION_SHAPE = /^hps_[A-Za-z0-9_-]{43}$/;

export function generatePortalCode(): string {
  return PORTAL_CODE_PREFIX + randomBytes(32).toString('base64url');
}

export function generatePortalSessionToken(): string {
  return PORTAL_SESSION_PREFIX + randomBytes(32).toString('base64url');
}

export function isPortalCodeShape(code: string): boolean {
  return CODE_SHAPE.test(code);
}

export function isPortalSessionShape(token: string): boolean {
  return SESSION_SHAPE.test(token);
}

export function hashPortalSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Public id of a link or session (`prt_` + 12 hex); a session's id is also its principal id. */
export function generatePortalId(): string {
  return `prt_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}
