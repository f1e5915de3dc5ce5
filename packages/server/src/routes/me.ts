// GET /api/v1/me: who the caller is — the principal id Herald records as createdBy/updatedBy, the
// credential's kind, name, scopes, org and expiry. Lets clients such as the operator recognise what
// they created without side effects. Never echoes the credential itself.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, NoQuery } from './common.js';

export interface MeRouteOptions {
  orgId: string;
}

export const Me = Type.Object(
  {
    principal: Type.String({ description: 'Id recorded as createdBy/updatedBy: the API token\'s principal (tok_…) or the JWT subject.' }),
    kind: Type.Union([Type.Literal('api-token'), Type.Literal('jwt'), Type.Literal('portal')], {
      description: '`portal`: a consumer-portal session (docs/console.md), confined to orgId and the subscriber-facing operations.',
    }),
    name: Type.Optional(Type.String({ description: 'The API token\'s name, or the JWT\'s name claim.' })),
    scopes: Type.Array(Type.String(), { description: 'Scopes the credential carries, sorted.' }),
    orgId: Type.String(),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the credential expires; absent when it never does.' })),
  },
  {
    additionalProperties: false,
    title: 'Me',
    description: 'The authenticated caller.',
    examples: [
      {
        principal: 'tok_8d3f2a1c9b7e4d6f',
        kind: 'api-token',
        name: 'bootstrap-admin',
        scopes: ['dp:event:read', 'dp:webhook_subscriber:manage'],
        orgId: 'default',
      },
    ],
  },
);

export const meRoutes: FastifyPluginAsyncTypebox<MeRouteOptions> = async (app, options) => {
  app.get(
    '/me',
    {
      // Any valid credential may ask who it is: no scope is needed to learn one's own identity.
      config: { authenticated: true, portal: true },
      schema: {
        operationId: 'getMe',
        summary: 'The authenticated caller: principal id, credential kind, scopes, org',
        tags: ['me'],
        querystring: NoQuery,
        response: { 200: Me, ...errorResponses() },
      },
    },
    async (request) => {
      // The auth hook of this context always sets the principal before handlers run.
      const principal = request.principal!;
      return {
        principal: principal.id,
        kind: principal.kind,
        ...(principal.name !== undefined ? { name: principal.name } : {}),
        scopes: [...principal.scopes].sort(),
        // A JWT of another org never gets here (403 in the auth hook), so this is the caller's org too.
        orgId: principal.kind === 'portal' ? principal.orgId! : options.orgId,
        ...(principal.expiresAt ? { expiresAt: principal.expiresAt.toISOString() } : {}),
      };
    },
  );
};
