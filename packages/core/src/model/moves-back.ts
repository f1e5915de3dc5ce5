// The second half of moving a settled row back from the history to the queue (a redelivery,
// deliveries/requeue.ts): its queued copy is in place and held (model/holding-leases.ts), carrying in
// `heldFrom` the incarnation of the history copy it was made from. Finishing the move deletes that
// history copy, withdraws the queued copy if the history turned out newer than what was read, and
// lets the others go. The redelivery finishes its own moves; lease recovery finishes those of a
// redelivery whose hold ran out (it stopped or stalled), so a stale copy is never let go whatever
// the hold's length. Each step is conditional, so both may finish the same move.
import type { Collections } from '../storage/collections.js';
import { anyOf } from '../storage/collections.js';
import { findByIds, type StoreCompat } from '../storage/compat.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { chunks } from './event-counters.js';

/** A queued copy held by a redelivery, with the history copy it was moved from. */
export interface HeldMove {
  _id: string;
  leaseOwner: string;
  heldFrom: NonNullable<DeliveryDocument['heldFrom']>;
}

/** What a queued copy is let go as: PENDING and due, its hold and its origin gone. */
export type Release = Pick<DeliveryDocument, 'status' | 'nextAttemptAt' | 'leaseOwner' | 'leaseUntil' | 'updatedAt'>;

/** Finishes the moves; returns the ids of the rows moved (not those withdrawn as stale). */
export async function finishMovesBack(collections: Collections, compat: StoreCompat, moves: readonly HeldMove[], release: Release): Promise<Set<string>> {
  let deleted = 0;
  for (const part of chunks(moves, compat.maxWriteBatch)) {
    const result = await compat.write(() =>
      collections.deliveries.bulkWrite(
        part.map((move) => ({ deleteOne: { filter: { _id: move._id, attempts: move.heldFrom.attempts, updatedAt: move.heldFrom.updatedAt } } })),
        { ordered: false },
      ),
    );
    deleted += result.deletedCount;
  }
  let stale = new Set<string>();
  if (deleted < moves.length) {
    // A history copy still there is not the one read, so the queued copy made from ours is stale.
    // (Where another finisher of the same move deleted ours first, nothing is there.)
    stale = new Set((await findByIds(collections.deliveries, compat, moves.map((move) => move._id), { projection: { _id: 1 } })).map((row) => row._id));
  }
  const moved = new Set<string>();
  for (const [leaseOwner, held] of byLease(moves)) {
    const withdrawn = held.filter((move) => stale.has(move._id)).map((move) => move._id);
    const kept = held.filter((move) => !stale.has(move._id)).map((move) => move._id);
    if (withdrawn.length > 0) await compat.write(() => collections.queue.deleteMany({ _id: anyOf(withdrawn), status: 'IN_FLIGHT', leaseOwner }));
    if (kept.length > 0) {
      await compat.write(() => collections.queue.updateMany({ _id: anyOf(kept), status: 'IN_FLIGHT', leaseOwner }, { $set: release, $unset: { heldFrom: '' } }));
    }
    for (const id of kept) moved.add(id);
  }
  return moved;
}

function byLease(moves: readonly HeldMove[]): Map<string, HeldMove[]> {
  const groups = new Map<string, HeldMove[]>();
  for (const move of moves) groups.set(move.leaseOwner, [...(groups.get(move.leaseOwner) ?? []), move]);
  return groups;
}
