// Manual redelivery and recovery: rows back to PENDING, due now, with a fresh retry budget
// (`retryBudgetFrom` = the attempts made so far) while attempt numbers go on from the last one.
// Rows IN_FLIGHT are left to finish, and rows of subscribers that are now disabled or deleted are
// not resent: those subscribers opted out.
//
// A settled row moves from the history back to the queue: the queue's copy is inserted first (a
// crash then leaves two copies, and readers take the queue's), held by this redelivery (a holding
// lease, model/holding-leases.ts), then the history's copy is deleted by its exact incarnation
// (`attempts` and `updatedAt` as read, which the queued copy keeps in `movedBack`), and only then is
// the queued copy let go, PENDING and due (model/moves-back.ts; lease recovery finishes the move the
// same way for a redelivery whose hold ran out).
// Held, no engine sends the copy and no cancellation ends it while the history is still being
// changed: not in the middle of the delete where conditional writes are not atomic (the seam's
// `uniqueKeyClaims`, FerretDB v1), and not at all if the history's copy turns out to be newer than
// the one read (another redelivery of the row was sent and settled meanwhile): that copy is stale,
// and it is withdrawn untouched, so no attempt number is used twice and the newer history stands.
import type { Filter } from 'mongodb';
import type { CoreContext } from '../context.js';
import { claimIncarnations } from '../storage/claims.js';
import { anyOf } from '../storage/collections.js';
import { insertAbsent } from '../model/delivery-rows.js';
import { holdingLease } from '../model/holding-leases.js';
import { finishMovesBack, type Release } from '../model/moves-back.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { applyEventDeltas, chunks, EventDeltas, rowDelta } from '../model/event-counters.js';

export async function requeueRows(context: CoreContext, filter: Filter<DeliveryDocument>): Promise<string[]> {
  const { collections, compat } = context;
  const [settled, waiting] = await Promise.all([
    collections.deliveries.find({ ...filter, status: { $in: ['DELIVERED', 'FAILED'] } }).toArray(),
    // Held rows of ordered keys (nextAttemptAt null) wait for their turn; a requeue does not jump them ahead.
    collections.queue.find({ ...filter, status: 'PENDING', nextAttemptAt: { $ne: null } }, { projection: { _id: 1, subscriberId: 1, eventId: 1, attempts: 1, nextAttemptAt: 1 } }).toArray(),
  ]);
  if (settled.length + waiting.length === 0) return [];
  const subscriberIds = [...new Set([...settled, ...waiting].map((row) => row.subscriberId))];
  const enabled = new Set(
    (await collections.subscribers.find({ _id: anyOf(subscriberIds), enabled: true }, { projection: { _id: 1 } }).toArray()).map(
      (subscriber) => subscriber._id,
    ),
  );
  const back = settled.filter((row) => enabled.has(row.subscriberId));
  const again = await claimedForRequeue(context, waiting.filter((row) => enabled.has(row.subscriberId)));
  if (back.length + again.length === 0) return [];
  const now = context.now();
  const fresh = { status: 'PENDING' as const, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now };
  if (again.length > 0) {
    // Each waiting row's own attempts start its new budget. Chunked like every multi-statement write.
    // A row someone changed meanwhile (claimed, cancelled) is simply not re-dated: no counter moves.
    for (const part of chunks(again, compat.maxWriteBatch)) {
      await compat.write(() =>
        collections.queue.bulkWrite(
          part.map((row) => ({ updateOne: { filter: compat.byId<DeliveryDocument>(row._id, { status: 'PENDING', attempts: row.attempts, nextAttemptAt: row.nextAttemptAt }), update: { $set: { ...fresh, retryBudgetFrom: row.attempts } } } })),
          { ordered: false },
        ),
      );
    }
  }
  // The events' counters first, then the rows: an engine that sends a moved row reads its event
  // with the row already counted, so what it adds up from there settles the event. (A crash in
  // between leaves the event DISPATCHED and quiet, and the reconciliation recounts it.)
  const deltas = new EventDeltas();
  for (const row of back) deltas.add(row.eventId, rowDelta(row.status, 'PENDING'));
  await applyEventDeltas(collections, compat, deltas, now);
  const moved = back.length > 0 ? await moveBackToQueue(context, back, fresh) : [];
  if (moved.length < back.length) {
    // A row queued already was counted back by whoever queued it (another redelivery), or is still
    // counted open by the engine settling it: take back what was added for it. A recount here
    // would race that engine's own change of the counters, still to come.
    const undo = new EventDeltas();
    const movedIds = new Set(moved.map((row) => row._id));
    for (const row of back) if (!movedIds.has(row._id)) undo.add(row.eventId, rowDelta('PENDING', row.status));
    await applyEventDeltas(collections, compat, undo, now);
  }
  context.engine.notify();
  return [...moved, ...again].map((row) => row._id);
}

/**
 * The queued rows this requeue may change. Where conditional writes are not atomic (FerretDB v1) an
 * engine claiming a row at the same moment could have its claim written over, and send the row
 * twice; there the requeue claims each row's incarnation as the engine does, and leaves the rows an
 * engine claimed first to it (they are being sent now).
 */
async function claimedForRequeue<T extends Pick<DeliveryDocument, '_id' | 'attempts' | 'nextAttemptAt'>>(context: CoreContext, rows: T[]): Promise<T[]> {
  if (!context.compat.uniqueKeyClaims || rows.length === 0) return rows;
  return claimIncarnations(context.collections, context.compat, rows, 'requeue', context.now());
}

/**
 * How long a moved row stays held if this redelivery stops or stalls before letting it go: lease
 * recovery then finishes the move (model/moves-back.ts), without counting an attempt.
 */
const HOLD_MS = 10_000;

/** Moves settled rows back to the queue, due now; returns those moved (not those queued already or changed since read). */
async function moveBackToQueue(context: CoreContext, rows: readonly DeliveryDocument[], fresh: Release): Promise<readonly DeliveryDocument[]> {
  const { collections, compat } = context;
  const now = fresh.updatedAt;
  const token = holdingLease('requeue');
  const held = { status: 'IN_FLIGHT' as const, leaseOwner: token, leaseUntil: new Date(now.getTime() + HOLD_MS) };
  // A row queued already is left out: a concurrent redelivery, or an engine still settling the copy
  // we read (its queued copy goes only after its history copy is written). That history copy stays.
  const copies = rows.map((row) => ({ ...row, ...fresh, ...held, retryBudgetFrom: row.attempts, settledBy: null, movedBack: { by: token, attempts: row.attempts, updatedAt: row.updatedAt } }));
  const queued = new Set((await insertAbsent(collections.queue, copies, compat)).map((row) => row._id));
  const moved = await finishMovesBack(collections, compat, copies.filter((copy) => queued.has(copy._id)), fresh);
  return rows.filter((row) => moved.has(row._id));
}
