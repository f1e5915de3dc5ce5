// Cancelling the rows of a subscriber that was disabled or deleted.
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { claimIncarnations } from '../storage/claims.js';
import { applyEventDeltas, EventDeltas, rowDelta } from './event-counters.js';
import { insertOrReplace, settledByUs } from './delivery-rows.js';
import { holdingLease } from './holding-leases.js';

/** Rows cancelled per round (at most the store's write batch); a larger backlog takes several. */
const PAGE = 1_000;

/**
 * Disabling or deleting a subscriber cancels its rows that no attempt has claimed yet (PENDING):
 * they become FAILED with `reason` as lastError and move to the history, and their events'
 * counters follow. A row that is IN_FLIGHT is left to finish its attempt. The rows are taken first,
 * as the engine claims them, so each row is cancelled by exactly one writer and counted once: on
 * MongoDB by one conditional update that leases them to this cancellation (a crash leaves them to
 * lease recovery, and the engine then cancels them itself); where conditional writes are not atomic
 * (the seam's `uniqueKeyClaims`, FerretDB v1) by claiming their incarnations. A row the engine
 * claimed first stays with the engine. Should a taken row still be queued after our delete (its
 * lease ran out meanwhile), our copy stays in the history, where readers take the queue's copy
 * over it, until the settle of whoever holds the row replaces it (`insertOrReplace`: that writer
 * took the row later). Deleting it instead could remove the copy that settle has just written,
 * wherever a delete by filter is decided before it is applied (FerretDB v1).
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
    const token = holdingLease('cancel');
    const pending = compat.uniqueKeyClaims ? await claimIncarnations(collections, compat, read, token, now) : await leaseForCancel(collections, compat, read, token, now);
    // Every row read was claimed by someone else meanwhile: the engine cancels what it claims.
    if (pending.length === 0) return cancelled;
    const failed = pending.map((row) => ({ ...row, status: 'FAILED' as const, lastError: reason, nextAttemptAt: null, leaseOwner: null, leaseUntil: null, settledBy: token, updatedAt: now, takenAt: now }));
    await insertOrReplace(collections.deliveries, failed, compat);
    const ids = pending.map((row) => row._id);
    const stillTaken = compat.uniqueKeyClaims ? { status: 'PENDING' as const } : { status: 'IN_FLIGHT' as const, leaseOwner: token };
    const removed = await compat.write(() => collections.queue.deleteMany({ _id: { $in: ids }, ...stillTaken }));
    let done = pending;
    if (removed.deletedCount < pending.length) {
      const ours = await settledByUs(collections, compat, ids, token);
      done = pending.filter((row) => ours.has(row._id));
    }
    const deltas = new EventDeltas();
    for (const row of done) deltas.add(row.eventId, rowDelta('PENDING', 'FAILED'));
    await applyEventDeltas(collections, compat, deltas, now);
    cancelled += done.length;
    if (read.length < page) return cancelled;
  }
}

/** Longer than a page's two writes, each ended by the driver's socket timeout (60 s by default). */
const CANCEL_LEASE_MS = 120_000;

/**
 * The rows still as read, leased to this cancellation by one conditional update (an `$or` of each
 * row's expected state, as the engine's claim): the engine can no longer claim them, and a row it
 * claimed first is not among them.
 */
async function leaseForCancel(collections: Collections, compat: StoreCompat, rows: readonly DeliveryDocument[], token: string, now: Date): Promise<DeliveryDocument[]> {
  const filters = rows.map((row) => compat.byId<DeliveryDocument>(row._id, { status: 'PENDING', attempts: row.attempts, nextAttemptAt: row.nextAttemptAt }));
  const lease = { status: 'IN_FLIGHT' as const, leaseOwner: token, leaseUntil: new Date(now.getTime() + CANCEL_LEASE_MS), updatedAt: now };
  const { modifiedCount } = await compat.write(() => collections.queue.updateMany({ $or: filters }, { $set: lease }));
  if (modifiedCount === rows.length) return [...rows];
  const leased = await compat.retry(() => collections.queue.find({ _id: { $in: rows.map((row) => row._id) }, leaseOwner: token }, { projection: { _id: 1 } }).toArray());
  const ids = new Set(leased.map((row) => row._id));
  return rows.filter((row) => ids.has(row._id));
}
