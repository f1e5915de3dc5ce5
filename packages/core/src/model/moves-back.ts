// The second half of moving a settled row back from the history to the queue (a redelivery,
// deliveries/requeue.ts). The queued copy is in place, held (model/holding-leases.ts), and carries
// `movedBack`: the redelivery's lease and the incarnation of the history copy it was made from.
// Finishing the move deletes that history copy, withdraws the queued copy if the history turned out
// newer than what was read, and lets the others go. The redelivery finishes its own moves; lease
// recovery finishes those of a redelivery whose hold ran out (it stopped or stalled), so a stale copy
// is never let go whatever the hold's length. Each step is conditional, so both may finish one move.
import type { Collections } from '../storage/collections.js';
import { anyOf } from '../storage/collections.js';
import { findByIds, type StoreCompat } from '../storage/compat.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { chunks } from './event-counters.js';

/** A queued copy a redelivery moved back and still holds. */
export interface HeldMove {
  _id: string;
  movedBack: NonNullable<DeliveryDocument['movedBack']>;
}

/** What a queued copy is let go as: PENDING and due, no longer held. */
export type Release = Pick<DeliveryDocument, 'status' | 'nextAttemptAt' | 'leaseOwner' | 'leaseUntil' | 'updatedAt'>;

/** Finishes the moves; returns the ids of the rows moved (not those withdrawn as stale). */
export async function finishMovesBack(collections: Collections, compat: StoreCompat, moves: readonly HeldMove[], release: Release): Promise<Set<string>> {
  let deleted = 0;
  for (const part of chunks(moves, compat.maxWriteBatch)) {
    const result = await compat.write(() =>
      collections.deliveries.bulkWrite(
        part.map(({ _id, movedBack }) => ({ deleteOne: { filter: { _id, attempts: movedBack.attempts, updatedAt: movedBack.updatedAt } } })),
        { ordered: false },
      ),
    );
    deleted += result.deletedCount;
  }
  let stale = new Set<string>();
  if (deleted < moves.length) {
    // A history copy still there is not the one read. Written from this very move's copy (another
    // finisher let it go, and it was sent or cancelled since), it shows the move happened. Any other
    // copy overtook the one read: the queued copy made from that one is stale.
    const by = new Map(moves.map((move) => [move._id, move.movedBack.by]));
    const present = await findByIds<DeliveryDocument, Pick<DeliveryDocument, '_id' | 'movedBack'>>(collections.deliveries, compat, [...by.keys()], {
      projection: { _id: 1, movedBack: 1 },
    });
    stale = new Set(present.filter((row) => row.movedBack?.by !== by.get(row._id)).map((row) => row._id));
  }
  const moved = new Set<string>();
  for (const [leaseOwner, held] of byLease(moves)) {
    const withdrawn = held.filter((move) => stale.has(move._id)).map((move) => move._id);
    const kept = held.filter((move) => !stale.has(move._id)).map((move) => move._id);
    if (withdrawn.length > 0) await compat.write(() => collections.queue.deleteMany({ _id: anyOf(withdrawn), status: 'IN_FLIGHT', leaseOwner }));
    if (kept.length > 0) await compat.write(() => collections.queue.updateMany({ _id: anyOf(kept), status: 'IN_FLIGHT', leaseOwner }, { $set: release }));
    for (const id of kept) moved.add(id);
  }
  return moved;
}

function byLease(moves: readonly HeldMove[]): Map<string, HeldMove[]> {
  const groups = new Map<string, HeldMove[]>();
  for (const move of moves) {
    const group = groups.get(move.movedBack.by);
    if (group) group.push(move);
    else groups.set(move.movedBack.by, [move]);
  }
  return groups;
}
