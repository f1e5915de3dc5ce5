// Spec section B: webhook subscribers under /api/v0.9. Shapes are core's schemas, and so are the
// rules that normalize a valid body (target URL spelling, repeated patterns); this file only binds
// them to HTTP (status codes, Location, scopes).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { normaliseSubscriberRequest, schemas, type Herald } from '@herald/core';
import { Type } from 'typebox';
import { SCOPES } from '../auth/scopes.js';
import { bodyErrorResponses, coreScope, errorResponses, NoContent, NoQuery, resourceLocation, type Mount } from './common.js';

export interface WebhookRouteOptions extends Mount {
  herald: Herald;
  orgId: string;
}

const TAGS = ['webhook-subscribers'];
/** Path handles follow the id format, so odd characters are a 400 with a field, not a lookup. */
const SubscriberParams = Type.Object(
  { subscriberId: Type.String({ pattern: schemas.HANDLE_PATTERN, description: "The subscriber's handle." }) },
  { additionalProperties: false },
);

const RecoveryParams = Type.Object(
  {
    subscriberId: SubscriberParams.properties.subscriberId,
    recoveryId: Type.String({ pattern: '^rec_[0-9a-f]{16}$', description: 'The recovery id returned when it was asked for.' }),
  },
  { additionalProperties: false },
);

export const webhookSubscriberRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, options) => {
  const { herald, orgId } = options;

  app.post(
    '/webhook-subscribers',
    {
      config: { scope: SCOPES.subscriberCreate, locationHeader: 201 },
      schema: {
        operationId: 'createWebhookSubscriber',
        summary: 'Create a webhook subscriber',
        tags: TAGS,
        querystring: NoQuery,
        body: schemas.WebhookSubscriberCreateRequest,
        response: { 201: schemas.WebhookSubscriberResponse, ...bodyErrorResponses(409) },
      },
      preHandler: async (request) => {
        request.body = normaliseSubscriberRequest(request.body);
      },
    },
    async (request, reply) => {
      const created = await herald.subscribers.create(coreScope(request, orgId), request.body);
      return reply.code(201).header('location', resourceLocation(options, 'webhook-subscribers', created.id)).send(created);
    },
  );

  app.get(
    '/webhook-subscribers',
    {
      config: { scope: SCOPES.subscriberRead, portal: true },
      schema: {
        operationId: 'listWebhookSubscribers',
        summary: 'List webhook subscribers (oldest first)',
        tags: TAGS,
        querystring: schemas.WebhookSubscriberListQuery,
        response: { 200: schemas.WebhookSubscriberList, ...errorResponses() },
      },
    },
    async (request) => herald.subscribers.list(coreScope(request, orgId), request.query),
  );

  app.get(
    '/webhook-subscribers/:subscriberId',
    {
      config: { scope: SCOPES.subscriberRead, portal: true },
      schema: {
        operationId: 'getWebhookSubscriber',
        summary: 'Get a webhook subscriber',
        tags: TAGS,
        params: SubscriberParams,
        querystring: NoQuery,
        response: { 200: schemas.WebhookSubscriberResponse, ...errorResponses(404) },
      },
    },
    async (request) => herald.subscribers.get(coreScope(request, orgId), request.params.subscriberId),
  );

  app.put(
    '/webhook-subscribers/:subscriberId',
    {
      // The spec makes the update body optional: no body changes nothing.
      config: { scope: SCOPES.subscriberUpdate, portal: true, optionalBody: true },
      schema: {
        operationId: 'updateWebhookSubscriber',
        summary: 'Update a webhook subscriber (only supplied fields change)',
        tags: TAGS,
        params: SubscriberParams,
        querystring: NoQuery,
        body: schemas.WebhookSubscriberUpdateRequest,
        response: { 200: schemas.WebhookSubscriberResponse, ...bodyErrorResponses(404, 409) },
      },
      preHandler: async (request) => {
        request.body = normaliseSubscriberRequest(request.body);
      },
    },
    async (request) => herald.subscribers.update(coreScope(request, orgId), request.params.subscriberId, request.body),
  );

  app.delete(
    '/webhook-subscribers/:subscriberId',
    {
      config: { scope: SCOPES.subscriberDelete },
      schema: {
        operationId: 'deleteWebhookSubscriber',
        summary: 'Delete a webhook subscriber',
        tags: TAGS,
        params: SubscriberParams,
        querystring: NoQuery,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await herald.subscribers.delete(coreScope(request, orgId), request.params.subscriberId);
      return reply.code(204).send(null);
    },
  );

  // Its answers reveal data values no read returns (a `$startsWith` probe, letter by letter), just
  // as deliveries to a subscriber with that filter would: so it takes the scope that may create such
  // a subscriber. No scope reads event data in full; `dp:event:read` alone must not.
  app.post(
    '/webhook-subscribers/filter-preview',
    {
      config: { scope: SCOPES.subscriberCreate },
      schema: {
        operationId: 'previewWebhookSubscriberFilter',
        summary: 'Try a payload filter on the most recent events (nothing is stored)',
        tags: TAGS,
        querystring: NoQuery,
        body: schemas.WebhookFilterPreviewRequest,
        response: { 200: schemas.WebhookFilterPreview, ...bodyErrorResponses() },
      },
    },
    async (request) => herald.subscribers.previewFilter(coreScope(request, orgId), request.body),
  );

  app.get(
    '/webhook-subscribers/:subscriberId/deliveries',
    {
      config: { scope: SCOPES.subscriberRead, portal: true },
      schema: {
        operationId: 'listWebhookSubscriberDeliveries',
        summary: "A subscriber's most recent delivery attempts, newest first (50 a page; older pages by cursor)",
        tags: TAGS,
        params: SubscriberParams,
        querystring: schemas.WebhookSubscriberDeliveryListQuery,
        response: { 200: schemas.WebhookSubscriberDeliveryList, ...errorResponses(404) },
      },
    },
    async (request) => herald.subscribers.deliveriesPage(coreScope(request, orgId), request.params.subscriberId, request.query),
  );

  app.post(
    '/webhook-subscribers/:subscriberId/recover',
    {
      config: { scope: SCOPES.deliveryManage, locationHeader: 202 },
      schema: {
        operationId: 'recoverWebhookSubscriberDeliveries',
        summary: "Send a subscriber's settled deliveries of a time range again (default FAILED ones), as their next attempts",
        description:
          'Answers 202 at once with the recovery; the engine sends the matching rows back to PENDING at a bounded rate ' +
          '(200 per second), resuming after a restart. Each row keeps its attempt numbers and gets a fresh retry budget. ' +
          '409 when the subscriber is disabled; 400 when `until` is before `since`.',
        tags: TAGS,
        params: SubscriberParams,
        querystring: NoQuery,
        body: schemas.RecoveryRequest,
        response: { 202: schemas.Recovery, ...bodyErrorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { subscriberId } = request.params;
      const recovery = await herald.deliveries.recover(coreScope(request, orgId), subscriberId, request.body);
      const location = resourceLocation(options, 'webhook-subscribers', subscriberId, 'recoveries', recovery.recoveryId);
      return reply.code(202).header('location', location).send(recovery);
    },
  );

  app.get(
    '/webhook-subscribers/:subscriberId/recoveries/:recoveryId',
    {
      config: { scope: SCOPES.subscriberRead },
      schema: {
        operationId: 'getWebhookSubscriberRecovery',
        summary: 'The progress of a recovery',
        tags: TAGS,
        params: RecoveryParams,
        querystring: NoQuery,
        response: { 200: schemas.Recovery, ...errorResponses(404) },
      },
    },
    async (request) => herald.deliveries.recovery(coreScope(request, orgId), request.params.subscriberId, request.params.recoveryId),
  );
};
