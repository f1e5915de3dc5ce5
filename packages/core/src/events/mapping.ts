// Event documents → API shapes. Pure.
import type { DeliveryRowSummary } from '../deliveries/mapping.js';
import { toEventDelivery, toEventDeliveryDetail } from '../deliveries/mapping.js';
import type { WebhookEvent, WebhookEventDetail } from '../schemas/index.js';
import type { DeliveryDocument, EventDocument } from '../storage/documents.js';

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

export function toWebhookEventDetail(event: EventDocument, rows: readonly DeliveryDocument[]): WebhookEventDetail {
  return { ...eventFields(event), deliveries: byCreation(rows).map(toEventDeliveryDetail) };
}
