// The event catalog as AsyncAPI 3.0, built by core from the catalog and the delivery settings this
// host sends with (its signing profile, the traceparent header), so it describes what subscribers
// of this instance actually receive.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { buildAsyncApiDocument, schemas, type Herald, type SigningProfile } from '@herald/core';
import { SCOPES } from '../auth/scopes.js';
import { errorResponses, NoQuery } from './common.js';

export interface AsyncApiRouteOptions {
  herald: Herald;
  signingProfile: SigningProfile;
  traceparentHeader: boolean;
  /** The webhook API's version: the document describes what this API's subscribers receive. */
  version: string;
}

export const asyncApiRoutes: FastifyPluginAsyncTypebox<AsyncApiRouteOptions> = async (app, options) => {
  app.get(
    '/asyncapi.json',
    {
      config: { scope: SCOPES.eventRead },
      schema: {
        operationId: 'getWebhookAsyncApi',
        summary: 'The event catalog as an AsyncAPI 3.0 document: every event type, its data, the envelope, the signature headers and encrypted fields',
        tags: ['webhook-event-types'],
        querystring: NoQuery,
        response: { 200: schemas.AsyncApiDocumentSchema, ...errorResponses() },
      },
    },
    async () =>
      buildAsyncApiDocument({
        eventTypes: options.herald.catalog.list(),
        signingProfile: options.signingProfile,
        traceparentHeader: options.traceparentHeader,
        info: { title: 'Herald webhook events', version: options.version },
      }),
  );
};
