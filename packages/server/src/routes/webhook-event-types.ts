// The event-type catalog the host was configured with (`eventTypes`), read-only: what subscribers can
// filter on, the shape of each type's data, and a sample payload.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError, schemas, type EventTypeDefinition, type WebhookEventType } from '@herald/core';
import { SCOPES } from '../auth/scopes.js';
import { errorResponses, NoQuery } from './common.js';
import type { WebhookRouteOptions } from './webhook-subscribers.js';

const TAGS = ['webhook-event-types'];

/** Only the documented fields, so whatever else an embedder registered does not leak. */
function toResource(definition: EventTypeDefinition): WebhookEventType {
  return {
    type: definition.type,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    sensitive: definition.sensitive ?? [],
    ...(definition.dataSchema === undefined ? {} : { dataSchema: definition.dataSchema }),
    ...(definition.example === undefined ? {} : { example: definition.example }),
  };
}

export const webhookEventTypeRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, options) => {
  const { herald } = options;

  app.get(
    '/webhook-event-types',
    {
      config: { scope: SCOPES.eventRead, portal: true },
      schema: {
        operationId: 'listWebhookEventTypes',
        summary: 'List the event types this host publishes (its event catalog), sorted by type',
        tags: TAGS,
        querystring: NoQuery,
        response: { 200: schemas.WebhookEventTypeList, ...errorResponses() },
      },
    },
    async () => {
      const list = herald.catalog
        .list()
        .map(toResource)
        .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
      return { list, count: list.length };
    },
  );

  app.get(
    '/webhook-event-types/:type',
    {
      config: { scope: SCOPES.eventRead, portal: true },
      schema: {
        operationId: 'getWebhookEventType',
        summary: 'Get one event type of the catalog: description, sensitive fields, data schema and example',
        tags: TAGS,
        params: schemas.WebhookEventTypeParams,
        querystring: NoQuery,
        response: { 200: schemas.WebhookEventType, ...errorResponses(404) },
      },
    },
    async (request) => {
      const definition = herald.catalog.get(request.params.type);
      if (!definition) throw new NotFoundError(`Event type "${request.params.type}" is not in this host's catalog`);
      return toResource(definition);
    },
  );
};
