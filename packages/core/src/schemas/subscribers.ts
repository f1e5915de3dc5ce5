// Webhook subscriber resources (spec section B; bounds from DECISIONS §3).
import { Type, type Static } from 'typebox';
import { Cursor, DateTime, NextCursor, NullableDateTime, NullableInteger, NullableString, PageOf, PageQuery, TEXT_PATTERN } from './common.js';
import { ClientTlsInput, ClientTlsSummary } from './client-tls.js';
import { OAuth2Input, OAuth2Summary } from './oauth2.js';
import { DeliverySequence } from './events.js';
import { DeliveryStatus } from './status.js';

/** A configured proxy's name (1–63 of a-z, 0-9, "-", not starting or ending with "-") or `none`. */
export const EGRESS_PROXY_NAME_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
export const HANDLE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
/** Exact `family.action`, `family.*`, `*.action` or `*`; segments `[a-z0-9_]+`. */
export const EVENT_PATTERN_PATTERN = '^(\\*|[a-z0-9_]+\\.[a-z0-9_]+|[a-z0-9_]+\\.\\*|\\*\\.[a-z0-9_]+)$';

export const SUBSCRIBER_LIMITS = {
  displayNameMax: 255,
  targetUrlMax: 2048,
  secretMin: 16,
  secretMax: 512,
  eventsMax: 100,
  eventPatternMax: 255,
  timeoutMsMin: 100,
  timeoutMsMax: 30_000,
  timeoutMsDefault: 5000,
  maxConcurrencyMax: 64,
  rateLimitPerSecondMax: 10_000,
} as const;

const Handle = Type.String({
  pattern: HANDLE_PATTERN,
  description: 'Handle, unique within the organization. Generated (lowercase UUID v4) when omitted on create.',
});
const DisplayName = Type.String({ minLength: 1, maxLength: SUBSCRIBER_LIMITS.displayNameMax, pattern: TEXT_PATTERN });
const TargetUrl = Type.String({
  // An IRI, so internationalized host names are accepted; they are stored in their ASCII (punycode) form.
  format: 'iri',
  maxLength: SUBSCRIBER_LIMITS.targetUrlMax,
  description:
    'Absolute `http://` or `https://` URL with a host, at most 2048 characters: no user info, no fragment, not port 0. ' +
    'Stored as WHATWG URL serializes it (e.g. `HTTPS://Example.com:443` → `https://example.com/`), an internationalized host in ' +
    'punycode (`https://bücher.example/` → `https://xn--bcher-kva.example/`), one trailing dot of the host dropped ' +
    '(`https://example.com./` → `https://example.com/`); a host with an empty label (`a..b`, `example.com..`) is refused.',
});
/** The one wording of why `events: []` is refused, in the schema's errorMessage and core's check. */
export const EVENTS_EMPTY_MESSAGE = 'must list at least one pattern; ["*"] means every event';
const Events = Type.Array(Type.String({ pattern: EVENT_PATTERN_PATTERN, maxLength: SUBSCRIBER_LIMITS.eventPatternMax }), {
  minItems: 1,
  maxItems: SUBSCRIBER_LIMITS.eventsMax,
  // Read by the server's validator for its field message (the ajv-errors convention).
  errorMessage: { minItems: EVENTS_EMPTY_MESSAGE },
  description:
    'Event-type filter: `family.action`, `family.*`, `*.action` or `*`, 1 to 100 patterns of at most 255 characters. ' +
    '`["*"]` = every event; an empty list is refused (it would read as none). Omitted on create = `["*"]`. Repeated patterns are stored once.',
});
const FILTER_DESCRIPTION =
  'Payload filter, checked after `events`: an object over the envelope fields `type`, `aggregateType`, `aggregateId`, `occurredAt` ' +
  'and `data.<path>`, each given a literal (equality) or operators `$eq $ne $gt $gte $lt $lte $in $nin $exists $startsWith $endsWith`; ' +
  'keys are ANDed; `$and`/`$or` take arrays of filters, `$not` a filter. At most 8 levels deep and 4096 bytes; sensitive fields cannot be named. ' +
  'See docs/filters.md.';
const Filter = Type.Record(Type.String(), Type.Unknown(), {
  description: FILTER_DESCRIPTION,
  examples: [{ 'data.amount': { $gte: 100 }, $or: [{ 'data.currency': 'EUR' }, { 'data.currency': { $in: ['USD', 'GBP'] } }] }],
});
const ORDERING_DESCRIPTION =
  '`aggregate`: deliveries of events with the same `aggregateType` + `aggregateId` are sent to this subscriber one at a time, in the order ' +
  'Herald accepted the events, each body carrying the per-key `sequence`; a delivery waiting on retries holds back only its own key, and ' +
  'one that ends FAILED lets the next proceed. `none` (default): no order. See docs/ordering.md.';
const Ordering = Type.Union([Type.Literal('aggregate'), Type.Literal('none')], { description: ORDERING_DESCRIPTION });
const Enabled = Type.Boolean({ description: 'Whether the subscriber receives deliveries. Default true.' });
const TimeoutMs = Type.Integer({
  minimum: SUBSCRIBER_LIMITS.timeoutMsMin,
  maximum: SUBSCRIBER_LIMITS.timeoutMsMax,
  description: 'Delivery time-out in milliseconds. Default 5000.',
});

const MaxConcurrency = Type.Integer({
  minimum: 1,
  maximum: SUBSCRIBER_LIMITS.maxConcurrencyMax,
  description: "Most attempts in flight at once for this subscriber, per engine process. Default: the engine's per-subscriber cap (16).",
});
const RateLimitPerSecond = Type.Number({
  exclusiveMinimum: 0,
  maximum: SUBSCRIBER_LIMITS.rateLimitPerSecondMax,
  description: 'Most attempts started per second for this subscriber, per engine process (fractions allowed: 0.5 = one every 2 s). Default: no limit.',
});

const EGRESS_PROXY_DESCRIPTION =
  'Which egress proxy carries this subscriber\'s deliveries: the name of a proxy the operator configured (`HERALD_EGRESS_PROXIES`), ' +
  'or `none` to send directly. Omitted: the host\'s default (`HERALD_EGRESS_PROXY`, else direct). Proxy URLs and credentials are ' +
  'operator configuration only. The SSRF guard applies through a proxy too. See docs/operations.md.';
const EgressProxy = Type.String({ pattern: EGRESS_PROXY_NAME_PATTERN, maxLength: 63, description: EGRESS_PROXY_DESCRIPTION });

const REQUEST_EXAMPLE = {
  id: 'billing',
  displayName: 'Billing',
  targetUrl: 'https://example.com/hooks/billing',
  secret: 'replace-with-a-long-random-secret',
  events: ['apikey.*', 'subscription.created'],
  enabled: true,
  timeoutMs: 5000,
};
const RESPONSE_EXAMPLE = {
  id: 'billing',
  orgId: 'default',
  displayName: 'Billing',
  targetUrl: 'https://example.com/hooks/billing',
  enabled: true,
  events: ['apikey.*', 'subscription.created'],
  timeoutMs: 5000,
  hasSecret: true,
  createdBy: 'tok_8d3f2a1c9b7e4d6f',
  createdAt: '2025-01-31T12:00:00.000Z',
  updatedAt: '2025-02-01T08:30:00.000Z',
};

export const WebhookSubscriberCreateRequest = Type.Object(
  {
    id: Type.Optional(Handle),
    displayName: DisplayName,
    targetUrl: TargetUrl,
    secret: Type.Optional(
      Type.String({
        minLength: SUBSCRIBER_LIMITS.secretMin,
        maxLength: SUBSCRIBER_LIMITS.secretMax,
        pattern: TEXT_PATTERN,
        description: 'Shared secret; stored encrypted, never returned.',
      }),
    ),
    events: Type.Optional(Events),
    filter: Type.Optional(Filter),
    ordering: Type.Optional(Ordering),
    enabled: Type.Optional(Enabled),
    timeoutMs: Type.Optional(TimeoutMs),
    maxConcurrency: Type.Optional(MaxConcurrency),
    rateLimitPerSecond: Type.Optional(RateLimitPerSecond),
    egressProxy: Type.Optional(EgressProxy),
    tls: Type.Optional(ClientTlsInput),
    oauth2: Type.Optional(OAuth2Input),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberCreateRequest',
    description: 'WebhookSubscriberRequest as create takes it: `displayName` and `targetUrl` are required.',
    examples: [REQUEST_EXAMPLE],
  },
);
export type WebhookSubscriberCreateRequest = Static<typeof WebhookSubscriberCreateRequest>;

/** PUT body: every field optional, only supplied fields change; `secret: ""` removes the secret. */
export const WebhookSubscriberUpdateRequest = Type.Object(
  {
    id: Type.Optional(Handle),
    displayName: Type.Optional(DisplayName),
    targetUrl: Type.Optional(TargetUrl),
    secret: Type.Optional(
      Type.String({
        maxLength: SUBSCRIBER_LIMITS.secretMax,
        pattern: `^(|[^\\x00]{${SUBSCRIBER_LIMITS.secretMin},})$`,
        description: 'New shared secret (16–512 chars), or "" to remove it.',
      }),
    ),
    events: Type.Optional(Events),
    filter: Type.Optional(Type.Union([Filter, Type.Null()], { description: 'null removes the filter.' })),
    ordering: Type.Optional(Ordering),
    enabled: Type.Optional(Enabled),
    timeoutMs: Type.Optional(TimeoutMs),
    maxConcurrency: Type.Optional(Type.Union([MaxConcurrency, Type.Null()], { description: 'null returns to the default.' })),
    rateLimitPerSecond: Type.Optional(Type.Union([RateLimitPerSecond, Type.Null()], { description: 'null removes the limit.' })),
    egressProxy: Type.Optional(Type.Union([EgressProxy, Type.Null()], { description: "null returns to the host's default proxy." })),
    tls: Type.Optional(Type.Union([ClientTlsInput, Type.Null()], { description: 'Replaces the client certificate, key and CA bundle as a whole; null removes them.' })),
    oauth2: Type.Optional(Type.Union([OAuth2Input, Type.Null()], { description: 'Replaces the OAuth2 client credentials as a whole (the client secret included); null removes them.' })),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberRequest',
    description: 'Update body (spec WebhookSubscriberRequest): every field optional; only supplied fields change.',
    examples: [{ enabled: false }, { targetUrl: 'https://example.com/hooks/billing-v2', events: ['apikey.*'] }],
  },
);
export type WebhookSubscriberUpdateRequest = Static<typeof WebhookSubscriberUpdateRequest>;

/** The spec's single name for both bodies; the update shape is the wider one. */
export const WebhookSubscriberRequest = WebhookSubscriberUpdateRequest;
export type WebhookSubscriberRequest = WebhookSubscriberUpdateRequest;

export const SubscriberHealth = Type.Object(
  {
    state: Type.Union([Type.Literal('healthy'), Type.Literal('failing'), Type.Literal('open')], {
      description: 'healthy; failing (recent attempts failed, sent to as usual); open (deliveries held PENDING, probed one at a time)',
    }),
    since: DateTime,
    consecutiveFailures: Type.Integer({ minimum: 0 }),
    lastError: Type.Union([Type.String(), Type.Null()]),
  },
  {
    additionalProperties: false,
    title: 'SubscriberHealth',
    description: "The endpoint's health as the delivery engine last saw it change; absent until it first does.",
    examples: [{ state: 'open', since: '2025-01-31T12:00:00.000Z', consecutiveFailures: 12, lastError: 'HTTP 503' }],
  },
);
export type SubscriberHealth = Static<typeof SubscriberHealth>;

export const SubscriberDisabledReason = Type.Object(
  {
    code: Type.Literal('AUTO_DISABLED', { description: 'AUTO_DISABLED: every delivery failed for longer than the host\'s auto-disable limit.' }),
    message: Type.String(),
    at: DateTime,
  },
  {
    additionalProperties: false,
    title: 'SubscriberDisabledReason',
    description: 'Why Herald disabled the subscriber; present only while it stays disabled. Setting `enabled` clears it.',
    examples: [{ code: 'AUTO_DISABLED', message: 'every delivery has failed since 2025-01-26T12:00:00.000Z, longer than the auto-disable limit of 5d (last error: HTTP 503); enable it again to resume, and recover the failed range', at: '2025-01-31T12:00:30.000Z' }],
  },
);
export type SubscriberDisabledReason = Static<typeof SubscriberDisabledReason>;

const subscriberFields = {
  id: Type.String({ description: 'The handle (what path parameter subscriberId refers to).' }),
  orgId: Type.String(),
  displayName: Type.String(),
  targetUrl: Type.String({ format: 'uri' }),
  enabled: Type.Boolean(),
  events: Type.Array(Type.String()),
  filter: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The payload filter; present when set.' })),
  ordering: Type.Optional(Type.Literal('aggregate', { description: 'Present when deliveries are ordered per aggregate.' })),
  timeoutMs: Type.Integer(),
  maxConcurrency: Type.Optional(Type.Integer({ description: 'Present when set.' })),
  rateLimitPerSecond: Type.Optional(Type.Number({ description: 'Present when set.' })),
  egressProxy: Type.Optional(Type.String({ description: "The egress proxy's name, or `none` (direct); present when set." })),
  hasSecret: Type.Boolean(),
  tls: Type.Optional(ClientTlsSummary),
  oauth2: Type.Optional(OAuth2Summary),
  health: Type.Optional(SubscriberHealth),
  disabledReason: Type.Optional(SubscriberDisabledReason),
  createdBy: Type.String({ description: "Creator's identity, or `deleted_user`." }),
  createdAt: DateTime,
  updatedAt: DateTime,
};

export const WebhookSubscriberResponse = Type.Object(
  { ...subscriberFields, updatedBy: Type.String({ description: "Last updater's identity, or `deleted_user`." }) },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberResponseSchema',
    description: 'A webhook subscriber. The secret itself is never returned; `hasSecret` tells whether one is set.',
    examples: [{ ...RESPONSE_EXAMPLE, updatedBy: 'tok_8d3f2a1c9b7e4d6f' }],
  },
);
export type WebhookSubscriberResponse = Static<typeof WebhookSubscriberResponse>;

/** List items carry no `updatedBy` (spec). */
export const WebhookSubscriberListItem = Type.Object(subscriberFields, {
  additionalProperties: false,
  title: 'WebhookSubscriberListItem',
  description: 'A webhook subscriber as listed: WebhookSubscriberResponseSchema without `updatedBy`.',
  examples: [RESPONSE_EXAMPLE],
});
export type WebhookSubscriberListItem = Static<typeof WebhookSubscriberListItem>;

export const WebhookSubscriberList = PageOf(WebhookSubscriberListItem, {
  title: 'WebhookSubscriberList',
  description: 'A page of webhook subscribers, oldest first.',
  itemExample: RESPONSE_EXAMPLE,
});
export type WebhookSubscriberList = Static<typeof WebhookSubscriberList>;

export const WebhookSubscriberListQuery = Type.Object(
  {
    ...PageQuery.properties,
    listeners: Type.Optional(
      Type.Boolean({ description: 'Also list the temporary subscribers of `herald webhooks listen` (left out by default). Default false.' }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookSubscriberListQuery = Static<typeof WebhookSubscriberListQuery>;

export const WebhookSubscriberParams = Type.Object({ subscriberId: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export type WebhookSubscriberParams = Static<typeof WebhookSubscriberParams>;

export const WebhookSubscriberDeliverySummary = Type.Object(
  {
    deliveryId: Type.String(),
    eventType: NullableString,
    occurredAt: NullableDateTime,
    status: DeliveryStatus,
    lastHttpStatus: NullableInteger,
    lastError: NullableString,
    lastAttemptAt: NullableDateTime,
    deliveredAt: NullableDateTime,
    sequence: Type.Optional(DeliverySequence),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberDeliverySummary',
    description: 'One delivery row of the subscriber, with the outcome of its latest attempt.',
    examples: [
      {
        deliveryId: '6f1c2e9a4b7d3f80',
        eventType: 'apikey.generated',
        occurredAt: '2025-01-31T12:00:00.000Z',
        status: 'DELIVERED',
        lastHttpStatus: 200,
        lastError: null,
        lastAttemptAt: '2025-01-31T12:00:00.210Z',
        deliveredAt: '2025-01-31T12:00:00.295Z',
      },
    ],
  },
);
export type WebhookSubscriberDeliverySummary = Static<typeof WebhookSubscriberDeliverySummary>;

export const SUBSCRIBER_DELIVERIES_MAX = 50;
/** Most recent events a filter preview is tried on. */
export const FILTER_PREVIEW_MAX = 50;

export const WebhookFilterPreviewRequest = Type.Object(
  { filter: Filter, events: Type.Optional(Events) },
  {
    additionalProperties: false,
    title: 'WebhookFilterPreviewRequest',
    description: 'A payload filter (and optionally event-type patterns) to try on the most recent events of the organization; nothing is stored.',
    examples: [{ filter: { 'data.amount': { $gte: 100 } }, events: ['order.*'] }],
  },
);
export type WebhookFilterPreviewRequest = Static<typeof WebhookFilterPreviewRequest>;

export const WebhookFilterPreview = Type.Object(
  {
    list: Type.Array(
      Type.Object(
        {
          eventId: Type.String(),
          eventType: Type.String(),
          aggregateType: Type.String(),
          aggregateId: Type.String(),
          occurredAt: DateTime,
          matches: Type.Boolean({ description: 'Whether a subscriber with this filter (and these patterns) would have received the event.' }),
        },
        { additionalProperties: false },
      ),
      { maxItems: FILTER_PREVIEW_MAX },
    ),
    matching: Type.Integer({ minimum: 0, description: 'How many of the listed events match.' }),
  },
  {
    additionalProperties: false,
    title: 'WebhookFilterPreview',
    description: `The organization's most recent events (at most ${FILTER_PREVIEW_MAX}, newest first), each with whether the filter matches it. Filters see only public data.`,
  },
);
export type WebhookFilterPreview = Static<typeof WebhookFilterPreview>;

export const WebhookSubscriberDeliveryList = Type.Object(
  { list: Type.Array(WebhookSubscriberDeliverySummary, { maxItems: SUBSCRIBER_DELIVERIES_MAX }), nextCursor: Type.Optional(NextCursor) },
  {
    additionalProperties: false,
    title: 'WebhookSubscriberDeliveryList',
    description:
      `The subscriber's most recent delivery rows (at most ${SUBSCRIBER_DELIVERIES_MAX}), newest attempt first; ` +
      'older ones page by page with `nextCursor`. A row attempted again after a cursor was issued moves ahead of it (to the first page).',
  },
);
export type WebhookSubscriberDeliveryList = Static<typeof WebhookSubscriberDeliveryList>;

export const WebhookSubscriberDeliveryListQuery = Type.Object({ cursor: Type.Optional(Cursor) }, { additionalProperties: false });
export type WebhookSubscriberDeliveryListQuery = Static<typeof WebhookSubscriberDeliveryListQuery>;
