// Event ids. With an idempotency key the id is derived from (org, namespace, key), so a repeated
// publish is a duplicate-key error on insert instead of a second event. Keys belong to the
// organization, as payment APIs scope them to the account: a client that rotates its token between
// a publish and its retry still gets the original event. Herald's own operational events use a
// namespace of their own, so no client key can ever meet one of theirs.
import { createHash, randomUUID } from 'node:crypto';

export function newEventId(): string {
  return randomUUID();
}

/** Whose keys an idempotent id belongs to: the org's clients, or Herald itself. */
export type IdempotencyNamespace = 'client' | 'herald';

/** A UUID (version 8, "custom") from SHA-256 of org, namespace and key; same inputs → same id. */
export function idempotentEventId(orgId: string, idempotencyKey: string, namespace: IdempotencyNamespace = 'client'): string {
  const hash = createHash('sha256').update(orgId).update('\0').update(namespace).update('\0').update(idempotencyKey).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x80;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What a repeated publish under the same key must match: everything but the sensitive values,
 * which are never stored, not even hashed (a hash of a short secret can be guessed).
 */
export function publishFingerprint(parts: { eventType: string; aggregateType?: string | undefined; aggregateId: string; occurredAt?: string | undefined; publicData: unknown; sensitiveNames: readonly string[] }): string {
  return createHash('sha256')
    .update(JSON.stringify([parts.eventType, parts.aggregateType ?? null, parts.aggregateId, parts.occurredAt ?? null, parts.publicData, [...parts.sensitiveNames].sort()]))
    .digest('base64url');
}
