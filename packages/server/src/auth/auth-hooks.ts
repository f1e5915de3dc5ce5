// Authentication and authorization for one encapsulated API context: every route must declare its
// scope (or `public: true`) at registration; each request is authenticated (401), then checked for
// read-only mode, org and scope (403) before its body is even parsed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError } from '@herald/core';
import { UnauthorizedError } from '../errors/api-errors.js';
import { isApiTokenShape } from './api-token.js';
import { isJwtShape, type JwtVerifier } from './jwt-verifier.js';
import type { Principal } from './principal.js';
import { hasScope, PORTAL_SESSION_SCOPES, type Scope } from './scopes.js';
import type { TokenStore } from './token-store.js';
import { isPortalSessionShape } from '../portal/portal-credentials.js';
import type { PortalStore } from '../portal/portal-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route requires (DECISIONS §4). */
    scope?: Scope;
    /** Any authenticated principal may call the route (the org directory). */
    authenticated?: boolean;
    /** Set on routes that need no credentials (OpenAPI documents). */
    public?: boolean;
    /** A consumer-portal session may call the route (docs/console.md "Consumer portal"); others refuse it. */
    portal?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface AuthOptions {
  tokens: TokenStore;
  portal: PortalStore;
  jwtVerifier?: JwtVerifier;
  orgId: string;
  readOnly: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer\s+(\S+)\s*$/i;

async function authenticate(request: FastifyRequest, options: AuthOptions): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw new UnauthorizedError('Missing access token: send Authorization: Bearer <token>');
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new UnauthorizedError('Malformed Authorization header: expected Bearer <token>');
  if (isApiTokenShape(token)) {
    const info = await options.tokens.findActive(token);
    if (!info) throw new UnauthorizedError('Invalid, revoked or expired access token');
    return {
      id: info.principalId,
      kind: 'api-token',
      scopes: new Set(info.scopes),
      name: info.name,
      ...(info.expiresAt ? { expiresAt: info.expiresAt } : {}),
    };
  }
  if (isPortalSessionShape(token)) {
    const session = await options.portal.findSession(token);
    if (!session) throw new UnauthorizedError('Invalid or expired portal session: open a new portal link');
    return { id: session.id, kind: 'portal', scopes: new Set(PORTAL_SESSION_SCOPES), orgId: session.orgId, expiresAt: session.expiresAt };
  }
  if (options.jwtVerifier && isJwtShape(token)) return options.jwtVerifier(token);
  throw new UnauthorizedError('Invalid access token');
}

export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.scope && !route.config?.authenticated && !route.config?.public) {
      throw new Error(`Route ${route.method} ${route.url} declares no scope (nor authenticated/public)`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const { scope, authenticated, public: isPublic, portal } = request.routeOptions.config;
    if (isPublic) return;
    const principal = await authenticate(request, options);
    request.principal = principal;
    if (principal.kind === 'jwt' && principal.orgId !== options.orgId) {
      throw new ForbiddenError('The access token belongs to another organization');
    }
    // Deny by default: a portal session reaches only the routes marked for it, whatever its scopes.
    if (principal.kind === 'portal' && !portal) {
      throw new ForbiddenError('A portal session may not call this operation');
    }
    if (principal.kind === 'portal' && principal.orgId !== options.orgId) {
      throw new ForbiddenError('The portal session belongs to another organization');
    }
    if (options.readOnly && !READ_METHODS.has(request.method)) {
      throw new ForbiddenError('The instance is in read-only mode');
    }
    if (authenticated && !scope) return;
    if (!scope || !hasScope(principal.scopes, scope)) {
      throw new ForbiddenError(`Missing required scope ${scope ?? '(none declared)'}`);
    }
  });
}
