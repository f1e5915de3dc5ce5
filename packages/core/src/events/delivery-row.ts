// A new delivery row for one (event, subscriber). Pure.
import { randomUUID } from 'node:crypto';
import type { DeliveryStatus } from '../schemas/index.js';
import type { DeliveryDocument, EventDocument, SubscriberDocument } from '../storage/documents.js';

/** With a lease the row is written IN_FLIGHT, owned by the engine that admitted it. */
export function newDeliveryRow(
  event: Pick<EventDocument, '_id' | 'orgId' | 'eventType' | 'occurredAt' | 'traceparent'>,
  subscriber: Pick<SubscriberDocument, '_id' | 'handle' | 'targetUrl'>,
  now: Date,
  lease?: { token: string; leaseUntil: Date },
): DeliveryDocument {
  return {
    _id: randomUUID(),
    orgId: event.orgId,
    eventId: event._id,
    subscriberId: subscriber._id,
    subscriberHandle: subscriber.handle,
    targetUrl: subscriber.targetUrl,
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    status: (lease ? 'IN_FLIGHT' : 'PENDING') as DeliveryStatus,
    attempts: 0,
    nextAttemptAt: now,
    leaseOwner: lease?.token ?? null,
    leaseUntil: lease?.leaseUntil ?? null,
    lastHttpStatus: null,
    lastError: null,
    lastAttemptAt: null,
    deliveredAt: null,
    encryptedFields: [],
    createdAt: now,
    updatedAt: now,
    ...(event.traceparent ? { traceparent: event.traceparent } : {}),
  };
}

