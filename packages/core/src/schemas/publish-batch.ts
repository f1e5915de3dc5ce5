// Publishing many events in one call (extension): the items, the request that carries them and the
// one result per item. Each item is checked on its own, so one bad item refuses only itself.
import { Type, type Static } from 'typebox';
import { ErrorResponse, TEXT_PATTERN } from './common.js';
import { PublishEventInput } from './events.js';

export const PUBLISH_BATCH_LIMITS = {
  /** Most events one request carries; beyond it the whole request is refused. */
  maxEvents: 1000,
  /** The same bound as the single publish's Idempotency-Key header. */
  idempotencyKeyMax: 255,
} as const;

export const PublishBatchItem = Type.Object(
  {
    ...PublishEventInput.properties,
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: PUBLISH_BATCH_LIMITS.idempotencyKeyMax,
        pattern: TEXT_PATTERN,
        description:
          "This event's idempotency key, as the single publish's Idempotency-Key header: the same key again (in this batch, a later one, " +
          'or a single publish) answers with the event first published under it; with a different event, CONFLICT.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventBatchItem',
    description: 'One event of a batch: the fields of a single publish, plus its own optional idempotency key.',
    examples: [{ eventType: 'order.paid', aggregateId: 'order-42', data: { total: 42 }, idempotencyKey: 'order-42-paid' }],
  },
);
/** `data` is any JSON object, as in PublishEventInput. */
export type PublishBatchItem = Omit<Static<typeof PublishBatchItem>, 'data'> & { data: Record<string, unknown> };

export const PublishBatchRequest = Type.Object(
  {
    events: Type.Array(PublishBatchItem, {
      minItems: 1,
      maxItems: PUBLISH_BATCH_LIMITS.maxEvents,
      description: `1 to ${PUBLISH_BATCH_LIMITS.maxEvents} events, each checked and published on its own; their results come back in this order.`,
      errorMessage: {
        minItems: 'must hold at least one event',
        maxItems: `must hold at most ${PUBLISH_BATCH_LIMITS.maxEvents} events; send the others in further requests`,
      },
    }),
  },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventBatchRequest',
    description: 'Events to publish in one request (extension).',
    examples: [
      {
        events: [
          { eventType: 'order.paid', aggregateId: 'order-42', data: { total: 42 }, idempotencyKey: 'order-42-paid' },
          { eventType: 'apikey.generated', aggregateId: 'key-1', data: { name: 'ci', token: 's3cr3t' }, sensitive: ['token'] },
        ],
      },
    ],
  },
);
export type PublishBatchRequest = Static<typeof PublishBatchRequest>;

const Index = Type.Integer({ minimum: 0, description: 'Position of the event in the request, from 0.' });

export const PublishBatchAccepted = Type.Object(
  {
    index: Index,
    eventId: Type.String({ description: 'The recorded event (GET /webhook-events/{eventId}).' }),
    created: Type.Boolean({ description: 'false: its idempotency key was used before for the same event, which this is; nothing was fanned out again.' }),
  },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventBatchAccepted',
    description: 'An event of the batch that is recorded (durable) and fanned out to the subscribers it matched.',
    examples: [{ index: 0, eventId: '3b241101-e2bb-4255-8caf-4136c566a962', created: true }],
  },
);
export type PublishBatchAccepted = Static<typeof PublishBatchAccepted>;

export const PublishBatchRefused = Type.Object(
  { index: Index, error: ErrorResponse },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventBatchRefused',
    description:
      'An event of the batch that was not published, with the error a single publish of it would have answered (field names relative to the event). ' +
      'MISSING_REQUIRED_PARAMETER and CONFLICT: nothing of it is stored. SERVICE_UNAVAILABLE and INTERNAL_SERVER_ERROR: it may or may not be stored; ' +
      'send it again with an idempotency key to have it recorded exactly once.',
    examples: [{ index: 1, error: { status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'Some fields in the payload are missing or invalid', errors: [{ field: 'eventType', message: 'is required' }] } }],
  },
);
export type PublishBatchRefused = Static<typeof PublishBatchRefused>;

export const PublishBatchResult = Type.Object(
  {
    list: Type.Array(Type.Union([PublishBatchAccepted, PublishBatchRefused]), { description: 'One result per event of the request, in its order.' }),
    count: Type.Integer({ minimum: 0, description: 'Number of results (the number of events sent).' }),
    accepted: Type.Integer({ minimum: 0, description: 'Results with an `eventId`.' }),
    failed: Type.Integer({ minimum: 0, description: 'Results with an `error`.' }),
  },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventBatchResult',
    description: 'What became of each event of a batch.',
    examples: [
      {
        list: [
          { index: 0, eventId: '3b241101-e2bb-4255-8caf-4136c566a962', created: true },
          { index: 1, error: { status: 'error', code: 'MISSING_REQUIRED_PARAMETER', message: 'Some fields in the payload are missing or invalid', errors: [{ field: 'eventType', message: 'is required' }] } },
        ],
        count: 2,
        accepted: 1,
        failed: 1,
      },
    ],
  },
);
export type PublishBatchResult = Static<typeof PublishBatchResult>;
