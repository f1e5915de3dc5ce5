// Flags of `subscribers create|update` → a WebhookSubscriberRequest body (spec B). Pure.
import { encodePathSegment } from '../http/endpoint.js';
import { usageError } from '../errors.js';

export interface SubscriberFlags {
  readonly id?: string | undefined;
  readonly name?: string | undefined;
  readonly url?: string | undefined;
  readonly events: readonly string[];
  readonly enabled?: string | undefined;
  readonly timeoutMs?: string | undefined;
  readonly secret?: string | undefined;
  /** `--filter` text already read (inline JSON, or a file's content); `none` removes the filter. */
  readonly filter?: string | undefined;
  /** `--ordering`: `aggregate` or `none` (docs/ordering.md). */
  readonly ordering?: string | undefined;
  /** `--egress-proxy`: a proxy name the server configured, `none` (direct) or `default` (the server's default). */
  readonly egressProxy?: string | undefined;
  /** `--client-cert`, `--client-key`, `--ca-bundle` (files already read) and `--no-client-cert`. */
  readonly clientTls?: ClientTlsFlags | undefined;
  /** `--oauth2-*` (the client secret file already read) and `--no-oauth2`. */
  readonly oauth2?: OAuth2Flags | undefined;
}

export interface OAuth2Flags {
  readonly tokenUrl?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly scope?: string | undefined;
  readonly audience?: string | undefined;
  readonly clientAuth?: string | undefined;
  readonly remove: boolean;
}

const OAUTH2_PARTS = '--oauth2-token-url, --oauth2-client-id, --oauth2-client-secret-file, --oauth2-scope, --oauth2-audience or --oauth2-client-auth';

/**
 * The subscriber's `oauth2`: the server replaces it as a whole, so the token URL, client id and
 * client secret always go together; `--no-oauth2` removes it (null). Undefined: no change.
 */
export function oauth2FromFlags(flags: OAuth2Flags): Record<string, string> | null | undefined {
  const given = [flags.tokenUrl, flags.clientId, flags.clientSecret, flags.scope, flags.audience, flags.clientAuth].some((value) => value !== undefined);
  if (flags.remove) {
    if (given) throw usageError('CONFLICTING_FLAGS', `--no-oauth2 cannot be combined with ${OAUTH2_PARTS}`);
    return null;
  }
  if (!given) return undefined;
  if (flags.tokenUrl === undefined || flags.clientId === undefined || flags.clientSecret === undefined) {
    throw usageError('MISSING_FLAG', '--oauth2-token-url, --oauth2-client-id and --oauth2-client-secret-file go together: the server replaces the credentials as a whole');
  }
  if (flags.clientAuth !== undefined && flags.clientAuth !== 'basic' && flags.clientAuth !== 'body') {
    throw usageError('INVALID_FLAG_VALUE', `--oauth2-client-auth must be basic or body, got "${flags.clientAuth}"`);
  }
  return {
    tokenUrl: flags.tokenUrl,
    clientId: flags.clientId,
    clientSecret: flags.clientSecret,
    ...(flags.scope !== undefined ? { scope: flags.scope } : {}),
    ...(flags.audience !== undefined ? { audience: flags.audience } : {}),
    ...(flags.clientAuth !== undefined ? { clientAuthentication: flags.clientAuth } : {}),
  };
}

export interface ClientTlsFlags {
  readonly certificate?: string | undefined;
  readonly key?: string | undefined;
  readonly caBundle?: string | undefined;
  readonly remove: boolean;
}

/**
 * The subscriber's `tls`: the server replaces it as a whole; a certificate goes with its key, and a
 * CA bundle may come with them or alone; `--no-client-cert` removes it all (null). Undefined: no change.
 */
export function clientTlsFromFlags(flags: ClientTlsFlags): Record<string, string> | null | undefined {
  const given = [flags.certificate, flags.key, flags.caBundle].some((value) => value !== undefined);
  if (flags.remove) {
    if (given) throw usageError('CONFLICTING_FLAGS', '--no-client-cert cannot be combined with --client-cert, --client-key or --ca-bundle');
    return null;
  }
  if (!given) return undefined;
  if ((flags.certificate === undefined) !== (flags.key === undefined)) {
    throw usageError('MISSING_FLAG', '--client-cert and --client-key go together');
  }
  return {
    ...(flags.certificate !== undefined && flags.key !== undefined ? { clientCertificate: flags.certificate, clientKey: flags.key } : {}),
    ...(flags.caBundle !== undefined ? { caBundle: flags.caBundle } : {}),
  };
}

export type SubscriberRequest = Record<string, string | boolean | number | string[]>;

function parseEnabled(text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw usageError('INVALID_FLAG_VALUE', `--enabled must be true or false, got "${text}"`);
}

function parseTimeout(text: string): number {
  if (!/^\d+$/.test(text)) throw usageError('INVALID_FLAG_VALUE', `--timeout-ms must be a whole number of milliseconds, got "${text}"`);
  return Number(text);
}

/**
 * `--filter`: a JSON object (the payload filter, checked by the server, which names the offending
 * path), or `none` to remove it (sent as null).
 */
export function parseFilter(text: string): Record<string, unknown> | null {
  if (text.trim() === 'none') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usageError('FILTER_NOT_JSON', `--filter is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError('FILTER_NOT_OBJECT', '--filter must be a JSON object, e.g. \'{"data.amount":{"$gte":100}}\', or none');
  }
  return parsed as Record<string, unknown>;
}

/** `--ordering`: per-key ordering on (`aggregate`) or off (`none`). */
export function parseOrdering(text: string): 'aggregate' | 'none' {
  if (text === 'aggregate' || text === 'none') return text;
  throw usageError('BAD_ORDERING', `--ordering must be aggregate or none, not "${text}"`);
}

/** `--event` values, comma-separated or repeated. Given but empty is refused, as the server refuses `events: []`. */
function parseEventFlags(values: readonly string[]): string[] {
  const patterns = values.flatMap((entry) => entry.split(',')).map((entry) => entry.trim()).filter(Boolean);
  if (patterns.length === 0) throw usageError('INVALID_FLAG_VALUE', "--event needs a pattern; '*' means every event");
  return patterns;
}

const PROXY_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** `--egress-proxy`: `default` clears the subscriber's choice (null), so the server's default proxy applies again. */
export function parseEgressProxy(text: string): string | null {
  if (text === 'default') return null;
  if (PROXY_NAME.test(text)) return text;
  throw usageError(
    'INVALID_FLAG_VALUE',
    `--egress-proxy must be the name of an egress proxy configured on the server, none or default, got "${text}" (proxy URLs are server configuration)`,
  );
}

/** Only the fields given end up in the body: on update, omitted fields keep their stored values. */
export function subscriberRequestFromFlags(flags: SubscriberFlags, base: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { ...base };
  if (flags.id !== undefined) body.id = flags.id;
  if (flags.name !== undefined) body.displayName = flags.name;
  if (flags.url !== undefined) body.targetUrl = flags.url;
  if (flags.events.length > 0) body.events = parseEventFlags(flags.events);
  if (flags.enabled !== undefined) body.enabled = parseEnabled(flags.enabled);
  if (flags.timeoutMs !== undefined) body.timeoutMs = parseTimeout(flags.timeoutMs);
  if (flags.secret !== undefined) body.secret = flags.secret;
  if (flags.filter !== undefined) body.filter = parseFilter(flags.filter);
  if (flags.ordering !== undefined) body.ordering = parseOrdering(flags.ordering);
  if (flags.egressProxy !== undefined) body.egressProxy = parseEgressProxy(flags.egressProxy);
  const tls = flags.clientTls ? clientTlsFromFlags(flags.clientTls) : undefined;
  if (tls !== undefined) body.tls = tls;
  const oauth2 = flags.oauth2 ? oauth2FromFlags(flags.oauth2) : undefined;
  if (oauth2 !== undefined) body.oauth2 = oauth2;
  return body;
}

export const eventStatuses = ['PENDING', 'DISPATCHED', 'ALL_DELIVERED', 'FAILED'] as const;

export function parseEventStatus(text: string): string {
  const status = text.toUpperCase();
  if (!(eventStatuses as readonly string[]).includes(status)) {
    throw usageError('INVALID_FLAG_VALUE', `--status must be one of ${eventStatuses.join(', ')}, got "${text}"`);
  }
  return status;
}

export function parsePageNumber(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw usageError('INVALID_FLAG_VALUE', `${flag} must be a non-negative integer, got "${text}"`);
  return text;
}

/** Path segment for a subscriber handle or event id, so `a/b` or `..` cannot reach another resource. */
export function resourcePath(collection: string, id: string, suffix = ''): string {
  if (id.trim() === '') throw usageError('MISSING_ARGUMENT', 'the id is empty');
  return `/api/v0.9/${collection}/${encodePathSegment(id)}${suffix}`;
}
