// An organization's retention policy: how long its settled events are kept with their deliveries
// and attempts before the hourly retention job removes them. Events still being delivered are never
// removed, whatever the policy says.
import { Type, type Static } from 'typebox';
import { NullableDateTime } from './common.js';
import { EVENT_TYPE_PATTERN, PUBLISH_LIMITS } from './events.js';

export const RETENTION_LIMITS = { daysMax: 36_500, eventTypesMax: 100 } as const;

const RetentionDays = Type.Integer({
  minimum: 0,
  maximum: RETENTION_LIMITS.daysMax,
  description: 'Days a settled event is kept (counted from when Herald accepted it); 0 keeps it forever.',
});

// Keys are stated with propertyNames rather than as a record's patternProperties, which schema-driven
// generators read as "other keys allowed".
const ByEventTypeRequest = Type.Unsafe<Record<string, number>>({
  type: 'object',
  propertyNames: { pattern: EVENT_TYPE_PATTERN, maxLength: PUBLISH_LIMITS.eventTypeMax },
  additionalProperties: RetentionDays,
  maxProperties: RETENTION_LIMITS.eventTypesMax,
  description: `Event types with a window of their own (at most ${RETENTION_LIMITS.eventTypesMax}), in days.`,
});

export const WebhookRetentionPolicyRequest = Type.Object(
  {
    settledEventsDays: Type.Optional(RetentionDays),
    byEventType: Type.Optional(ByEventTypeRequest),
  },
  {
    additionalProperties: false,
    title: 'WebhookRetentionPolicyRequest',
    description:
      "Replaces the organization's policy. A field left out follows the host's default: `settledEventsDays` the host's window, `byEventType` the host's per-type windows. `{}` returns the organization to the host's policy.",
    examples: [{ settledEventsDays: 14, byEventType: { 'audit.logged': 365, 'ping.sent': 1 } }],
  },
);
export type WebhookRetentionPolicyRequest = Static<typeof WebhookRetentionPolicyRequest>;

const Days = Type.Number({ minimum: 0, description: 'Days; 0 keeps forever. A fraction when the host default is not whole days.' });

const RetentionWindows = Type.Object(
  {
    settledEventsDays: Days,
    byEventType: Type.Record(Type.String({ pattern: EVENT_TYPE_PATTERN }), Days),
  },
  { additionalProperties: false },
);

export const WebhookRetentionPolicy = Type.Object(
  {
    settledEventsDays: Days,
    byEventType: Type.Record(Type.String({ pattern: EVENT_TYPE_PATTERN }), Days, { description: 'Event types with a window of their own, in days.' }),
    source: Type.Union([Type.Literal('organization'), Type.Literal('host')], {
      description: "`organization`: the organization set a policy (fields it left out follow the host's); `host`: the host's default applies.",
    }),
    hostDefault: RetentionWindows,
    updatedAt: NullableDateTime,
  },
  {
    additionalProperties: false,
    title: 'WebhookRetentionPolicy',
    description: "The retention that applies to the organization's settled events, and the host default it falls back to.",
    examples: [
      {
        settledEventsDays: 14,
        byEventType: { 'audit.logged': 365, 'ping.sent': 1 },
        source: 'organization',
        hostDefault: { settledEventsDays: 30, byEventType: {} },
        updatedAt: '2026-11-25T08:00:00.000Z',
      },
    ],
  },
);
export type WebhookRetentionPolicy = Static<typeof WebhookRetentionPolicy>;
