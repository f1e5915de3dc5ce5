// The subscriber form's values and how they become a request body (pure): every field on create,
// and on edit only the fields that differ from the stored subscriber.
import type { Subscriber, SubscriberInput } from '../../api/types';

export interface FormValues {
  id: string;
  displayName: string;
  targetUrl: string;
  secret: string;
  events: string;
  enabled: boolean;
  timeoutMs: string;
  /** The payload filter as JSON text; empty = none. */
  filter: string;
  /** Per-key ordering (`ordering: "aggregate"`). */
  ordered: boolean;
  /** A proxy name the server configured, `none` (direct); empty = the server's default. */
  egressProxy: string;
  /** PEM texts of a new client certificate (mutual TLS); empty = no change. The key is never read back. */
  clientCertificate: string;
  clientKey: string;
  caBundle: string;
  /** On edit: remove the stored client certificate. */
  removeClientTls: boolean;
  /** OAuth2 client credentials; on edit all but the secret are the stored ones. */
  oauth2TokenUrl: string;
  oauth2ClientId: string;
  /** Write-only: empty = no change (the stored one is never read back). */
  oauth2ClientSecret: string;
  oauth2Scope: string;
  oauth2Audience: string;
  /** Client id and secret as form fields (`body`) instead of an HTTP Basic header (`basic`). */
  oauth2SecretInBody: boolean;
  /** On edit: remove the stored OAuth2 credentials. */
  removeOAuth2: boolean;
}

export const EMPTY_FORM: FormValues = {
  id: '',
  displayName: '',
  targetUrl: '',
  secret: '',
  events: '',
  enabled: true,
  timeoutMs: '',
  filter: '',
  ordered: false,
  egressProxy: '',
  clientCertificate: '',
  clientKey: '',
  caBundle: '',
  removeClientTls: false,
  oauth2TokenUrl: '',
  oauth2ClientId: '',
  oauth2ClientSecret: '',
  oauth2Scope: '',
  oauth2Audience: '',
  oauth2SecretInBody: false,
  removeOAuth2: false,
};

export function valuesOf(subscriber: Subscriber): FormValues {
  return {
    id: subscriber.id,
    displayName: subscriber.displayName,
    targetUrl: subscriber.targetUrl,
    secret: '',
    events: subscriber.events.join(', '),
    enabled: subscriber.enabled,
    timeoutMs: String(subscriber.timeoutMs),
    filter: subscriber.filter === undefined ? '' : JSON.stringify(subscriber.filter, null, 2),
    ordered: subscriber.ordering === 'aggregate',
    egressProxy: subscriber.egressProxy ?? '',
    clientCertificate: '',
    clientKey: '',
    caBundle: '',
    removeClientTls: false,
    oauth2TokenUrl: subscriber.oauth2?.tokenUrl ?? '',
    oauth2ClientId: subscriber.oauth2?.clientId ?? '',
    oauth2ClientSecret: '',
    oauth2Scope: subscriber.oauth2?.scope ?? '',
    oauth2Audience: subscriber.oauth2?.audience ?? '',
    oauth2SecretInBody: subscriber.oauth2?.clientAuthentication === 'body',
    removeOAuth2: false,
  };
}

/**
 * The body's `oauth2` from its fields, or undefined when the token URL, client id and secret are all
 * empty. Sent as it is: the API names what is missing (a client id without its secret).
 */
function oauth2Of(values: FormValues): SubscriberInput['oauth2'] {
  const tokenUrl = values.oauth2TokenUrl.trim();
  const clientId = values.oauth2ClientId.trim();
  const scope = values.oauth2Scope.trim();
  const audience = values.oauth2Audience.trim();
  if (!tokenUrl && !clientId && !values.oauth2ClientSecret) return undefined;
  // The API refuses what is missing by field; the cast lets an incomplete set reach it to be named.
  return {
    tokenUrl,
    clientId,
    ...(values.oauth2ClientSecret ? { clientSecret: values.oauth2ClientSecret } : {}),
    ...(scope ? { scope } : {}),
    ...(audience ? { audience } : {}),
    clientAuthentication: values.oauth2SecretInBody ? 'body' : 'basic',
  } as NonNullable<SubscriberInput['oauth2']>;
}

/** Whether the OAuth2 fields other than the secret differ from the stored credentials. */
function oauth2FieldsChanged(original: Subscriber, values: FormValues): boolean {
  const stored = original.oauth2;
  return (
    values.oauth2TokenUrl.trim() !== (stored?.tokenUrl ?? '') ||
    values.oauth2ClientId.trim() !== (stored?.clientId ?? '') ||
    values.oauth2Scope.trim() !== (stored?.scope ?? '') ||
    values.oauth2Audience.trim() !== (stored?.audience ?? '') ||
    values.oauth2SecretInBody !== (stored?.clientAuthentication === 'body')
  );
}

/**
 * The body's `tls` from the PEM fields, sent whole when any is filled (the API replaces it as a whole
 * and names what is missing or wrong: a certificate without its key); undefined when all are empty.
 */
function clientTlsOf(values: FormValues): SubscriberInput['tls'] {
  const filled = (text: string) => (text.trim() ? text : undefined);
  const [clientCertificate, clientKey, caBundle] = [filled(values.clientCertificate), filled(values.clientKey), filled(values.caBundle)];
  if (clientCertificate === undefined && clientKey === undefined && caBundle === undefined) return undefined;
  return {
    ...(clientCertificate !== undefined ? { clientCertificate } : {}),
    ...(clientKey !== undefined ? { clientKey } : {}),
    ...(caBundle !== undefined ? { caBundle } : {}),
  };
}

export type ParsedFilter = { kind: 'none' } | { kind: 'filter'; filter: Record<string, unknown> } | { kind: 'invalid'; message: string };

/** The filter text: empty is no filter; anything but a JSON object is reported, not sent as such. */
export function parseFilterText(text: string): ParsedFilter {
  if (!text.trim()) return { kind: 'none' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', message: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'invalid', message: 'Must be a JSON object, e.g. {"data.amount": {"$gte": 100}}' };
  return { kind: 'filter', filter: parsed as Record<string, unknown> };
}

/** The body's `filter`: the object, or the raw text for the API to refuse with its own field message. */
function filterOf(text: string): Record<string, unknown> | string | undefined {
  const parsed = parseFilterText(text);
  return parsed.kind === 'filter' ? parsed.filter : parsed.kind === 'invalid' ? text : undefined;
}

/** Patterns separated by commas, spaces or new lines. */
export function parsePatterns(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** The field's patterns as sent: an empty field means every event, which the API spells `["*"]` (it refuses `[]`). */
export function eventsOf(text: string): string[] {
  const patterns = parsePatterns(text);
  return patterns.length > 0 ? patterns : ['*'];
}

/** Whether stored patterns mean every event: `["*"]`, or `[]` as subscribers stored before it was refused hold. */
export function isEveryEvent(events: readonly string[]): boolean {
  return events.length === 0 || (events.length === 1 && events[0] === '*');
}

/** A number when the text is one; otherwise the text, for the API to refuse with a field message. */
function timeoutOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : Number.NaN;
}

export function createBody(values: FormValues): SubscriberInput {
  const body: SubscriberInput = {
    displayName: values.displayName.trim(),
    targetUrl: values.targetUrl.trim(),
    events: eventsOf(values.events),
    enabled: values.enabled,
  };
  if (values.id.trim()) body.id = values.id.trim();
  if (values.secret) body.secret = values.secret;
  const timeoutMs = timeoutOf(values.timeoutMs);
  if (timeoutMs !== undefined) body.timeoutMs = timeoutMs;
  const filter = filterOf(values.filter);
  if (filter !== undefined) body.filter = filter;
  if (values.ordered) body.ordering = 'aggregate';
  const egressProxy = values.egressProxy.trim();
  if (egressProxy) body.egressProxy = egressProxy;
  const tls = clientTlsOf(values);
  if (tls) body.tls = tls;
  const oauth2 = oauth2Of(values);
  if (oauth2) body.oauth2 = oauth2;
  return body;
}

export function changedFields(original: Subscriber, values: FormValues): SubscriberInput {
  const changes: SubscriberInput = {};
  const displayName = values.displayName.trim();
  if (displayName !== original.displayName) changes.displayName = displayName;
  const targetUrl = values.targetUrl.trim();
  if (targetUrl !== original.targetUrl) changes.targetUrl = targetUrl;
  const events = eventsOf(values.events);
  const sameEvents = isEveryEvent(events) ? isEveryEvent(original.events) : events.join('\n') === original.events.join('\n');
  if (!sameEvents) changes.events = events;
  if (values.enabled !== original.enabled) changes.enabled = values.enabled;
  const timeoutMs = timeoutOf(values.timeoutMs);
  if (timeoutMs !== undefined && timeoutMs !== original.timeoutMs) changes.timeoutMs = timeoutMs;
  const filter = filterOf(values.filter) ?? null;
  if (JSON.stringify(filter) !== JSON.stringify(original.filter ?? null)) changes.filter = filter;
  if (values.ordered !== (original.ordering === 'aggregate')) changes.ordering = values.ordered ? 'aggregate' : 'none';
  // An emptied field returns to the server's default proxy (null).
  const egressProxy = values.egressProxy.trim() || null;
  if (egressProxy !== (original.egressProxy ?? null)) changes.egressProxy = egressProxy;
  const tls = clientTlsOf(values);
  if (tls) changes.tls = tls;
  else if (values.removeClientTls && original.tls) changes.tls = null;
  // The API replaces the credentials as a whole, the secret included: a new secret, or any other
  // OAuth2 field changed, sends them all (without a secret the API says it is needed).
  if (values.removeOAuth2 && original.oauth2) changes.oauth2 = null;
  else if (values.oauth2ClientSecret || oauth2FieldsChanged(original, values)) {
    const oauth2 = oauth2Of(values);
    if (oauth2) changes.oauth2 = oauth2;
  }
  return changes;
}

const OAUTH2_FORM_FIELDS: Record<string, keyof FormValues> = {
  tokenUrl: 'oauth2TokenUrl',
  clientId: 'oauth2ClientId',
  clientSecret: 'oauth2ClientSecret',
  scope: 'oauth2Scope',
  audience: 'oauth2Audience',
  clientAuthentication: 'oauth2SecretInBody',
};

/** The form field an API field error belongs to (`events.2` → `events`, `tls.clientKey` → `clientKey`). */
export function formFieldOf(apiField: string): keyof FormValues | undefined {
  const [first, second] = apiField.split('.');
  if (first === 'tls') return second === 'clientKey' || second === 'caBundle' ? second : 'clientCertificate';
  if (first === 'oauth2') return OAUTH2_FORM_FIELDS[second ?? ''] ?? 'oauth2TokenUrl';
  const head = first as keyof FormValues;
  return head in EMPTY_FORM ? head : undefined;
}
