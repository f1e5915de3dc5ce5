// Deciding what to do in Herald for one CR (pure): create, update the differing fields, nothing, or
// refuse because the subscriber belongs to someone else.
import type { Subscriber, SubscriberRequest } from '../herald/types.js';
import { EVERY_EVENT, type DesiredSubscriber } from './desired.js';
import type { OAuth2Credentials, OAuth2Resolution, SecretResolution, TlsSecretResolution } from './secret.js';
import type { AutoDisabledStatus } from '../crd/types.js';

export type SyncPlan =
  | { action: 'create'; request: SubscriberRequest }
  | { action: 'update'; patch: SubscriberRequest; changedFields: string[] }
  | { action: 'none' }
  | { action: 'conflict'; createdBy: string };

export interface PlanInput {
  desired: DesiredSubscriber;
  /** Only 'none' or 'found' reach planning; missing/invalid secrets stop earlier. */
  secret: Extract<SecretResolution, { kind: 'none' | 'found' }>;
  actual: Subscriber | undefined;
  /** Principal id of the operator's API token, compared with `createdBy`. */
  operatorPrincipal: string;
  /** status.secretVersion: the Secret version last pushed to Herald. */
  pushedSecretVersion: string | undefined;
  /** The client certificate from tlsSecretRef; absent: none. Only 'none' or 'found' reach planning. */
  tls?: Extract<TlsSecretResolution, { kind: 'none' | 'found' }>;
  /** status.tlsSecretVersion: the TLS Secret version last pushed to Herald. */
  pushedTlsSecretVersion?: string | undefined;
  /** spec.oauth2 with its client secret; absent: none. Only 'none' or 'found' reach planning. */
  oauth2?: Extract<OAuth2Resolution, { kind: 'none' | 'found' }>;
  /** status.oauth2SecretVersion: the client secret's Secret version last pushed to Herald. */
  pushedOAuth2SecretVersion?: string | undefined;
  /** The CR carries the adopt annotation: take over a subscriber someone else created. */
  adoptForeign: boolean;
  /** metadata.generation of the spec being reconciled. */
  generation: number;
  /** status.autoDisabled: the auto-disable the operator last reported. */
  autoDisabled: AutoDisabledStatus | undefined;
}

/** A subscriber stored with `[]` (Herald's spelling of every event before it refused it) holds `["*"]`. */
function everyEventSpelledOut(events: readonly string[]): readonly string[] {
  return events.length === 0 ? EVERY_EVENT : events;
}

function sameEvents(a: readonly string[], b: readonly string[]): boolean {
  const left = [...new Set(everyEventSpelledOut(a))].sort();
  const right = [...new Set(everyEventSpelledOut(b))].sort();
  return left.length === right.length && left.every((value, index) => value === right[index]);
}

/**
 * The same JSON value, whatever the key order: the API server may hand a CR's object fields back in
 * another order than Herald stored them.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => sameJson(item, (b as unknown[])[index]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Herald stores a URL as a URL parser writes it back (`https://Example.com:443` → `https://example.com/`). */
function sameUrl(stored: string, desired: string): boolean {
  if (stored === desired) return true;
  try {
    return new URL(desired).href === stored;
  } catch {
    return false;
  }
}

/** Fields of `actual` that differ from `desired`, as a partial update (PUT changes only what it is given). */
export function diffSubscriber(desired: DesiredSubscriber, actual: Subscriber): SubscriberRequest {
  const patch: SubscriberRequest = {};
  if (actual.displayName !== desired.displayName) patch.displayName = desired.displayName;
  if (!sameUrl(actual.targetUrl, desired.targetUrl)) patch.targetUrl = desired.targetUrl;
  if (!sameEvents(actual.events, desired.events)) patch.events = desired.events;
  if (actual.enabled !== desired.enabled) patch.enabled = desired.enabled;
  if (actual.timeoutMs !== desired.timeoutMs) patch.timeoutMs = desired.timeoutMs;
  if ((actual.maxConcurrency ?? null) !== desired.maxConcurrency) patch.maxConcurrency = desired.maxConcurrency;
  if ((actual.rateLimitPerSecond ?? null) !== desired.rateLimitPerSecond) patch.rateLimitPerSecond = desired.rateLimitPerSecond;
  if ((actual.egressProxy ?? null) !== desired.egressProxy) patch.egressProxy = desired.egressProxy;
  if (!sameJson(actual.filter ?? null, desired.filter)) patch.filter = desired.filter;
  if ((actual.ordering ?? 'none') !== desired.ordering) patch.ordering = desired.ordering;
  return patch;
}

/**
 * The operator does not fight Herald's auto-disable: a subscriber Herald disabled for failing too
 * long stays disabled while the spec is the one it was disabled under, even though the spec says
 * `enabled: true`. A later spec change (a new generation) is the owner's decision, and enables it
 * again; so does enabling it through Herald's API.
 */
export function keepsAutoDisable(actual: Subscriber, generation: number, reported: AutoDisabledStatus | undefined): boolean {
  if (actual.enabled || !actual.disabledReason) return false;
  const sameDisable = reported?.at === actual.disabledReason.at;
  return !(sameDisable && generation > reported.observedGeneration);
}

/** Whether Herald's stored credentials (all but the secret) are the desired ones. */
function sameOAuth2(stored: Subscriber['oauth2'], desired: OAuth2Credentials): boolean {
  return (
    stored !== undefined &&
    sameUrl(stored.tokenUrl, desired.tokenUrl) &&
    stored.clientId === desired.clientId &&
    (stored.scope ?? null) === (desired.scope ?? null) &&
    (stored.audience ?? null) === (desired.audience ?? null) &&
    stored.clientAuthentication === (desired.clientAuthentication ?? 'basic')
  );
}

export function planSync(input: PlanInput): SyncPlan {
  const { desired, secret, actual } = input;
  if (!actual) {
    const { maxConcurrency, rateLimitPerSecond, egressProxy, filter, ordering, ...fields } = desired;
    // Unset limits are left out: a new subscriber starts with Herald's defaults.
    const request: SubscriberRequest = {
      ...fields,
      ...(maxConcurrency !== null ? { maxConcurrency } : {}),
      ...(rateLimitPerSecond !== null ? { rateLimitPerSecond } : {}),
      ...(egressProxy !== null ? { egressProxy } : {}),
      ...(filter !== null ? { filter } : {}),
      ...(ordering === 'aggregate' ? { ordering } : {}),
    };
    if (secret.kind === 'found') request.secret = secret.value;
    if (input.tls?.kind === 'found') request.tls = input.tls.tls;
    if (input.oauth2?.kind === 'found') request.oauth2 = input.oauth2.oauth2;
    return { action: 'create', request };
  }
  if (actual.createdBy !== input.operatorPrincipal && !input.adoptForeign) return { action: 'conflict', createdBy: actual.createdBy };
  const patch = diffSubscriber(desired, actual);
  if (patch.enabled === true && keepsAutoDisable(actual, input.generation, input.autoDisabled)) delete patch.enabled;
  if (secret.kind === 'found' && (secret.version !== input.pushedSecretVersion || !actual.hasSecret)) {
    patch.secret = secret.value;
  } else if (secret.kind === 'none' && actual.hasSecret) {
    patch.secret = '';
  }
  // Herald never returns the key: a changed Secret (its version) is what tells that it must be pushed again.
  const tls = input.tls ?? { kind: 'none' };
  if (tls.kind === 'found' && (tls.version !== input.pushedTlsSecretVersion || !actual.tls)) patch.tls = tls.tls;
  else if (tls.kind === 'none' && actual.tls) patch.tls = null;
  // Herald never returns the client secret either: a changed Secret, or any other field differing
  // from what Herald shows, pushes the credentials again as a whole.
  const oauth2 = input.oauth2 ?? { kind: 'none' };
  if (oauth2.kind === 'found' && (oauth2.version !== input.pushedOAuth2SecretVersion || !sameOAuth2(actual.oauth2, oauth2.oauth2))) patch.oauth2 = oauth2.oauth2;
  else if (oauth2.kind === 'none' && actual.oauth2) patch.oauth2 = null;
  const changedFields = Object.keys(patch);
  return changedFields.length === 0 ? { action: 'none' } : { action: 'update', patch, changedFields };
}
