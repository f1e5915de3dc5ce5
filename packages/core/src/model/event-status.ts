// Cancelling the rows of a subscriber that was disabled or deleted.
import { randomUUID } from 'node:crypto';
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import { applyEventDeltas, EventDeltas, rowDelta } from './event-counters.js';
import { insertOrReplace } from './delivery-rows.js';

/** Rows cancelled per round (at most the store's write batch); a larger backlog takes several. */
const PAGE = 1_000;

/**
 * Disabling or deleting a subscriber cancels its rows that no attempt has claimed yet (PENDING):
 * they become FAILED with `reason` as lastError and move to the history, and their events'
 * counters follow. A row that is IN_FLIGHT is left to finish its attempt. A row the engine claims
 * between our read and our delete stays with the engine (our copy is taken back).
 */
export async function cancelPendingDeliveries(
  collections: Collections,
  compat: StoreCompat,
  subscriberId: string,
  reason: string,
  now: Date,
): Promise<number> {
  let cancelled = 0;
  const page = Math.min(PAGE, compat.maxWriteBatch);
  for (;;) {
    const pending = await compat.retry(() => collections.queue.find({ subscriberId, status: 'PENDING' }).limit(page).toArray());
    if (pending.length === 0) return cancelled;
    const token = `cancel:${randomUUID()}`;
    const failed = pending.map((row) => ({ ...row, status: 'FAILED' as const, lastError: reason, nextAttemptAt: null, settledBy: token, updatedAt: now }));
    await insertOrReplace(collections.deliveries, failed, compat);
    const ids = pending.map((row) => row._id);
    const removed = await compat.write(() => collections.queue.deleteMany({ _id: { $in: ids }, status: 'PENDING' }));
    let done = pending;
    if (removed.deletedCount < pending.length) {
      const claimed = new Set((await collections.queue.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((row) => row._id));
      await compat.write(() => collections.deliveries.deleteMany({ _id: { $in: [...claimed] }, settledBy: token }));
      done = pending.filter((row) => !claimed.has(row._id));
    }
    const deltas = new EventDeltas();
    for (const row of done) deltas.add(row.eventId, rowDelta('PENDING', 'FAILED'));
    await applyEventDeltas(collections, compat, deltas, now);
    cancelled += done.length;
    if (pending.length < page) return cancelled;
  }
}
