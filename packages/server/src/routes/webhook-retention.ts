// The organization's retention policy: how long its settled events, with their deliveries and
// attempts, are kept before the hourly retention job removes them (docs/operations.md "Retention").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { schemas } from '@herald/core';
import { SCOPES } from '../auth/scopes.js';
import { bodyErrorResponses, coreScope, errorResponses, NoQuery } from './common.js';
import type { WebhookRouteOptions } from './webhook-subscribers.js';

const TAGS = ['webhook-retention'];

export const webhookRetentionRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, options) => {
  const { herald, orgId } = options;

  app.get(
    '/webhook-retention',
    {
      config: { scope: SCOPES.eventRead },
      schema: {
        operationId: 'getWebhookRetention',
        summary: "Get the retention that applies to the organization's settled events, and the host default",
        tags: TAGS,
        querystring: NoQuery,
        response: { 200: schemas.WebhookRetentionPolicy, ...errorResponses() },
      },
    },
    async (request) => herald.retention.get(coreScope(request, orgId)),
  );

  app.put(
    '/webhook-retention',
    {
      config: { scope: SCOPES.deliveryManage },
      schema: {
        operationId: 'setWebhookRetention',
        summary: "Replace the organization's retention policy (`{}` returns it to the host default)",
        description:
          'Settled events (ALL_DELIVERED, FAILED) older than their window are removed with their deliveries and attempts by the next hourly run; events still being delivered never are. A shorter window removes more at that run; a longer one cannot bring back what was removed.',
        tags: TAGS,
        querystring: NoQuery,
        body: schemas.WebhookRetentionPolicyRequest,
        response: { 200: schemas.WebhookRetentionPolicy, ...bodyErrorResponses() },
      },
    },
    async (request) => herald.retention.set(coreScope(request, orgId), request.body),
  );
};
