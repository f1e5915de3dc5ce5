// Event documents → API shapes. Pure.
import type { DeliveryRowSummary } from '../model/delivery-views.js';
import { toEventDelivery, toEventDeliveryDetail } from '../model/delivery-views.js';
import type { WebhookEvent, WebhookEventDetail } from '../schemas/index.js';
import type { AttemptDocument, DeliveryDocument, EventDocument } from '../storage/documents.js';

/** Attempts shown per row; older ones stay stored. */
const ATTEMPT_HISTORY_MAX = 50;

function eventFields(event: EventDocument) {
  return {
    eventId: event._id,
    eventType: event.eventType,
    orgId: event.orgId,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    status: event.status,
    occurredAt: event.occurredAt.toISOString(),
  };
}

/** Rows in a stable order: by creation, then id. */
function byCreation<T extends { createdAt: Date; _id: string }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

export function toWebhookEvent(event: EventDocument, rows: readonly DeliveryRowSummary[]): WebhookEvent {
  return { ...eventFields(event), deliveries: byCreation(rows).map(toEventDelivery) };
}

/** The full event: every row with its attempt history (oldest attempt first, the last 50 kept per row). */
export function toWebhookEventDetail(event: EventDocument, rows: readonly DeliveryDocument[], attempts: readonly AttemptDocument[]): WebhookEventDetail {
  const byDelivery = new Map<string, AttemptDocument[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  return {
    ...eventFields(event),
    deliveries: byCreation(rows).map((row) => toEventDeliveryDetail(row, (byDelivery.get(row._id) ?? []).slice(-ATTEMPT_HISTORY_MAX))),
  };
}
