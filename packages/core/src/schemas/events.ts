// Webhook event resources (spec section C) and the publish extension (DECISIONS §2, §5).
import { Type, type Static } from 'typebox';
import { DateTime, Limit, NullableDateTime, NullableInteger, NullableString, Offset, PageOf } from './common.js';
import { DeliveryStatus, EventStatus } from './status.js';

/** `family.action`, segments `[a-z0-9_]+`. */
export const EVENT_TYPE_PATTERN = '^[a-z0-9_]+\\.[a-z0-9_]+$';
export const RESPONSE_SNIPPET_MAX_BYTES = 4096;

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
  },
  { additionalProperties: false },
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
  { additionalProperties: false },
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
  { additionalProperties: false },
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
  { additionalProperties: false },
);
export type WebhookEvent = Static<typeof WebhookEvent>;

export const WebhookEventDetail = Type.Object(
  { ...eventFields, deliveries: Type.Array(WebhookEventDeliveryDetail) },
  { additionalProperties: false },
);
export type WebhookEventDetail = Static<typeof WebhookEventDetail>;

export const WebhookEventList = PageOf(WebhookEvent);
export type WebhookEventList = Static<typeof WebhookEventList>;

export const WebhookEventListQuery = Type.Object(
  { status: Type.Optional(EventStatus), limit: Type.Optional(Limit), offset: Type.Optional(Offset) },
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
      Type.String({ minLength: 1, maxLength: PUBLISH_LIMITS.aggregateMax, description: 'Defaults to the event family.' }),
    ),
    aggregateId: Type.String({ minLength: 1, maxLength: PUBLISH_LIMITS.aggregateMax }),
    data: Type.Object({}, { additionalProperties: true, description: 'Event payload (a JSON object).' }),
    sensitive: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: PUBLISH_LIMITS.sensitiveMax,
        description: 'Top-level fields of `data` to encrypt, added to those the catalog declares.',
      }),
    ),
    occurredAt: Type.Optional(Type.String({ format: 'date-time', description: 'Defaults to now.' })),
  },
  { additionalProperties: false },
);
/** `data` is any JSON object; TypeBox would infer `{}` for an open object, so it is spelled out. */
export type PublishEventInput = Omit<Static<typeof PublishEventInput>, 'data'> & { data: Record<string, unknown> };
