// A subscriber's deliveries, newest attempt first: the query of one page, in each of the two row
// collections (delivery_queue, deliveries), and its cursor. Pure; one of the hot queries of
// docs/ARCHITECTURE.md, checked against the declared indexes by test/hot-queries.test.ts.
import { createHash } from 'node:crypto';
import type { Filter } from 'mongodb';
import type { DeliveryDocument } from '../storage/documents.js';
import { cursorNotIssued, decodeCursor, encodeCursor } from '../validation/cursor.js';

export const SUBSCRIBER_DELIVERIES_CURSOR_KIND = 'subscriber-deliveries';

/**
 * lastAttemptAt descending — rows never attempted (null) sort below every date, so they come last —
 * then createdAt descending, then id.
 */
export const SUBSCRIBER_DELIVERIES_ORDER = { lastAttemptAt: -1, createdAt: -1, _id: -1 } as const;

/** The last row handed out. */
export interface DeliveryPosition {
  lastAttemptAt: Date | null;
  createdAt: Date;
  id: string;
}

/**
 * After a position the filter is an `$or` whose every branch names the subscriber and bounds one
 * stretch of the order: each is a range of the index `subscriber_recent_order`, which gives them in
 * the order already, so the store merges them rather than sorting the subscriber's rows.
 */
export function subscriberDeliveriesQuery(subscriberId: string, after?: DeliveryPosition) {
  if (!after) return { filter: { subscriberId } as Filter<DeliveryDocument>, sort: SUBSCRIBER_DELIVERIES_ORDER };
  const sameInstant = [
    { subscriberId, lastAttemptAt: after.lastAttemptAt, createdAt: { $lt: after.createdAt } },
    { subscriberId, lastAttemptAt: after.lastAttemptAt, createdAt: after.createdAt, _id: { $lt: after.id } },
  ];
  const branches = after.lastAttemptAt === null ? sameInstant : [{ subscriberId, lastAttemptAt: { $lt: after.lastAttemptAt } }, { subscriberId, lastAttemptAt: null }, ...sameInstant];
  return { filter: { $or: branches } as Filter<DeliveryDocument>, sort: SUBSCRIBER_DELIVERIES_ORDER };
}

/** A cursor is valid for the subscriber it came from only; its internal id is not shown, so a digest of it. */
function scopeOf(subscriberId: string): string {
  return createHash('sha256').update(subscriberId).digest('base64url').slice(0, 16);
}

export function subscriberDeliveriesCursor(orgId: string, subscriberId: string, last: Pick<DeliveryDocument, '_id' | 'lastAttemptAt' | 'createdAt'>, offset: number): string {
  return encodeCursor(orgId, {
    kind: SUBSCRIBER_DELIVERIES_CURSOR_KIND,
    scope: scopeOf(subscriberId),
    after: [last.lastAttemptAt ? last.lastAttemptAt.getTime() : null, last.createdAt.getTime(), last._id],
    offset,
  });
}

export function readSubscriberDeliveriesCursor(orgId: string, subscriberId: string, raw: unknown): { after: DeliveryPosition; offset: number } {
  const cursor = decodeCursor(orgId, raw, { kind: SUBSCRIBER_DELIVERIES_CURSOR_KIND, scope: scopeOf(subscriberId), afterLength: 3 });
  const [attempted, created, id] = cursor.after;
  if ((attempted !== null && typeof attempted !== 'number') || typeof created !== 'number' || typeof id !== 'string') throw cursorNotIssued();
  return { after: { lastAttemptAt: attempted === null ? null : new Date(attempted), createdAt: new Date(created), id }, offset: cursor.offset };
}
