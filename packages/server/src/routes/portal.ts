// The consumer portal's two routes: a sender makes a single-use link for a tenant, and the portal
// page exchanges the link's code for a short-lived session (docs/console.md "Consumer portal").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ForbiddenError } from '@herald/core';
import { PORTAL_SESSION_SCOPES, SCOPES } from '../auth/scopes.js';
import { GoneError, UnauthorizedError } from '../errors/api-errors.js';
import { isPortalCodeShape } from '../portal/portal-credentials.js';
import type { PortalStore } from '../portal/portal-store.js';
import {
  PORTAL_LINK_TTL,
  PORTAL_SESSION_TTL_MS,
  PortalLink,
  PortalLinkRequest,
  PortalSession,
  PortalSessionRequest,
} from '../portal/schemas.js';
import { bodyErrorResponses, NoQuery } from './common.js';

export interface PortalRouteOptions {
  orgId: string;
  portal: PortalStore;
  publicBaseUrl?: string;
  branding: { name: string; color?: string };
  /** HERALD_READ_ONLY: the exchange writes a session, so it is refused like every other change. */
  readOnly: boolean;
}

/** Where the console serves its portal page (console/plugin.ts). */
export const PORTAL_PAGE_PATH = '/console/portal/';
const TAGS = ['portal'];

export const portalRoutes: FastifyPluginAsyncTypebox<PortalRouteOptions> = async (app, options) => {
  app.post(
    '/portal-links',
    {
      schema: {
        operationId: 'createPortalLink',
        summary: 'Make a single-use consumer-portal link for a tenant',
        description:
          "The link opens the console in portal mode, confined to the tenant's subscribers, deliveries and attempts. Its code is spent when opened; an unopened link expires after expiresInSeconds.",
        tags: TAGS,
        querystring: NoQuery,
        body: PortalLinkRequest,
        response: { 201: PortalLink, ...bodyErrorResponses() },
      },
      // No body means the defaults: this instance's org, the default lifetime.
      config: { scope: SCOPES.portalLinkCreate, optionalBody: true },
    },
    async (request, reply) => {
      const orgId = request.body.orgId ?? options.orgId;
      // The same answer for a foreign and an unknown org, as everywhere else (DECISIONS §2).
      if (orgId !== options.orgId) throw new ForbiddenError('Organization not accessible');
      const ttlMs = (request.body.expiresInSeconds ?? PORTAL_LINK_TTL.defaultSeconds) * 1000;
      const { code, expiresAt } = await options.portal.createLink({ orgId, createdBy: request.principal!.id, ttlMs });
      const base = options.publicBaseUrl ? options.publicBaseUrl.replace(/\/+$/, '') : '';
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ url: `${base}${PORTAL_PAGE_PATH}#code=${code}`, orgId, expiresAt: expiresAt.toISOString() });
    },
  );

  app.post(
    '/portal-sessions',
    {
      // The code is the credential: whoever holds the link may open it, once.
      config: { public: true },
      schema: {
        operationId: 'createPortalSession',
        summary: "Exchange a portal link's one-time code for a portal session",
        description: 'Unknown code: 401. A code already used, or past its expiry: 410. A read-only instance: 403. No Authorization header is needed.',
        tags: TAGS,
        querystring: NoQuery,
        body: PortalSessionRequest,
        response: { 201: PortalSession, ...bodyErrorResponses(410) },
      },
    },
    async (request, reply) => {
      // The auth hook, which refuses changes in read-only mode, does not run on this public route.
      if (options.readOnly) throw new ForbiddenError('The instance is in read-only mode');
      const { code } = request.body;
      if (!isPortalCodeShape(code)) throw new UnauthorizedError('Unknown portal link code');
      const result = await options.portal.exchange(code, PORTAL_SESSION_TTL_MS);
      if (!result.ok) {
        if (result.reason === 'unknown') throw new UnauthorizedError('Unknown portal link code');
        throw new GoneError(
          result.reason === 'used'
            ? 'This portal link was already used: ask the sender for a new one'
            : 'This portal link has expired: ask the sender for a new one',
        );
      }
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({
          token: result.token,
          orgId: result.session.orgId,
          scopes: [...PORTAL_SESSION_SCOPES].sort(),
          expiresAt: result.session.expiresAt.toISOString(),
          branding: options.branding,
        });
    },
  );
};
