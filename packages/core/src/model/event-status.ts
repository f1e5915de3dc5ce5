// Cancelling the rows of a subscriber that was disabled or deleted.
import { randomUUID } from 'node:crypto';
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import { claimIncarnations } from '../storage/claims.js';
import { applyEventDeltas, EventDeltas, rowDelta } from './event-counters.js';
import { insertOrReplace } from './delivery-rows.js';

/** Rows cancelled per round (at most the store's write batch); a larger backlog takes several. */
const PAGE = 1_000;

/**
 * Disabling or deleting a subscriber cancels its rows that no attempt has claimed yet (PENDING):
 * they become FAILED with `reason` as lastError and move to the history, and their events'
 * counters follow. A row that is IN_FLIGHT is left to finish its attempt. A row the engine claims
 * between our read and our delete stays with the engine, whose settle replaces our copy; on MongoDB
 * our copy is taken back at once. Where conditional writes are not atomic (the seam's
 * `uniqueKeyClaims`, FerretDB v1) the rows' incarnations are claimed first, as the engine claims
 * them, so the engine cannot take a row we cancel; and our copy of a row we could not delete is
 * left for the engine's settle to replace, because a delete by filter there is decided first and
 * applied by `_id` after, and could remove the copy that settle has just written.
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
    const read = await compat.retry(() => collections.queue.find({ subscriberId, status: 'PENDING' }).limit(page).toArray());
    if (read.length === 0) return cancelled;
    const token = `cancel:${randomUUID()}`;
    const pending = compat.uniqueKeyClaims ? await claimIncarnations(collections, compat, read, token, now) : read;
    // Every row read was claimed by someone else meanwhile: the engine cancels what it claims.
    if (pending.length === 0) return cancelled;
    const failed = pending.map((row) => ({ ...row, status: 'FAILED' as const, lastError: reason, nextAttemptAt: null, settledBy: token, updatedAt: now }));
    await insertOrReplace(collections.deliveries, failed, compat);
    const ids = pending.map((row) => row._id);
    const removed = await compat.write(() => collections.queue.deleteMany({ _id: { $in: ids }, status: 'PENDING' }));
    let done = pending;
    if (removed.deletedCount < pending.length) {
      const claimed = new Set((await collections.queue.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((row) => row._id));
      if (!compat.uniqueKeyClaims) await compat.write(() => collections.deliveries.deleteMany({ _id: { $in: [...claimed] }, settledBy: token }));
      done = pending.filter((row) => !claimed.has(row._id));
    }
    const deltas = new EventDeltas();
    for (const row of done) deltas.add(row.eventId, rowDelta('PENDING', 'FAILED'));
    await applyEventDeltas(collections, compat, deltas, now);
    cancelled += done.length;
    if (read.length < page) return cancelled;
  }
}
