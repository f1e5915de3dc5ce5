// Delivery documents → API shapes. Pure.
import type {
  DeliveryAttempt,
  WebhookEventDelivery,
  WebhookEventDeliveryDetail,
  WebhookSubscriberDeliverySummary,
} from '../schemas/index.js';
import type { AttemptRecord, DeliveryDocument } from '../storage/documents.js';

/** A delivery row as list reads load it. */
export type DeliveryRowSummary = Omit<DeliveryDocument, 'settledBy' | 'takenAt' | 'movedBack'>;
export const SUMMARY_PROJECTION = { settledBy: 0, takenAt: 0, movedBack: 0 } as const;

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** `sequence` only on rows of an ordered subscriber: the field is absent, not null, on the others. */
function sequence(row: DeliveryRowSummary): { sequence?: number } {
  return typeof row.orderSeq === 'number' ? { sequence: row.orderSeq } : {};
}

/** Where a row stands: the fields every view of a delivery shows. */
function standing(row: DeliveryRowSummary) {
  return {
    status: row.status,
    lastHttpStatus: row.lastHttpStatus ?? null,
    lastError: row.lastError ?? null,
    lastAttemptAt: iso(row.lastAttemptAt),
    deliveredAt: iso(row.deliveredAt),
    ...sequence(row),
  };
}

export function toDeliverySummary(row: DeliveryRowSummary): WebhookSubscriberDeliverySummary {
  return { deliveryId: row._id, eventType: row.eventType ?? null, occurredAt: iso(row.occurredAt), ...standing(row) };
}

export function toEventDelivery(row: DeliveryRowSummary): WebhookEventDelivery {
  return { deliveryId: row._id, subscriberId: row.subscriberHandle, targetUrl: row.targetUrl ?? null, ...standing(row) };
}

export function toAttempt(record: AttemptRecord): DeliveryAttempt {
  return {
    attempt: record.attempt,
    startedAt: record.startedAt.toISOString(),
    durationMs: record.durationMs,
    httpStatus: record.httpStatus ?? null,
    errorClass: record.errorClass ?? null,
    errorMessage: record.errorMessage ?? null,
    responseBodySnippet: record.responseBodySnippet ?? null,
  };
}

export function toEventDeliveryDetail(row: DeliveryDocument, history: readonly AttemptRecord[]): WebhookEventDeliveryDetail {
  return {
    ...toEventDelivery(row),
    attempts: row.attempts,
    nextAttemptAt: iso(row.nextAttemptAt),
    encryptedFields: row.encryptedFields,
    createdAt: row.createdAt.toISOString(),
    attemptHistory: history.map(toAttempt),
  };
}
