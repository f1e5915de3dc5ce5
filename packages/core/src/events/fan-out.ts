// An event's payload as attempts need it, and the completion of a fan-out a crash interrupted.
// Publishing itself (three commands per batch of events) is publish-batch.ts: it writes the event
// with its plan (`subscriberIds`, `deliveryCount`) before the rows, so a crash between the two
// leaves an event with fewer rows than planned, which completeFanOut finishes (fan-out-recovery.ts
// finds such events). Queued rows are unique per {eventId, subscriberId}: completing twice is harmless.
import type { CoreContext } from '../context.js';
import { findRows, insertAbsent } from '../model/delivery-rows.js';
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

/**
 * Writes the rows an interrupted fan-out did not write (from the subscribers recorded on the
 * event), all to the queue: replicas completing the same fan-out at once (the maintenance job, a
 * repeated publish, a redelivery) write each row once, as a queued row's {eventId, subscriberId} is
 * unique, and no counter changes, as the event's open counter already counts every planned row. A
 * subscriber deleted or disabled since has its row cancelled by the engine when it claims it, as
 * any row of such a subscriber. Returns how many rows this call wrote.
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
  const rows: DeliveryDocument[] = missing.map((id) => {
    const subscriber = byId.get(id);
    const row = newDeliveryRow(event, subscriber ?? { _id: id, handle: id, targetUrl: '' }, now);
    if (subscriber?.enabled && subscriber.ordering === 'aggregate') {
      row.orderKey = orderKeyOf({ subscriberId: id, aggregateType: event.aggregateType, aggregateId: event.aggregateId });
    }
    return row;
  });
  // The completed row of an ordered subscriber takes a new number: it goes after the rows of its key
  // already written, and its receiver sees a gap where the interrupted publish's number was.
  const held = await sequenceRows(context, rows, now);
  const written = await insertAbsent(collections.queue, rows, compat);
  await releaseSettledPredecessors(context, held, now);
  context.engine.notify();
  return written.length;
}
