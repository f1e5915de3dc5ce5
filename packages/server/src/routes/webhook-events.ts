// Spec section C (list/get events) plus the extensions of DECISIONS §2: publish over HTTP with an
// Idempotency-Key, redeliver an event, retry one delivery.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SCOPES } from '../auth/scopes.js';
import { contextFromTraceparent, NotFoundError, schemas } from '@herald/core';
import { context } from '@opentelemetry/api';
import { bodyErrorResponses, coreScope, errorResponses, NoContent, NoQuery, resourceLocation } from './common.js';
import type { WebhookRouteOptions } from './webhook-subscribers.js';

const TAGS = ['webhook-events'];
/** Event and delivery ids are UUIDs or derived hex ids; anything else is a 400 naming the field. */
const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$';
const EventParams = Type.Object({ eventId: Type.String({ pattern: ID_PATTERN }) }, { additionalProperties: false });
const DeliveryParams = Type.Object(
  { eventId: Type.String({ pattern: ID_PATTERN }), deliveryId: Type.String({ pattern: ID_PATTERN }) },
  { additionalProperties: false },
);
const PublishHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Repeat the key to get the original event back (200), without a second fan-out.' }),
  ),
});

export const webhookEventRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, options) => {
  const { herald, orgId } = options;

  app.get(
    '/webhook-events',
    {
      config: { scope: SCOPES.eventRead, portal: true },
      schema: {
        operationId: 'listWebhookEvents',
        summary: 'List webhook events (newest first), each with a summary of its delivery rows',
        tags: TAGS,
        querystring: schemas.WebhookEventListQuery,
        response: { 200: schemas.WebhookEventList, ...errorResponses() },
      },
    },
    async (request) => herald.events.list(coreScope(request, orgId), request.query),
  );

  app.get(
    '/webhook-events/:eventId',
    {
      config: { scope: SCOPES.eventRead, portal: true },
      schema: {
        operationId: 'getWebhookEvent',
        summary: 'Get a webhook event with the full details (attempt history) of every delivery row',
        tags: TAGS,
        params: EventParams,
        querystring: NoQuery,
        response: { 200: schemas.WebhookEventDetail, ...errorResponses(404) },
      },
    },
    async (request) => herald.events.get(coreScope(request, orgId), request.params.eventId),
  );

  app.post(
    '/webhook-events',
    {
      config: { scope: SCOPES.eventPublish, locationHeader: 201 },
      schema: {
        operationId: 'publishWebhookEvent',
        summary: 'Publish an event (extension): fans out to every matching enabled subscriber',
        description:
          'A repeated Idempotency-Key with the same request answers 200 with the event first published under that key; ' +
          'with a different request it answers 409. Keys are scoped to the organization: any token of the org names the same event. ' +
          'Sensitive values are not compared: they are never stored, not even hashed. ' +
          "When the instance's catalog gives the event type a `dataSchema` (GET /webhook-event-types), `data` must also match it (400 naming the field): " +
          'the catalog is the deployment\'s, not part of this document. `aggregateType` and the keys of `data` are UTF-8 text: an unpaired surrogate is refused.',
        tags: TAGS,
        headers: PublishHeaders,
        querystring: NoQuery,
        body: schemas.PublishEventInput,
        response: { 201: schemas.WebhookEvent, 200: schemas.WebhookEvent, ...bodyErrorResponses(409) },
      },
    },
    async (request, reply) => {
      const idempotencyKey = request.headers['idempotency-key'];
      // The caller's W3C trace context, if any, is the publish span's parent (core's tracing.ts).
      const traceparent = typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined;
      const { event, created } = await context.with(contextFromTraceparent(traceparent, context.active()), () =>
        herald.events.publish(
          coreScope(request, orgId),
          // The schema admits any JSON object as `data`; TypeBox infers it as `object`.
          { ...request.body, data: request.body.data as Record<string, unknown> },
          idempotencyKey ? { idempotencyKey } : undefined,
        ),
      );
      return reply.code(created ? 201 : 200).header('location', resourceLocation(options, 'webhook-events', event.eventId)).send(event);
    },
  );

  app.delete(
    '/webhook-events/:eventId',
    {
      config: { scope: SCOPES.deliveryManage },
      schema: {
        operationId: 'eraseWebhookEvent',
        summary: 'Erase an event now, with its delivery rows and attempts (right to erasure; extension)',
        description:
          'Answers 409 while deliveries of the event are still to be sent; `force=true` removes those too (they are never sent). ' +
          'An attempt already on the wire finishes; its outcome, if written after the erase, is removed by the maintenance pass once no attempt can still be running (45 s with the defaults), or at once by erasing again.',
        tags: TAGS,
        params: EventParams,
        querystring: Type.Object(
          { force: Type.Optional(Type.Boolean({ description: 'Also remove deliveries not yet sent. Default false.' })) },
          { additionalProperties: false },
        ),
        response: { 204: NoContent, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await herald.events.erase(coreScope(request, orgId), request.params.eventId, { force: request.query.force === true });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhook-events/:eventId/redeliver',
    {
      config: { scope: SCOPES.deliveryManage, portal: true },
      schema: {
        operationId: 'redeliverWebhookEvent',
        summary: 'Deliver an event again to every subscriber it was delivered to (extension)',
        tags: TAGS,
        params: EventParams,
        querystring: NoQuery,
        response: { 200: schemas.WebhookEventDetail, ...errorResponses(404) },
      },
    },
    async (request) => herald.events.redeliver(coreScope(request, orgId), request.params.eventId),
  );

  app.post(
    '/webhook-events/:eventId/deliveries/:deliveryId/retry',
    {
      config: { scope: SCOPES.deliveryManage, portal: true },
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Retry one delivery row of an event now (extension)',
        tags: TAGS,
        params: DeliveryParams,
        querystring: NoQuery,
        response: { 200: schemas.WebhookEventDelivery, ...errorResponses(404) },
      },
    },
    async (request) => {
      const scope = coreScope(request, orgId);
      const event = await herald.events.get(scope, request.params.eventId);
      if (!event.deliveries.some((delivery) => delivery.deliveryId === request.params.deliveryId)) {
        throw new NotFoundError(`Delivery "${request.params.deliveryId}" not found for this event`);
      }
      return herald.deliveries.retry(scope, request.params.deliveryId);
    },
  );
};
