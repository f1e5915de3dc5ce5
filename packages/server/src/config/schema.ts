// The host's configuration as one TypeBox schema: validated at start, documented in docs/server.md.
import { Type, type Static } from 'typebox';

export const SIGNING_PROFILES = ['standard', 'api-portal'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const OrgHandle = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' });
const Base64Key = Type.String({ minLength: 44, maxLength: 44, description: 'base64 of exactly 32 bytes' });

export const MasterKeysConfig = Type.Object(
  {
    current: Type.String({ minLength: 1, description: 'Id of the key that seals new secrets.' }),
    keys: Type.Record(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }), Base64Key, {
      description: 'Every key that may have sealed a stored secret, by id.',
    }),
  },
  { additionalProperties: false },
);
export type MasterKeysConfig = Static<typeof MasterKeysConfig>;

export const JwtConfig = Type.Object(
  {
    jwksUrl: Type.Optional(Type.String({ format: 'uri' })),
    publicKeyPem: Type.Optional(Type.String({ minLength: 1 })),
    issuer: Type.Optional(Type.String({ minLength: 1 })),
    audience: Type.Optional(Type.String({ minLength: 1 })),
    orgClaim: Type.String({ minLength: 1, default: 'org' }),
    clockToleranceSec: Type.Integer({ minimum: 0, maximum: 300, default: 30 }),
  },
  { additionalProperties: false },
);
export type JwtConfig = Static<typeof JwtConfig>;

export const EventTypeConfig = Type.Object(
  {
    type: Type.String({ pattern: '^[a-z0-9_]+\\.[a-z0-9_]+$' }),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'What happened, for subscribers (GET /webhook-event-types).' })),
    sensitive: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    dataSchema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    example: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'A sample `data`, valid against dataSchema (checked at start); `herald webhooks trigger` publishes it.' }),
    ),
  },
  { additionalProperties: false },
);

/** A CSP frame-ancestors source the portal accepts: 'self', 'none', or an http(s) origin (a leading `*.` allowed). */
export const FRAME_ANCESTOR_PATTERN = "^('self'|'none'|https?://(\\*\\.)?[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?)$";

export const HostConfig = Type.Object(
  {
    host: Type.String({ minLength: 1, default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    publicBaseUrl: Type.Optional(Type.String({ format: 'uri', description: 'Base of absolute Location URLs.' })),
    mongodbUri: Type.String({ minLength: 1, pattern: '^mongodb(\\+srv)?://' }),
    mongodbDbName: Type.String({ minLength: 1, default: 'herald' }),
    org: Type.String({ ...OrgHandle, default: 'default' }),
    masterKeys: Type.Optional(MasterKeysConfig),
    signingProfile: Type.Union(SIGNING_PROFILES.map((profile) => Type.Literal(profile)), { default: 'standard' }),
    jwt: Type.Optional(JwtConfig),
    readOnly: Type.Boolean({ default: false }),
    ssrfAllowList: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    egressProxy: Type.Optional(
      Type.String({ minLength: 1, description: 'http://[user:password@]host:port of the HTTP CONNECT proxy deliveries go through by default (docs/operations.md).' }),
    ),
    egressProxies: Type.Optional(
      Type.Record(Type.String(), Type.String({ minLength: 1 }), {
        description: 'Proxies a subscriber may name in its egressProxy field: name → http://[user:password@]host:port.',
      }),
    ),
    retryScheduleMs: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 })),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    retentionMs: Type.Optional(
      Type.Union([Type.Literal(0), Type.Integer({ minimum: 60_000 })], { description: 'How long settled events are kept, ms; 0 = forever.' }),
    ),
    retentionByEventType: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Type.Union([Type.Literal(0), Type.Integer({ minimum: 60_000 })]), {
        description: 'Per event type, overriding retentionMs (ms; 0 = forever).',
      }),
    ),
    leaseMarginMs: Type.Optional(
      Type.Integer({ minimum: 1_000, maximum: 600_000, description: "Lease = the subscriber's timeout + this; a crashed worker's rows are sent again after it." }),
    ),
    maintenanceIntervalMs: Type.Optional(
      Type.Integer({ minimum: 1_000, maximum: 600_000, description: 'How often expired leases are recovered (cluster-wide).' }),
    ),
    stallAfterMs: Type.Optional(
      Type.Integer({ minimum: 1_000, maximum: 3_600_000, description: 'Due deliveries waiting this long while the engine claims none are a stall (logged, herald.delivery_stalled).' }),
    ),
    loopStuckAfterMs: Type.Optional(
      Type.Integer({ minimum: 1_000, maximum: 3_600_000, description: "One step of the engine's poll lasting this long: the loop is stuck, /healthz answers 503." }),
    ),
    breaker: Type.Optional(
      Type.Union(
        [
          Type.Literal(false),
          Type.Object(
            { failures: Type.Integer({ minimum: 1, maximum: 1_000 }), windowMs: Type.Integer({ minimum: 0, maximum: 86_400_000 }) },
            { additionalProperties: false },
          ),
        ],
        { description: 'Endpoint health: hold a subscriber after `failures` failed attempts in a row with no success for `windowMs`; false turns it off (docs/operations.md).' },
      ),
    ),
    autoDisableAfterMs: Type.Optional(
      Type.Union([Type.Literal(0), Type.Integer({ minimum: 60_000, maximum: 31_536_000_000 })], {
        description: 'Disable a subscriber whose every delivery has failed this long, ms (at least a minute, at most a year); 0 (`off`) turns it off. Default 5 days (docs/operations.md).',
      }),
    ),
    deliveryTraceparent: Type.Optional(
      Type.Boolean({ description: "Send each delivery attempt's W3C traceparent header (OpenTelemetry; see docs/server.md)." }),
    ),
    logLevel: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level)), { default: 'info' }),
    logFormat: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('pretty')], { description: 'Log line format; default pretty on a terminal, JSON otherwise.' }),
    ),
    dataDir: Type.String({ minLength: 1, default: './.data' }),
    drainTimeoutMs: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
    headersTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 600_000,
      default: 10_000,
      description: 'A connection still sending its request headers after this long is answered 408 and closed.',
    }),
    requestTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 3_600_000,
      default: 30_000,
      description: 'A request (headers and body) not received in full after this long is answered 408 and closed; at least headersTimeoutMs.',
    }),
    listenGraceMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 600_000, description: 'How long a `herald webhooks listen` listener waits for its CLI to resume a dropped stream (default 60 s; 0: deleted at once).' }),
    ),
    eventTypes: Type.Array(EventTypeConfig, { default: [] }),
    portalName: Type.Optional(
      Type.String({ minLength: 1, maxLength: 80, pattern: '^[^\\u0000-\\u001f\\u007f]+$', description: "The sender's name shown in the consumer portal (default: the org handle)." }),
    ),
    portalColor: Type.Optional(
      Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: "The sender's colour in the consumer portal, `#rrggbb`." }),
    ),
    portalFrameAncestors: Type.Array(Type.String({ pattern: FRAME_ANCESTOR_PATTERN }), {
      default: ["'self'"],
      minItems: 1,
      maxItems: 20,
      description: "Who may frame the consumer portal (CSP frame-ancestors): origins such as https://app.example.com, or 'self'.",
    }),
    seedTokensFile: Type.Optional(
      Type.String({ minLength: 1, description: 'JSON file of [{name, token, scopes}]: API tokens upserted by name at start.' }),
    ),
  },
  { additionalProperties: false },
);
export type HostConfig = Static<typeof HostConfig>;
