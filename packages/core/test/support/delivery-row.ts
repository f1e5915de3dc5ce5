// A queue or history row as the engine writes one, for tests that put rows in place themselves.
import type { DeliveryDocument } from '../../src/storage/documents.js';

/** A fresh `PENDING` row of org `acme`, due now; `fields` override any part of it. */
export function deliveryRow(id: string, fields: Partial<DeliveryDocument> = {}): DeliveryDocument {
  const now = new Date();
  return {
    _id: id, orgId: 'acme', eventId: `event-${id}`, subscriberId: 's1', subscriberHandle: 's1', targetUrl: 'http://127.0.0.1:1/', eventType: 'a.b',
    occurredAt: now, status: 'PENDING', attempts: 0, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, lastHttpStatus: null,
    lastError: null, lastAttemptAt: null, deliveredAt: null, encryptedFields: [], createdAt: now, updatedAt: now,
    ...fields,
  };
}
