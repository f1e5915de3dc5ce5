// Manual redelivery and recovery: rows back to PENDING, due now, with a fresh retry budget
// (`retryBudgetFrom` = the attempts made so far) while attempt numbers go on from the last one. Settled rows move back from the history to the
// queue. Rows IN_FLIGHT are left to finish, and rows of subscribers that are now disabled or
// deleted are not resent: those subscribers opted out.
import type { Filter } from 'mongodb';
import type { CoreContext } from '../context.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { applyEventDeltas, chunks, EventDeltas, recountEvents, rowDelta } from './event-counters.js';

export async function requeueRows(context: CoreContext, filter: Filter<DeliveryDocument>): Promise<string[]> {
  const { collections, compat } = context;
  const [settled, waiting] = await Promise.all([
    collections.deliveries.find({ ...filter, status: { $in: ['DELIVERED', 'FAILED'] } }).toArray(),
    // Held rows of ordered keys (nextAttemptAt null) wait for their turn; a requeue does not jump them ahead.
    collections.queue.find({ ...filter, status: 'PENDING', nextAttemptAt: { $ne: null } }, { projection: { _id: 1, subscriberId: 1, eventId: 1, attempts: 1 } }).toArray(),
  ]);
  const subscriberIds = [...new Set([...settled, ...waiting].map((row) => row.subscriberId))];
  const enabled = new Set(
    (await collections.subscribers.find({ _id: { $in: subscriberIds }, enabled: true }, { projection: { _id: 1 } }).toArray()).map(
      (subscriber) => subscriber._id,
    ),
  );
  const back = settled.filter((row) => enabled.has(row.subscriberId));
  const again = waiting.filter((row) => enabled.has(row.subscriberId));
  if (back.length + again.length === 0) return [];
  const now = context.now();
  const fresh = { status: 'PENDING' as const, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now };
  let exact = true;
  if (again.length > 0) {
    // Each waiting row's own attempts start its new budget. Chunked like every multi-statement write.
    for (const part of chunks(again, compat.maxWriteBatch)) {
      const result = await compat.write(() =>
        collections.queue.bulkWrite(
          part.map((row) => ({ updateOne: { filter: { _id: row._id, status: 'PENDING' as const, attempts: row.attempts }, update: { $set: { ...fresh, retryBudgetFrom: row.attempts } } } })),
          { ordered: false },
        ),
      );
      if (result.modifiedCount !== part.length) exact = false;
    }
  }
  if (back.length > 0) {
    try {
      await compat.write(() => collections.queue.insertMany(back.map((row) => ({ ...row, ...fresh, retryBudgetFrom: row.attempts, settledBy: null })), { ordered: false }));
    } catch {
      exact = false; // some row is already queued again (a concurrent redelivery): counted afresh below
    }
    await compat.write(() => collections.deliveries.deleteMany({ _id: { $in: back.map((row) => row._id) } }));
  }
  const deltas = new EventDeltas();
  for (const row of back) deltas.add(row.eventId, rowDelta(row.status, 'PENDING'));
  if (exact) await applyEventDeltas(collections, compat, deltas, now);
  else await recountEvents(collections, compat, [...new Set([...back, ...again].map((row) => row.eventId))], now);
  context.engine.notify();
  return [...back, ...again].map((row) => row._id);
}
