// Batch publish (extension, issue 31): up to 1,000 events in one request, each checked and
// published on its own (core's publishMany), one result per event in the request's order. The
// request is refused whole only for what concerns it whole: credentials and scope, a body that is
// not a JSON object with an `events` array of 1–1,000 items, or more than the 1 MiB every body may
// carry. Each event's own problem is answered in its result with the error a single publish of it
// would have got, mapped by the same error mapping.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextFromTraceparent, schemas, ValidationError, type PublishBatchItem, type PublishBatchResult } from '@herald/core';
import { context } from '@opentelemetry/api';
import { SCOPES } from '../auth/scopes.js';
import { toErrorReply } from '../errors/error-reply.js';
import { perItemValidatorCompiler } from '../validation/per-item.js';
import { jsonValueCheck } from '../validation/validator-compiler.js';
import { bodyErrorResponses, coreScope, NoQuery } from './common.js';
import type { WebhookRouteOptions } from './webhook-subscribers.js';

const MAX_EVENTS = schemas.PUBLISH_BATCH_LIMITS.maxEvents;

const DESCRIPTION = [
  `Publishes up to ${MAX_EVENTS} events in one request, each exactly as a single \`POST /webhook-events\` of it would be: ` +
    'the same checks (the catalog\'s `dataSchema` included), the same fan-out, the same durability (an event is stored before its result says so).',
  `Limits: ${MAX_EVENTS} events and 1 MiB of body, whichever comes first (the 1 MiB every request body may carry); ` +
    'more events → 400 naming `events`, more bytes → 413 `PAYLOAD_TOO_LARGE`; nothing of such a request is published.',
  'The answer is 200 whenever the request itself is well formed, with one result per event in the request\'s order: `{index, eventId, created}` ' +
    'for an event recorded, `{index, error}` for one refused, `error` being the ErrorResponse a single publish of it would have answered ' +
    '(field names relative to the event). One invalid event refuses only itself. ' +
    '`MISSING_REQUIRED_PARAMETER` and `CONFLICT`: nothing of that event is stored. `SERVICE_UNAVAILABLE` or `INTERNAL_SERVER_ERROR`: it may or may not be; ' +
    'send it again with its idempotency key to have it recorded exactly once.',
  'Each event carries its own optional `idempotencyKey`, with the `Idempotency-Key` header\'s meaning: one namespace per organization shared with ' +
    'single publishes, the same key and event again answers the event first published (`created: false`, no second fan-out), the same key with another ' +
    'event is `CONFLICT`. Two events of one batch with the same key are taken in order. The `Idempotency-Key` header itself is refused here (400): ' +
    'it would name the batch, not its events.',
].join('\n\n');

export const webhookEventBatchRoutes: FastifyPluginAsyncTypebox<WebhookRouteOptions> = async (app, options) => {
  const { herald, orgId } = options;
  const checkItem = jsonValueCheck(schemas.PublishBatchItem, 'event');

  app.post(
    '/webhook-events/batch',
    {
      config: { scope: SCOPES.eventPublish },
      validatorCompiler: perItemValidatorCompiler('events'),
      schema: {
        operationId: 'publishWebhookEventBatch',
        summary: `Publish up to ${MAX_EVENTS} events in one request (extension): one result per event, in order`,
        description: DESCRIPTION,
        tags: ['webhook-events'],
        querystring: NoQuery,
        body: schemas.PublishBatchRequest,
        response: { 200: schemas.PublishBatchResult, ...bodyErrorResponses() },
      },
    },
    async (request): Promise<PublishBatchResult> => {
      if (request.headers['idempotency-key'] !== undefined) {
        throw ValidationError.single('Idempotency-Key', 'is not used by a batch: give each event its own idempotencyKey');
      }
      // Items were left unchecked by the body's validation (validation/per-item.ts): each is checked here.
      const items = request.body.events as unknown[];
      const refusals = items.map(checkItem);
      const valid = items.filter((_item, index) => refusals[index] === undefined) as PublishBatchItem[];
      // The caller's W3C trace context, if any, is every publish span's parent (core's tracing.ts).
      const traceparent = typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined;
      const published = await context.with(contextFromTraceparent(traceparent, context.active()), () => herald.events.publishMany(coreScope(request, orgId), valid));

      let next = 0;
      const list = items.map((_item, index): PublishBatchResult['list'][number] => {
        const refusal = refusals[index];
        const outcome = refusal === undefined ? published[next++]! : { ok: false as const, error: refusal };
        if (outcome.ok) return { index, eventId: outcome.event.eventId, created: outcome.created };
        const reply = toErrorReply(outcome.error, request.id);
        if (reply.statusCode >= 500) request.log.error({ err: outcome.error, index }, 'an event of a batch was not published');
        return { index, error: reply.body };
      });
      const accepted = list.filter((result) => 'eventId' in result).length;
      return { list, count: list.length, accepted, failed: list.length - accepted };
    },
  );
};
