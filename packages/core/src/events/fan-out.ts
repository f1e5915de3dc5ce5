// An event's payload as attempts need it, and the completion of a fan-out a crash interrupted.
// Publishing itself (three commands per batch of events) is publish-batch.ts: it writes the event
// with its plan (`subscriberIds`, `deliveryCount`) before the rows, so a crash between the two
// leaves an event with fewer rows than planned, which completeFanOut finishes (fan-out-recovery.ts
// finds such events). Queued rows are unique per {eventId, subscriberId}: completing twice is harmless.
import type { MongoBulkWriteError } from 'mongodb';
import type { CoreContext } from '../context.js';
import { EventDeltas, applyEventDeltas, recountEvents } from '../model/event-counters.js';
import { findRows, insertOrReplace } from '../model/delivery-rows.js';
import { DUPLICATE_KEY, isDuplicateKeyError } from '../storage/collections.js';
import type { DeliveryDocument, EventDocument, SealedSecret } from '../storage/documents.js';
import { orderKeyOf } from '../ordering/keys.js';
import { releaseSettledPredecessors, sequenceRows } from '../ordering/sequences.js';
import { newDeliveryRow } from './delivery-row.js';
import type { EventPayload, SplitData } from '../model/payload.js';

/** What `sealedSensitive` holds once opened. */
export interface SensitivePart {
  /** Key order of the original `data`. */
  order: string[];
  values: Record<string, unknown>;
}

export function sealSensitive(context: CoreContext, part: SensitivePart): SealedSecret {
  return context.secretBox.seal(JSON.stringify(part));
}

/** What of a stored event an attempt needs: none of it changes once written. */
export type EventForPayload = Pick<EventDocument, '_id' | 'eventType' | 'orgId' | 'aggregateType' | 'aggregateId' | 'occurredAt' | 'data' | 'sealedSensitive'>;

/** The event as an attempt needs it, sensitive values opened. */
export function payloadOf(context: CoreContext, event: EventForPayload): EventPayload {
  const publicData = JSON.parse(event.data) as Record<string, unknown>;
  const part: SensitivePart = event.sealedSensitive
    ? (JSON.parse(context.secretBox.open(event.sealedSensitive)) as SensitivePart)
    : { order: Object.keys(publicData), values: {} };
  return eventPayload(event, { publicData, sensitiveValues: part.values }, part.order);
}

export function eventPayload(event: EventForPayload, split: SplitData, order: readonly string[]): EventPayload {
  return {
    eventId: event._id,
    eventType: event.eventType,
    orgId: event.orgId,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    occurredAt: event.occurredAt,
    split,
    order,
  };
}

export function isOnlyDuplicateKeyErrors(error: unknown): boolean {
  if (isDuplicateKeyError(error)) return true;
  const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((writeError) => writeError.code === DUPLICATE_KEY);
}

/**
 * Writes the rows an interrupted fan-out did not write (from the subscribers recorded on the
 * event). A subscriber deleted or disabled since gets its row FAILED as cancelled, so the event's
 * counters still add up. Returns how many rows were written.
 */
export async function completeFanOut(context: CoreContext, event: EventDocument): Promise<number> {
  const { collections, compat } = context;
  const planned = event.subscriberIds ?? [];
  if (planned.length === 0) return 0;
  // Read again once if a row is missing: it may have been moving between the two collections.
  const existing = await compat.retry(() => findRows<DeliveryDocument>(collections, { eventId: event._id }, { subscriberId: 1 }, planned.length));
  const have = new Set(existing.map((row) => row.subscriberId));
  const missing = planned.filter((id) => !have.has(id));
  if (missing.length === 0) return 0;
  const found = await compat.retry(() => collections.subscribers.find({ _id: { $in: missing } }).toArray());
  const byId = new Map(found.map((subscriber) => [subscriber._id, subscriber]));
  const now = context.now();
  const deltas = new EventDeltas();
  const rows: DeliveryDocument[] = missing.map((id) => {
    const subscriber = byId.get(id);
    const row = newDeliveryRow(event, subscriber ?? { _id: id, handle: id, targetUrl: '' }, now);
    if (!subscriber?.enabled) {
      row.status = 'FAILED';
      row.nextAttemptAt = null;
      row.lastError = subscriber ? 'Cancelled: the subscriber was disabled before this delivery was attempted' : 'Cancelled: the subscriber was deleted before this delivery was attempted';
      deltas.add(event._id, { open: -1, failed: 1 });
    } else if (subscriber.ordering === 'aggregate') {
      row.orderKey = orderKeyOf({ subscriberId: id, aggregateType: event.aggregateType, aggregateId: event.aggregateId });
    }
    return row;
  });
  // Cancelled rows go straight to the history; the others join the queue.
  const settled = rows.filter((row) => row.status === 'FAILED');
  const queued = rows.filter((row) => row.status !== 'FAILED');
  try {
    // The completed row of an ordered subscriber takes a new number: it goes after the rows of its key
    // already written, and its receiver sees a gap where the interrupted publish's number was.
    const held = await sequenceRows(context, queued, now);
    if (queued.length > 0) await compat.write(() => collections.queue.insertMany(queued, { ordered: false }));
    await releaseSettledPredecessors(context, held, now);
    await insertOrReplace(collections.deliveries, settled, compat);
    await applyEventDeltas(collections, compat, deltas, now);
  } catch (error) {
    // Another replica completed the same fan-out at the same time: its rows stand; count afresh.
    if (!isOnlyDuplicateKeyErrors(error)) throw error;
    await recountEvents(collections, compat, [event._id], now);
  }
  context.engine.notify();
  return rows.length;
}
