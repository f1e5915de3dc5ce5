// Subscriber documents → API shapes. Pure. The secret never leaves: only `hasSecret`; nor does the
// TLS client key: only the certificate's facts; nor the OAuth2 client secret: only `clientSecretSet`.
import type { WebhookSubscriberListItem, WebhookSubscriberResponse } from '../schemas/index.js';
import type { ClientTlsSummary, OAuth2Summary } from '../schemas/index.js';
import type { SubscriberDocument, SubscriberHealthDocument, SubscriberOAuth2Document, SubscriberTlsDocument } from '../storage/documents.js';

export const DELETED_USER = 'deleted_user';
/** createdBy/updatedBy when a call names no actor (an embedding app acting on its own). */
export const SYSTEM_ACTOR = 'system';

/** Principals to look up for these documents (the system actor always exists). */
export function principalsOf(documents: readonly SubscriberDocument[], withUpdatedBy: boolean): string[] {
  const ids = new Set<string>();
  for (const document of documents) {
    ids.add(document.createdBy);
    if (withUpdatedBy) ids.add(document.updatedBy);
  }
  ids.delete(SYSTEM_ACTOR);
  ids.delete(DELETED_USER);
  return [...ids];
}

/** `existing` = undefined means no directory is configured: every principal is shown as stored. */
export function displayPrincipal(id: string, existing: ReadonlySet<string> | undefined): string {
  if (existing === undefined || id === SYSTEM_ACTOR || existing.has(id)) return id;
  return DELETED_USER;
}

export function toListItem(document: SubscriberDocument, existing?: ReadonlySet<string>, health?: SubscriberHealthDocument | null): WebhookSubscriberListItem {
  return {
    id: document.handle,
    orgId: document.orgId,
    displayName: document.displayName,
    targetUrl: document.targetUrl,
    enabled: document.enabled,
    // Stored before an empty list was refused: it always meant every event, and reads say so.
    events: document.events.length === 0 ? ['*'] : document.events,
    ...(document.filter !== undefined ? { filter: JSON.parse(document.filter) as Record<string, unknown> } : {}),
    ...(document.ordering === 'aggregate' ? { ordering: 'aggregate' as const } : {}),
    timeoutMs: document.timeoutMs,
    ...(document.maxConcurrency !== undefined ? { maxConcurrency: document.maxConcurrency } : {}),
    ...(document.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: document.rateLimitPerSecond } : {}),
    ...(document.egressProxy !== undefined ? { egressProxy: document.egressProxy } : {}),
    hasSecret: document.secret !== undefined,
    ...(document.tls ? { tls: tlsSummary(document.tls) } : {}),
    ...(document.oauth2 ? { oauth2: oauth2Summary(document.oauth2) } : {}),
    ...(health ? { health: { state: health.state, since: health.since.toISOString(), consecutiveFailures: health.consecutiveFailures, lastError: health.lastError } } : {}),
    ...(document.disabledReason && !document.enabled ? { disabledReason: { code: document.disabledReason.code, message: document.disabledReason.message, at: document.disabledReason.at.toISOString() } } : {}),
    createdBy: displayPrincipal(document.createdBy, existing),
    createdAt: document.createdAt.toISOString(),
    updatedAt: document.updatedAt.toISOString(),
  };
}

export function toResponse(document: SubscriberDocument, existing?: ReadonlySet<string>, health?: SubscriberHealthDocument | null): WebhookSubscriberResponse {
  return { ...toListItem(document, existing, health), updatedBy: displayPrincipal(document.updatedBy, existing) };
}

function tlsSummary(tls: SubscriberTlsDocument): ClientTlsSummary {
  return {
    ...(tls.subject !== undefined ? { subject: tls.subject } : {}),
    ...(tls.issuer !== undefined ? { issuer: tls.issuer } : {}),
    ...(tls.fingerprint256 !== undefined ? { fingerprint256: tls.fingerprint256 } : {}),
    ...(tls.notBefore ? { notBefore: tls.notBefore.toISOString() } : {}),
    ...(tls.notAfter ? { notAfter: tls.notAfter.toISOString() } : {}),
    caCertificates: tls.caCertificates,
  };
}

function oauth2Summary(oauth2: SubscriberOAuth2Document): OAuth2Summary {
  return {
    tokenUrl: oauth2.tokenUrl,
    clientId: oauth2.clientId,
    clientSecretSet: true,
    ...(oauth2.scope !== undefined ? { scope: oauth2.scope } : {}),
    ...(oauth2.audience !== undefined ? { audience: oauth2.audience } : {}),
    clientAuthentication: oauth2.clientAuthentication,
  };
}
