// How create and update turn validated input into the next subscriber document. Pure: sealing is
// passed in, so is the clock.
import { randomUUID } from 'node:crypto';
import { matchKeysFor } from '../rules/matching.js';
import { SUBSCRIBER_LIMITS, type WebhookSubscriberCreateRequest, type WebhookSubscriberUpdateRequest } from '../schemas/index.js';
import type { ClientTlsInput, OAuth2Input } from '../schemas/index.js';
import type { PreviousSecret, SealedSecret, SubscriberDocument, SubscriberOAuth2Document, SubscriberTlsDocument } from '../storage/documents.js';
import { clientCertificateFacts } from '../validation/client-tls.js';

export interface ChangeContext {
  orgId: string;
  actor: string;
  now: Date;
  seal(plaintext: string): SealedSecret;
  /** Tells whether a sealed secret holds this plaintext (to skip a no-op rotation). */
  holds(sealed: SealedSecret, plaintext: string): boolean;
  secretRotationOverlapMs: number;
}

export function newSubscriberDocument(input: WebhookSubscriberCreateRequest, context: ChangeContext): SubscriberDocument {
  const events = input.events ?? [];
  const document: SubscriberDocument = {
    _id: randomUUID(),
    orgId: context.orgId,
    // randomUUID() is a lowercase UUID v4, which also satisfies the handle pattern.
    handle: input.id ?? randomUUID(),
    displayName: input.displayName,
    targetUrl: input.targetUrl,
    events,
    matchKeys: matchKeysFor(events),
    enabled: input.enabled ?? true,
    timeoutMs: input.timeoutMs ?? SUBSCRIBER_LIMITS.timeoutMsDefault,
    createdBy: context.actor,
    updatedBy: context.actor,
    createdAt: context.now,
    updatedAt: context.now,
    revision: 0,
  };
  if (input.filter !== undefined) document.filter = JSON.stringify(input.filter);
  if (input.ordering === 'aggregate') document.ordering = 'aggregate';
  if (input.secret !== undefined) document.secret = context.seal(input.secret);
  if (input.maxConcurrency !== undefined) document.maxConcurrency = input.maxConcurrency;
  if (input.rateLimitPerSecond !== undefined) document.rateLimitPerSecond = input.rateLimitPerSecond;
  if (input.egressProxy !== undefined) document.egressProxy = input.egressProxy;
  if (input.tls !== undefined) document.tls = tlsDocument(input.tls, context);
  if (input.oauth2 !== undefined) document.oauth2 = oauth2Document(input.oauth2, context);
  return document;
}

/** Validated material (validation/client-tls.ts) as stored: the key sealed, the certificate's facts beside it. */
function tlsDocument(input: ClientTlsInput, context: ChangeContext): SubscriberTlsDocument {
  return {
    ...(input.clientCertificate !== undefined ? { certificate: input.clientCertificate } : {}),
    ...(input.clientKey !== undefined ? { key: context.seal(input.clientKey) } : {}),
    ...(input.caBundle !== undefined ? { caBundle: input.caBundle } : {}),
    ...clientCertificateFacts(input),
  };
}

/** Validated credentials as stored: the client secret sealed, `basic` spelled out when omitted. */
function oauth2Document(input: OAuth2Input, context: ChangeContext): SubscriberOAuth2Document {
  return {
    tokenUrl: input.tokenUrl,
    clientId: input.clientId,
    clientSecret: context.seal(input.clientSecret),
    ...(input.scope !== undefined ? { scope: input.scope } : {}),
    ...(input.audience !== undefined ? { audience: input.audience } : {}),
    clientAuthentication: input.clientAuthentication ?? 'basic',
  };
}

/**
 * The document after a PUT: only supplied fields change. A changed secret keeps the old one in
 * `previousSecrets` until now + overlap (so receivers can roll over); `""` removes the secret and
 * every previous one (no signature at all is what removing asks for). Expired previous secrets drop.
 */
export function patchedSubscriberDocument(
  current: SubscriberDocument,
  patch: WebhookSubscriberUpdateRequest,
  context: ChangeContext,
): SubscriberDocument {
  const next: SubscriberDocument = {
    ...current,
    updatedBy: context.actor,
    updatedAt: context.now,
    revision: (current.revision ?? 0) + 1,
  };
  if (patch.id !== undefined) next.handle = patch.id;
  if (patch.displayName !== undefined) next.displayName = patch.displayName;
  if (patch.targetUrl !== undefined) next.targetUrl = patch.targetUrl;
  if (patch.enabled !== undefined) {
    next.enabled = patch.enabled;
    // Whoever sets `enabled` decides anew: an auto-disable's reason no longer applies, and an
    // endpoint enabled again gets a full auto-disable window before its old failures count.
    delete next.disabledReason;
    if (patch.enabled && !current.enabled) next.enabledSince = context.now;
  }
  if (patch.timeoutMs !== undefined) next.timeoutMs = patch.timeoutMs;
  if (patch.maxConcurrency === null) delete next.maxConcurrency;
  else if (patch.maxConcurrency !== undefined) next.maxConcurrency = patch.maxConcurrency;
  if (patch.rateLimitPerSecond === null) delete next.rateLimitPerSecond;
  else if (patch.rateLimitPerSecond !== undefined) next.rateLimitPerSecond = patch.rateLimitPerSecond;
  if (patch.egressProxy === null) delete next.egressProxy;
  else if (patch.egressProxy !== undefined) next.egressProxy = patch.egressProxy;
  if (patch.tls === null) delete next.tls;
  else if (patch.tls !== undefined) next.tls = tlsDocument(patch.tls, context);
  if (patch.oauth2 === null) delete next.oauth2;
  else if (patch.oauth2 !== undefined) next.oauth2 = oauth2Document(patch.oauth2, context);
  if (patch.filter === null) delete next.filter;
  else if (patch.filter !== undefined) next.filter = JSON.stringify(patch.filter);
  if (patch.ordering === 'aggregate') next.ordering = 'aggregate';
  else if (patch.ordering === 'none') delete next.ordering;
  if (patch.events !== undefined) {
    next.events = patch.events;
    next.matchKeys = matchKeysFor(patch.events);
  }

  let previousSecrets: PreviousSecret[] = (current.previousSecrets ?? []).filter(
    (previous) => previous.expiresAt.getTime() > context.now.getTime(),
  );
  if (patch.secret === '') {
    delete next.secret;
    previousSecrets = [];
  } else if (patch.secret !== undefined && !(current.secret && context.holds(current.secret, patch.secret))) {
    if (current.secret) {
      previousSecrets.push({
        secret: current.secret,
        expiresAt: new Date(context.now.getTime() + context.secretRotationOverlapMs),
      });
    }
    next.secret = context.seal(patch.secret);
  }
  if (previousSecrets.length > 0) next.previousSecrets = previousSecrets;
  else delete next.previousSecrets;
  return next;
}
