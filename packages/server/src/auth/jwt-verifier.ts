// Verifies identity-provider JWTs with jose against a JWKS URL or a PEM public key, checking
// issuer/audience, and reads the principal: `sub`, scopes from `scope` or `scp`, org from a configured claim.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { UnauthorizedError } from '../errors/api-errors.js';
import type { Principal } from './principal.js';

export type JwtVerifier = (token: string) => Promise<Principal>;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function isJwtShape(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/** `scope: "a b"` (RFC 8693 style) or `scp: ["a","b"]` / `scp: "a b"` (Azure/Okta style). */
export function scopesOf(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') value.split(/\s+/).filter(Boolean).forEach((scope) => scopes.add(scope));
    else if (Array.isArray(value)) value.filter((item) => typeof item === 'string').forEach((scope) => scopes.add(scope));
  };
  add(payload.scope);
  add(payload.scp);
  return scopes;
}

/** What verification needs of the host's `jwt` settings (config/schema.ts JwtConfig). */
export interface JwtVerifierOptions {
  jwksUrl?: string | undefined;
  publicKeyPem?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  orgClaim: string;
  clockToleranceSec: number;
}

export function createJwtVerifier(config: JwtVerifierOptions): JwtVerifier {
  const key: KeyObject | ReturnType<typeof createRemoteJWKSet> = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 })
    : createPublicKey(config.publicKeyPem ?? '');
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    clockTolerance: config.clockToleranceSec,
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      // Two call shapes of one function: a key resolver (JWKS) or a static key.
      payload =
        typeof key === 'function' ? (await jwtVerify(token, key, options)).payload : (await jwtVerify(token, key, options)).payload;
    } catch {
      // jose's reason (expired, bad signature, wrong issuer…) is not echoed: it helps probing more than users.
      throw new UnauthorizedError('Invalid or expired access token');
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new UnauthorizedError('Access token has no subject');
    const org = payload[config.orgClaim];
    return {
      id: payload.sub,
      kind: 'jwt',
      scopes: scopesOf(payload),
      orgId: typeof org === 'string' ? org : undefined,
      ...(typeof payload.name === 'string' && payload.name.length > 0 ? { name: payload.name } : {}),
      ...(typeof payload.exp === 'number' ? { expiresAt: new Date(payload.exp * 1000) } : {}),
    };
  };
}
