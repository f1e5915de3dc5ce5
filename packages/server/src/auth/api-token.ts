// Opaque API tokens: `hrd_` + 32 random bytes base64url; only the SHA-256 hash is ever stored (pure
// except for the random source).
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const API_TOKEN_PREFIX = 'hrd_';
const API_TOKEN_SHAPE = /^hrd_[A-Za-z0-9_-]{43}$/;

export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function isApiTokenShape(token: string): boolean {
  return API_TOKEN_SHAPE.test(token);
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A short public id for listing and revoking (`tok_` + 12 hex chars); it is also the principal id. */
export function generateTokenId(): string {
  return `tok_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** A seeded token's id (and principal) derives from its name, so every replica and every restart
 * agree on it without coordination, and replacing the token value keeps the identity (createdBy). */
export function seededTokenId(name: string): string {
  return `tok_${createHash('sha256').update(`herald-seed-token:${name}`, 'utf8').digest('hex').slice(0, 12)}`;
}
