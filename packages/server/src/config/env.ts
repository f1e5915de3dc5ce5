// Reads HERALD_* environment variables into a partial configuration object (no validation here:
// values stay strings where parsing fails, so the schema check reports them with their variable name).
import { parseDuration } from './duration.js';

type Env = Record<string, string | undefined>;
export type RawConfig = Record<string, unknown>;

/** Which environment variable sets which configuration field (used for error messages too). */
export const ENV_NAMES: Record<string, string> = {
  host: 'HERALD_HOST',
  port: 'HERALD_PORT',
  publicBaseUrl: 'HERALD_PUBLIC_URL',
  mongodbUri: 'HERALD_MONGODB_URI',
  mongodbDbName: 'HERALD_MONGODB_DB',
  org: 'HERALD_ORG',
  masterKeys: 'HERALD_MASTER_KEYS',
  signingProfile: 'HERALD_SIGNING_PROFILE',
  readOnly: 'HERALD_READ_ONLY',
  ssrfAllowList: 'HERALD_SSRF_ALLOW_LIST',
  egressProxy: 'HERALD_EGRESS_PROXY',
  egressProxies: 'HERALD_EGRESS_PROXIES',
  retryScheduleMs: 'HERALD_RETRY_SCHEDULE',
  maxAttempts: 'HERALD_MAX_ATTEMPTS',
  retentionMs: 'HERALD_RETENTION',
  leaseMarginMs: 'HERALD_LEASE_MARGIN',
  maintenanceIntervalMs: 'HERALD_MAINTENANCE_INTERVAL',
  stallAfterMs: 'HERALD_STALL_AFTER',
  loopStuckAfterMs: 'HERALD_LOOP_STUCK_AFTER',
  breaker: 'HERALD_BREAKER',
  autoDisableAfterMs: 'HERALD_AUTO_DISABLE_AFTER',
  deliveryTraceparent: 'HERALD_DELIVERY_TRACEPARENT',
  logLevel: 'HERALD_LOG_LEVEL',
  logFormat: 'HERALD_LOG_FORMAT',
  dataDir: 'HERALD_DATA_DIR',
  drainTimeoutMs: 'HERALD_DRAIN_TIMEOUT',
  headersTimeoutMs: 'HERALD_HEADERS_TIMEOUT',
  requestTimeoutMs: 'HERALD_REQUEST_TIMEOUT',
  listenGraceMs: 'HERALD_LISTEN_GRACE',
  seedTokensFile: 'HERALD_SEED_TOKENS_FILE',
  portalName: 'HERALD_PORTAL_NAME',
  portalColor: 'HERALD_PORTAL_COLOR',
  portalFrameAncestors: 'HERALD_PORTAL_FRAME_ANCESTORS',
  'jwt.jwksUrl': 'HERALD_JWT_JWKS_URL',
  'jwt.publicKeyPem': 'HERALD_JWT_PUBLIC_KEY',
  'jwt.issuer': 'HERALD_JWT_ISSUER',
  'jwt.audience': 'HERALD_JWT_AUDIENCE',
  'jwt.orgClaim': 'HERALD_JWT_ORG_CLAIM',
};

function integerOrRaw(text: string): number | string {
  return /^-?\d+$/.test(text.trim()) ? Number(text) : text;
}

function booleanOrRaw(text: string): boolean | string {
  const lower = text.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(lower)) return false;
  return text;
}

function durationOrRaw(text: string): number | string {
  return parseDuration(text) ?? text;
}

/** `off`, or `FAILURES/WINDOW` such as `10/60s`: the endpoint-health threshold. */
function breakerOrRaw(text: string): false | { failures: number | string; windowMs: number | string } | string {
  if (booleanOrRaw(text) === false) return false;
  const [failures, window] = text.split('/');
  if (failures === undefined || window === undefined) return text;
  return { failures: integerOrRaw(failures), windowMs: durationOrRaw(window.trim()) };
}

/** `off` (or `0`) turns auto-disable off; anything else is a duration. */
function autoDisableOrRaw(text: string): number | string {
  return ['off', 'false', 'no'].includes(text.trim().toLowerCase()) ? 0 : durationOrRaw(text);
}

/**
 * `name=url name=url …`, separated by white space (which no URL contains, unlike `,` or `;`, which
 * a password may). Anything else is kept as text, for the schema to refuse.
 */
function namedUrlsOrRaw(text: string): Record<string, string> | string {
  const named: Record<string, string> = {};
  for (const entry of text.trim().split(/\s+/)) {
    const separator = entry.indexOf('=');
    if (separator <= 0) return text;
    named[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  return named;
}

function list(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
}

/**
 * `HERALD_MASTER_KEYS=id1:base64,id2:base64` (current = `HERALD_MASTER_KEY_CURRENT`, else the last one)
 * or `HERALD_MASTER_KEY=base64` / `id:base64` for a single key (id `k1` when not given).
 */
function masterKeysFromEnv(env: Env): RawConfig | undefined {
  const entries = env.HERALD_MASTER_KEYS ? list(env.HERALD_MASTER_KEYS) : env.HERALD_MASTER_KEY ? [env.HERALD_MASTER_KEY.trim()] : [];
  if (entries.length === 0) return undefined;
  const keys: Record<string, string> = {};
  let lastId = '';
  for (const entry of entries) {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : 'k1';
    keys[id] = separator > 0 ? entry.slice(separator + 1) : entry;
    lastId = id;
  }
  return { current: env.HERALD_MASTER_KEY_CURRENT?.trim() || lastId, keys };
}

function jwtFromEnv(env: Env, readFile: (path: string) => string): RawConfig | undefined {
  const jwt: RawConfig = {};
  if (env.HERALD_JWT_JWKS_URL) jwt.jwksUrl = env.HERALD_JWT_JWKS_URL;
  if (env.HERALD_JWT_PUBLIC_KEY) jwt.publicKeyPem = env.HERALD_JWT_PUBLIC_KEY;
  if (env.HERALD_JWT_PUBLIC_KEY_FILE) jwt.publicKeyPem = readFile(env.HERALD_JWT_PUBLIC_KEY_FILE);
  if (env.HERALD_JWT_ISSUER) jwt.issuer = env.HERALD_JWT_ISSUER;
  if (env.HERALD_JWT_AUDIENCE) jwt.audience = env.HERALD_JWT_AUDIENCE;
  if (env.HERALD_JWT_ORG_CLAIM) jwt.orgClaim = env.HERALD_JWT_ORG_CLAIM;
  return Object.keys(jwt).length > 0 ? jwt : undefined;
}

export function configFromEnv(env: Env, readFile: (path: string) => string): RawConfig {
  const raw: RawConfig = {};
  const set = (field: string, value: unknown) => {
    if (value !== undefined) raw[field] = value;
  };
  const text = (name: string) => (env[name] !== undefined && env[name] !== '' ? env[name] : undefined);

  set('host', text('HERALD_HOST'));
  set('port', text('HERALD_PORT') && integerOrRaw(text('HERALD_PORT')!));
  set('publicBaseUrl', text('HERALD_PUBLIC_URL'));
  set('mongodbUri', text('HERALD_MONGODB_URI') ?? text('MONGODB_URI'));
  set('mongodbDbName', text('HERALD_MONGODB_DB'));
  set('org', text('HERALD_ORG'));
  set('masterKeys', masterKeysFromEnv(env));
  set('signingProfile', text('HERALD_SIGNING_PROFILE'));
  set('jwt', jwtFromEnv(env, readFile));
  set('readOnly', text('HERALD_READ_ONLY') && booleanOrRaw(text('HERALD_READ_ONLY')!));
  set('ssrfAllowList', text('HERALD_SSRF_ALLOW_LIST') && list(text('HERALD_SSRF_ALLOW_LIST')!));
  set('egressProxy', text('HERALD_EGRESS_PROXY'));
  set('egressProxies', text('HERALD_EGRESS_PROXIES') && namedUrlsOrRaw(text('HERALD_EGRESS_PROXIES')!));
  set('retryScheduleMs', text('HERALD_RETRY_SCHEDULE') && list(text('HERALD_RETRY_SCHEDULE')!).map(durationOrRaw));
  set('maxAttempts', text('HERALD_MAX_ATTEMPTS') && integerOrRaw(text('HERALD_MAX_ATTEMPTS')!));
  set('retentionMs', text('HERALD_RETENTION') && durationOrRaw(text('HERALD_RETENTION')!));
  set('leaseMarginMs', text('HERALD_LEASE_MARGIN') && durationOrRaw(text('HERALD_LEASE_MARGIN')!));
  set('maintenanceIntervalMs', text('HERALD_MAINTENANCE_INTERVAL') && durationOrRaw(text('HERALD_MAINTENANCE_INTERVAL')!));
  set('stallAfterMs', text('HERALD_STALL_AFTER') && durationOrRaw(text('HERALD_STALL_AFTER')!));
  set('loopStuckAfterMs', text('HERALD_LOOP_STUCK_AFTER') && durationOrRaw(text('HERALD_LOOP_STUCK_AFTER')!));
  set('breaker', text('HERALD_BREAKER') && breakerOrRaw(text('HERALD_BREAKER')!));
  set('autoDisableAfterMs', text('HERALD_AUTO_DISABLE_AFTER') && autoDisableOrRaw(text('HERALD_AUTO_DISABLE_AFTER')!));
  set('deliveryTraceparent', text('HERALD_DELIVERY_TRACEPARENT') && booleanOrRaw(text('HERALD_DELIVERY_TRACEPARENT')!));
  set('logLevel', text('HERALD_LOG_LEVEL'));
  set('logFormat', text('HERALD_LOG_FORMAT'));
  set('dataDir', text('HERALD_DATA_DIR'));
  set('drainTimeoutMs', text('HERALD_DRAIN_TIMEOUT') && durationOrRaw(text('HERALD_DRAIN_TIMEOUT')!));
  set('headersTimeoutMs', text('HERALD_HEADERS_TIMEOUT') && durationOrRaw(text('HERALD_HEADERS_TIMEOUT')!));
  set('requestTimeoutMs', text('HERALD_REQUEST_TIMEOUT') && durationOrRaw(text('HERALD_REQUEST_TIMEOUT')!));
  set('listenGraceMs', text('HERALD_LISTEN_GRACE') && durationOrRaw(text('HERALD_LISTEN_GRACE')!));
  set('seedTokensFile', text('HERALD_SEED_TOKENS_FILE'));
  set('portalName', text('HERALD_PORTAL_NAME'));
  set('portalColor', text('HERALD_PORTAL_COLOR'));
  // Space- or comma-separated, as CSP writes its sources or as other lists here are written.
  set('portalFrameAncestors', text('HERALD_PORTAL_FRAME_ANCESTORS')?.split(/[\s,]+/).filter(Boolean));
  return raw;
}
