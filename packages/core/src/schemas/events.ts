// Webhook event resources (spec section C) and the publish extension (DECISIONS §2, §5).
import { Type, type Static } from 'typebox';
import { Cursor, CursorPageOf, DateTime, Limit, NullableDateTime, NullableInteger, NullableString, OffsetBesideCursor, TEXT_PATTERN } from './common.js';
import { DeliveryStatus, EventStatus } from './status.js';

/** `family.action`, segments `[a-z0-9_]+`. */
export const EVENT_TYPE_PATTERN = '^[a-z0-9_]+\\.[a-z0-9_]+$';
export const RESPONSE_SNIPPET_MAX_BYTES = 4096;

const DELIVERY_EXAMPLE = {
  deliveryId: '6f1c2e9a4b7d3f80',
  subscriberId: 'billing',
  targetUrl: 'https://example.com/hooks/billing',
  status: 'DELIVERED',
  lastHttpStatus: 200,
  lastError: null,
  lastAttemptAt: '2025-01-31T12:00:00.210Z',
  deliveredAt: '2025-01-31T12:00:00.295Z',
};
const ATTEMPT_EXAMPLE = {
  attempt: 1,
  startedAt: '2025-01-31T12:00:00.210Z',
  durationMs: 85,
  httpStatus: 200,
  errorClass: null,
  errorMessage: null,
  responseBodySnippet: 'ok',
};
const DELIVERY_DETAIL_EXAMPLE = {
  ...DELIVERY_EXAMPLE,
  attempts: 1,
  nextAttemptAt: null,
  encryptedFields: ['token'],
  createdAt: '2025-01-31T12:00:00.050Z',
  attemptHistory: [ATTEMPT_EXAMPLE],
};
const EVENT_EXAMPLE = {
  eventId: '3b241101-e2bb-4255-8caf-4136c566a962',
  eventType: 'apikey.generated',
  orgId: 'default',
  aggregateType: 'apikey',
  aggregateId: 'key-1',
  status: 'ALL_DELIVERED',
  occurredAt: '2025-01-31T12:00:00.000Z',
};

/** A row's place in its key (docs/ordering.md): the `sequence` its delivered body carries. */
export const DeliverySequence = Type.Integer({
  minimum: 1,
  description:
    'Only on rows of a subscriber with `ordering: "aggregate"`: the row\'s place among the deliveries of its key (aggregateType + aggregateId) to this subscriber, as sent in the body\'s `sequence`. Absent on rows of an unordered subscriber.',
});

export const WebhookEventDelivery = Type.Object(
  {
    deliveryId: Type.String(),
    subscriberId: Type.String({ description: "The subscriber's handle at the time of the event." }),
    targetUrl: NullableString,
    status: DeliveryStatus,
    lastHttpStatus: NullableInteger,
    lastError: NullableString,
    lastAttemptAt: NullableDateTime,
    deliveredAt: NullableDateTime,
    sequence: Type.Optional(DeliverySequence),
  },
  {
    additionalProperties: false,
    title: 'WebhookEventDelivery',
    description: "Summary of one delivery row of an event: one per subscriber the event matched.",
    examples: [DELIVERY_EXAMPLE],
  },
);
export type WebhookEventDelivery = Static<typeof WebhookEventDelivery>;

export const DeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    startedAt: DateTime,
    durationMs: Type.Integer({ minimum: 0 }),
    httpStatus: NullableInteger,
    errorClass: NullableString,
    errorMessage: NullableString,
    responseBodySnippet: Type.Union([Type.String({ maxLength: RESPONSE_SNIPPET_MAX_BYTES }), Type.Null()], {
      description: 'First 4 KiB of the response body.',
    }),
  },
  {
    additionalProperties: false,
    title: 'DeliveryAttempt',
    description: 'One attempt to deliver a row: when, how long, and what came back.',
    examples: [ATTEMPT_EXAMPLE],
  },
);
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** The "full details" of a row on the single-event read: the summary plus retry state and attempt history. */
export const WebhookEventDeliveryDetail = Type.Object(
  {
    ...WebhookEventDelivery.properties,
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: NullableDateTime,
    encryptedFields: Type.Array(Type.String()),
    createdAt: DateTime,
    attemptHistory: Type.Array(DeliveryAttempt),
  },
  {
    additionalProperties: false,
    title: 'WebhookEventDeliveryDetail',
    description: 'The full details of a delivery row: the summary plus retry state and attempt history.',
    examples: [DELIVERY_DETAIL_EXAMPLE],
  },
);
export type WebhookEventDeliveryDetail = Static<typeof WebhookEventDeliveryDetail>;

const eventFields = {
  eventId: Type.String(),
  eventType: Type.String(),
  orgId: Type.String(),
  aggregateType: Type.String(),
  aggregateId: Type.String(),
  status: EventStatus,
  occurredAt: DateTime,
};

export const WebhookEvent = Type.Object(
  { ...eventFields, deliveries: Type.Array(WebhookEventDelivery) },
  {
    additionalProperties: false,
    title: 'WebhookEvent',
    description: 'A recorded event with a summary of each of its delivery rows.',
    examples: [{ ...EVENT_EXAMPLE, deliveries: [DELIVERY_EXAMPLE] }],
  },
);
export type WebhookEvent = Static<typeof WebhookEvent>;

export const WebhookEventDetail = Type.Object(
  { ...eventFields, deliveries: Type.Array(WebhookEventDeliveryDetail) },
  {
    additionalProperties: false,
    title: 'WebhookEventDetail',
    description: 'A WebhookEvent with the full details (attempt history) of every delivery row.',
    examples: [{ ...EVENT_EXAMPLE, deliveries: [DELIVERY_DETAIL_EXAMPLE] }],
  },
);
export type WebhookEventDetail = Static<typeof WebhookEventDetail>;

export const WebhookEventList = CursorPageOf(WebhookEvent, {
  title: 'WebhookEventList',
  description: 'A page of webhook events, newest first.',
  itemExample: { ...EVENT_EXAMPLE, deliveries: [DELIVERY_EXAMPLE] },
});
export type WebhookEventList = Static<typeof WebhookEventList>;

export const WebhookEventListQuery = Type.Object(
  { status: Type.Optional(EventStatus), limit: Type.Optional(Limit), offset: Type.Optional(OffsetBesideCursor), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export type WebhookEventListQuery = Static<typeof WebhookEventListQuery>;

export const WebhookEventParams = Type.Object({ eventId: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export type WebhookEventParams = Static<typeof WebhookEventParams>;

export const WebhookDeliveryParams = Type.Object({ deliveryId: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export type WebhookDeliveryParams = Static<typeof WebhookDeliveryParams>;

export const PUBLISH_LIMITS = { eventTypeMax: 255, aggregateMax: 255, sensitiveMax: 100 } as const;

export const PublishEventInput = Type.Object(
  {
    eventType: Type.String({
      pattern: EVENT_TYPE_PATTERN,
      maxLength: PUBLISH_LIMITS.eventTypeMax,
      description: '`family.action`, at most 255 characters.',
    }),
    aggregateType: Type.Optional(
      Type.String({ minLength: 1, maxLength: PUBLISH_LIMITS.aggregateMax, pattern: TEXT_PATTERN, description: 'Defaults to the event family.' }),
    ),
    aggregateId: Type.String({ minLength: 1, maxLength: PUBLISH_LIMITS.aggregateMax, pattern: TEXT_PATTERN }),
    data: Type.Object({}, {
      additionalProperties: true,
      propertyNames: { pattern: TEXT_PATTERN },
      description: 'Event payload (a JSON object). Its keys and strings, at any depth, carry no NUL and no unpaired surrogate.',
    }),
    sensitive: Type.Optional(
      Type.Array(Type.String({ minLength: 1, pattern: TEXT_PATTERN }), {
        maxItems: PUBLISH_LIMITS.sensitiveMax,
        description: 'Top-level fields of `data` to encrypt, added to those the catalog declares.',
      }),
    ),
    occurredAt: Type.Optional(Type.String({ format: 'date-time', description: 'Defaults to now.' })),
  },
  {
    additionalProperties: false,
    title: 'PublishWebhookEventRequest',
    description: 'An event to publish (extension): it fans out to every matching enabled subscriber.',
    examples: [{ eventType: 'apikey.generated', aggregateId: 'key-1', data: { name: 'ci', token: 's3cr3t' }, sensitive: ['token'] }],
  },
);
/** `data` is any JSON object; TypeBox would infer `{}` for an open object, so it is spelled out. */
export type PublishEventInput = Omit<Static<typeof PublishEventInput>, 'data'> & { data: Record<string, unknown> };
