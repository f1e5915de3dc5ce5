// The event-type catalog the host was configured with (`eventTypes`), read-only: what subscribers can
// filter on, the shape of each type's data, and a sample payload.
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError, schemas, ValidationError, type EventTypeDefinition, type WebhookEventType } from '@herald/core';
import { Type } from 'typebox';
import { SCOPES } from '../auth/scopes.js';
import { bodyErrorResponses, coreScope, errorResponses, NoQuery, resourceLocation } from './common.js';
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
  const { herald, orgId } = options;

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

  app.post(
    '/webhook-event-types/:type/test',
    {
      // The consumer portal's "send a test event": only a catalog example can be sent this way.
      config: { scope: SCOPES.eventPublish, portal: true, locationHeader: 201, optionalBody: true },
      schema: {
        operationId: 'sendTestWebhookEvent',
        summary: "Publish a test event of a type, with the type's catalog example as its data",
        description:
          'The event (aggregateType `test`, aggregateId `test-` + 12 hex digits) goes to every enabled subscriber whose event types and filter let it through, like any other. A type the catalog lacks is 404; one without an example is 400 naming `type`; Herald\'s own `herald.*` types are refused as publishing refuses them.',
        tags: TAGS,
        params: schemas.WebhookEventTypeParams,
        querystring: NoQuery,
        body: Type.Object({}, { additionalProperties: false, description: 'No fields: the data is the catalog example.' }),
        response: { 201: schemas.WebhookEvent, ...bodyErrorResponses(404) },
      },
    },
    async (request, reply) => {
      const definition = herald.catalog.get(request.params.type);
      if (!definition) throw new NotFoundError(`Event type "${request.params.type}" is not in this host's catalog`);
      if (definition.example === undefined) {
        throw ValidationError.single('type', "has no example in the host's catalog (eventTypes[].example), so there is nothing to send");
      }
      const { event } = await herald.events.publish(coreScope(request, orgId), {
        eventType: definition.type,
        aggregateType: 'test',
        aggregateId: `test-${randomBytes(6).toString('hex')}`,
        data: definition.example,
      });
      return reply.code(201).header('location', resourceLocation(options, 'webhook-events', event.eventId)).send(event);
    },
  );
};
