// An event's status follows from two counters kept on the event — rows not yet terminal
// (`openDeliveries`) and rows FAILED (`failedDeliveries`) — changed by `$inc` when rows change,
// so settling an event never re-reads its rows. Deltas are grouped: every event with the same
// change is one `updateMany`, followed by the statements that settle the status of the events
// touched. One ordered bulkWrite, so the settling statements see the increments.
//
// A writer that cannot tell which of its row updates applied (a lost lease, a race with a manual
// retry) recounts those events from their rows instead (`recountEvents`); so does the periodic
// reconciliation, which repairs counters left behind by a crash between the two writes.
import type { AnyBulkWriteOperation } from 'mongodb';
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';
import { anyOf, type Collections } from '../storage/collections.js';
import { findByIds, type StoreCompat } from '../storage/compat.js';
import type { EventDocument } from '../storage/documents.js';
import { isSettledEvent, isTerminalDelivery } from './delivery-status.js';

export interface CounterDelta {
  open: number;
  failed: number;
}

/** The counter change of one row moving from one status to another. */
export function rowDelta(from: DeliveryStatus, to: DeliveryStatus): CounterDelta {
  const open = (isTerminalDelivery(to) ? 0 : 1) - (isTerminalDelivery(from) ? 0 : 1);
  const failed = (to === 'FAILED' ? 1 : 0) - (from === 'FAILED' ? 1 : 0);
  return { open, failed };
}

export class EventDeltas {
  private readonly deltas = new Map<string, CounterDelta>();

  add(eventId: string, delta: CounterDelta): void {
    if (delta.open === 0 && delta.failed === 0) return;
    const current = this.deltas.get(eventId) ?? { open: 0, failed: 0 };
    this.deltas.set(eventId, { open: current.open + delta.open, failed: current.failed + delta.failed });
  }

  get size(): number {
    return this.deltas.size;
  }

  entries(): IterableIterator<[string, CounterDelta]> {
    return this.deltas.entries();
  }

  /** The statements: one `$inc` per distinct change, then the status settling of every event touched. */
  operations(now: Date): AnyBulkWriteOperation<EventDocument>[] {
    const groups = new Map<string, { delta: CounterDelta; ids: string[] }>();
    for (const [eventId, delta] of this.deltas) {
      if (delta.open === 0 && delta.failed === 0) continue;
      const key = `${delta.open}:${delta.failed}`;
      const group = groups.get(key) ?? { delta, ids: [] };
      group.ids.push(eventId);
      groups.set(key, group);
    }
    if (groups.size === 0) return [];
    const operations: AnyBulkWriteOperation<EventDocument>[] = [...groups.values()].map(({ delta, ids }) => ({
      updateMany: {
        filter: { _id: anyOf(ids) },
        update: { $inc: { openDeliveries: delta.open, failedDeliveries: delta.failed }, $set: { updatedAt: now } },
      },
    }));
    const touched = [...groups.values()].flatMap((group) => group.ids);
    // Only a row going back to work (a redelivery) can make a settled event DISPATCHED again.
    const reopening = [...groups.values()].some((group) => group.delta.open > 0);
    return [...operations, ...settleOperations(touched, now, reopening)];
  }
}

/** What an event's write sets when it moves to `status`: a settled event drops its fan-out plan. */
export function statusUpdate(status: EventStatus, now: Date): { $set: Partial<EventDocument>; $unset?: { subscriberIds: '' } } {
  return isSettledEvent(status) ? { $set: { status, updatedAt: now }, $unset: { subscriberIds: '' } } : { $set: { status, updatedAt: now } };
}

/** Statements that set each event's status from its counters (no-ops where it is already right). */
export function settleOperations(eventIds: readonly string[], now: Date, reopening = true): AnyBulkWriteOperation<EventDocument>[] {
  const ids = anyOf(eventIds);
  const settle = (filter: object, status: EventStatus): AnyBulkWriteOperation<EventDocument> => ({
    updateMany: { filter: { _id: ids, status: { $nin: [status, 'PENDING'] }, ...filter }, update: statusUpdate(status, now) },
  });
  return [
    ...(reopening ? [settle({ openDeliveries: { $gt: 0 } }, 'DISPATCHED')] : []),
    settle({ openDeliveries: { $lte: 0 }, failedDeliveries: { $lte: 0 } }, 'ALL_DELIVERED'),
    settle({ openDeliveries: { $lte: 0 }, failedDeliveries: { $gt: 0 } }, 'FAILED'),
  ];
}

export async function applyEventDeltas(collections: Collections, compat: StoreCompat, deltas: EventDeltas, now: Date, urgent = false): Promise<void> {
  const operations = deltas.operations(now);
  if (operations.length === 0) return;
  await compat.write(() => collections.events.bulkWrite(operations, { ordered: true }), urgent);
}

/** Counters an event should have, from its rows. Rows not written yet (fan-out in progress) count as open. */
export function countersFromRows(deliveryCount: number, statuses: ReadonlyMap<DeliveryStatus, number>): CounterDelta {
  let rows = 0;
  let open = 0;
  for (const [status, count] of statuses) {
    rows += count;
    if (!isTerminalDelivery(status)) open += count;
  }
  return { open: open + Math.max(0, deliveryCount - rows), failed: statuses.get('FAILED') ?? 0 };
}

/** How many rows (queued and settled) of one event are in one status, and the latest change among them. */
export type RowCount = { _id: { eventId: string; status: DeliveryStatus }; n: number; last: Date | null };
type CountedEvent = { _id: string; deliveryCount?: number };

/**
 * The rows of these events by status, queued and settled (an event and status may come twice, once
 * per collection): one aggregate per row collection where `$in` is served by an index. Where only
 * an equality reaches the store's planner (storage/compat.ts pointReads) a `$in` decodes every row
 * stored, so each event's rows are read by its own equality instead.
 */
export async function rowsByStatus(collections: Collections, compat: StoreCompat, eventIds: readonly string[]): Promise<RowCount[]> {
  if (eventIds.length === 0) return [];
  const rowCollections = [collections.queue, collections.deliveries];
  if (compat.pointReads) {
    const perEvent = await Promise.all(
      eventIds.map(async (eventId) => {
        const found = await Promise.all(rowCollections.map((rows) => compat.retry(() => rows.find({ eventId }, { projection: { status: 1, updatedAt: 1 } }).toArray())));
        const statuses = new Map<DeliveryStatus, RowCount>();
        for (const row of found.flat()) {
          const count = statuses.get(row.status) ?? { _id: { eventId, status: row.status }, n: 0, last: null };
          count.n += 1;
          if (count.last === null || row.updatedAt > count.last) count.last = row.updatedAt;
          statuses.set(row.status, count);
        }
        return [...statuses.values()];
      }),
    );
    return perEvent.flat();
  }
  const pipeline = [
    { $match: { eventId: anyOf(eventIds) } },
    { $group: { _id: { eventId: '$eventId', status: '$status' }, n: { $sum: 1 }, last: { $max: '$updatedAt' } } },
  ];
  const grouped = await Promise.all(rowCollections.map((rows) => compat.retry(() => rows.aggregate<RowCount>(pipeline).toArray())));
  return grouped.flat();
}

/** The planned row counts of these events: by `_id` one at a time where `$in` is not served (pointReads). */
async function plannedCounts(collections: Collections, compat: StoreCompat, eventIds: readonly string[]): Promise<CountedEvent[]> {
  return findByIds<EventDocument, CountedEvent>(collections.events, compat, eventIds, { projection: { _id: 1, deliveryCount: 1 } });
}

/**
 * Recomputes the counters and status of these events from their rows (exact). With
 * `rowsQuietBefore`, an event with a row changed since is left as it is: the writer of that change
 * may not have added it to the counters yet (an outcome's `$inc` follows its row writes; FerretDB
 * v1's engines hold theirs in memory a while), and would add it again after the recount.
 */
export async function recountEvents(collections: Collections, compat: StoreCompat, eventIds: readonly string[], now: Date, rowsQuietBefore?: Date): Promise<void> {
  if (eventIds.length === 0) return;
  const [rows, planned] = await Promise.all([rowsByStatus(collections, compat, eventIds), plannedCounts(collections, compat, eventIds)]);
  const busy = new Set(rowsQuietBefore ? rows.filter((group) => group.last !== null && group.last >= rowsQuietBefore).map((group) => group._id.eventId) : []);
  const events = planned.filter((event) => !busy.has(event._id));
  const byEvent = new Map<string, Map<DeliveryStatus, number>>();
  for (const group of rows) {
    const statuses = byEvent.get(group._id.eventId) ?? new Map<DeliveryStatus, number>();
    statuses.set(group._id.status, (statuses.get(group._id.status) ?? 0) + group.n);
    byEvent.set(group._id.eventId, statuses);
  }
  const operation = (event: CountedEvent): AnyBulkWriteOperation<EventDocument> => {
    const counters = countersFromRows(event.deliveryCount ?? 0, byEvent.get(event._id) ?? new Map());
    return {
      updateOne: {
        filter: { _id: event._id },
        update: { $set: { openDeliveries: counters.open, failedDeliveries: counters.failed, updatedAt: now } },
      },
    };
  };
  // Chunked: FerretDB v1 holds a connection per statement of a command until the command ends,
  // and a command with more statements than its pool has connections never ends.
  for (const part of chunks(events, compat.maxWriteBatch)) {
    await compat.write(() => collections.events.bulkWrite([...part.map(operation), ...settleOperations(part.map((event) => event._id), now)], { ordered: true }));
  }
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const length = Number.isFinite(size) && size > 0 ? size : Math.max(items.length, 1);
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += length) parts.push(items.slice(start, start + length));
  return parts;
}

