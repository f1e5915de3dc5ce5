// The events list's query: by org (and status), newest first, from an offset or after a cursor's
// position. Pure; the shape is one of the hot queries of docs/ARCHITECTURE.md, checked against the
// declared indexes by test/hot-queries.test.ts.
import type { Filter } from 'mongodb';
import type { EventStatus } from '../schemas/index.js';
import type { EventDocument } from '../storage/documents.js';
import { EVENT_LIST_ORDER } from '../storage/indexes.js';
import { cursorNotIssued, cursorTime, decodeCursor, encodeCursor } from '../validation/cursor.js';

export const EVENT_LIST_CURSOR_KIND = 'events';

/** Where a page begins: the last event handed out (its `occurredAt` and `_id`). */
export interface EventListPosition {
  occurredAt: Date;
  id: string;
}

/**
 * The filter and order of a page. After a position, the range on `occurredAt` bounds the index
 * scan and the `$or` drops the events of that same instant already handed out (`_id` breaks ties,
 * as in the order), so a page starts exactly where the previous one ended.
 */
export function eventListQuery(orgId: string, status: EventStatus | undefined, after?: EventListPosition) {
  const base: Filter<EventDocument> = status === undefined ? { orgId } : { orgId, status };
  const filter: Filter<EventDocument> = after
    ? { ...base, occurredAt: { $lte: after.occurredAt }, $or: [{ occurredAt: { $lt: after.occurredAt } }, { _id: { $lt: after.id } }] }
    : base;
  return { filter, sort: EVENT_LIST_ORDER };
}

function scopeOf(status: EventStatus | undefined): string {
  return status ?? '';
}

export function eventListCursor(orgId: string, status: EventStatus | undefined, last: Pick<EventDocument, '_id' | 'occurredAt'>, offset: number): string {
  return encodeCursor(orgId, { kind: EVENT_LIST_CURSOR_KIND, scope: scopeOf(status), after: [last.occurredAt.getTime(), last._id], offset });
}

/** The position and offset a cursor names; a ValidationError on `cursor` when it is not one of this list's. */
export function readEventListCursor(orgId: string, status: EventStatus | undefined, raw: unknown): { after: EventListPosition; offset: number } {
  const cursor = decodeCursor(orgId, raw, { kind: EVENT_LIST_CURSOR_KIND, scope: scopeOf(status), afterLength: 2 });
  const [time, id] = cursor.after;
  if (typeof id !== 'string') throw cursorNotIssued();
  return { after: { occurredAt: cursorTime(time), id }, offset: cursor.offset };
}
