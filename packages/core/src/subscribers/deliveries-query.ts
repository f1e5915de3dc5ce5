// A subscriber's deliveries, newest attempt first: the query of one page, in each of the two row
// collections (delivery_queue, deliveries), and its cursor. Pure; one of the hot queries of
// docs/ARCHITECTURE.md, checked against the declared indexes by test/hot-queries.test.ts.
import { createHash } from 'node:crypto';
import type { Filter } from 'mongodb';
import type { DeliveryDocument } from '../storage/documents.js';
import { SUBSCRIBER_DELIVERIES_ORDER } from '../storage/indexes.js';
import { cursorNotIssued, cursorTime, decodeCursor, encodeCursor } from '../validation/cursor.js';

export const SUBSCRIBER_DELIVERIES_CURSOR_KIND = 'subscriber-deliveries';


/** The last row handed out. */
export interface DeliveryPosition {
  lastAttemptAt: Date | null;
  createdAt: Date;
  id: string;
}

export interface DeliveriesQuery {
  filter: Filter<DeliveryDocument>;
  sort: typeof SUBSCRIBER_DELIVERIES_ORDER;
}

/**
 * The queries of one page, to run in turn until the page is full: each gives one stretch of the
 * order. After a position, a range bounds the index scan — on `lastAttemptAt` after an attempted
 * row, on `createdAt` among the never-attempted ones (`lastAttemptAt` null, which come after every
 * attempted row: a second query) — and an `$or` of index keys drops what the previous page already
 * had at that same instant. Every query names the subscriber by equality beside it: MongoDB scans
 * `subscriber_recent_order` over that range only, in order; FerretDB v1 hands the equality to
 * PostgreSQL (it hands over no part of a filter that is an `$or` at its root).
 */
export function subscriberDeliveriesQueries(subscriberId: string, after?: DeliveryPosition): DeliveriesQuery[] {
  const sort = SUBSCRIBER_DELIVERIES_ORDER;
  if (!after) return [{ filter: { subscriberId }, sort }];
  const neverAttempted = { subscriberId, lastAttemptAt: null };
  const sameCreation = { createdAt: after.createdAt, _id: { $lt: after.id } };
  if (after.lastAttemptAt === null) {
    return [{ filter: { ...neverAttempted, createdAt: { $lte: after.createdAt }, $or: [{ createdAt: { $lt: after.createdAt } }, sameCreation] }, sort }];
  }
  const olderAttempts: Filter<DeliveryDocument> = {
    subscriberId,
    lastAttemptAt: { $lte: after.lastAttemptAt },
    $or: [{ lastAttemptAt: { $lt: after.lastAttemptAt } }, { createdAt: { $lt: after.createdAt } }, sameCreation],
  };
  return [{ filter: olderAttempts, sort }, { filter: neverAttempted, sort }];
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
  if (typeof id !== 'string') throw cursorNotIssued();
  return { after: { lastAttemptAt: attempted === null ? null : cursorTime(attempted), createdAt: cursorTime(created), id }, offset: cursor.offset };
}
