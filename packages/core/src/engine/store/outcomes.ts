// Recording what attempts ended in: each outcome only while we still hold the row's lease. A retry
// updates the row in the queue; a settled row (DELIVERED, FAILED) is written to the history and then
// leaves the queue; then the attempt records, the counters of the events whose rows settled, and the
// next row of each ordered key whose row settled.
import { insertOrReplace, settledByUs } from '../../model/delivery-rows.js';
import { EventDeltas, rowDelta } from '../../model/event-counters.js';
import { passTurns } from '../../ordering/sequences.js';
import type { Collections } from '../../storage/collections.js';
import type { StoreCompat } from '../../storage/compat.js';
import type { AttemptDocument, DeliveryDocument } from '../../storage/documents.js';
import type { EngineCounters } from './counters.js';
import { insertAttempts, StorePart } from './part.js';

/** The recorded end of one attempt (or of a row cancelled before it). */
export interface Outcome {
  row: DeliveryDocument;
  fields: Partial<DeliveryDocument>;
  attempt?: AttemptDocument | undefined;
}

export class OutcomeStore extends StorePart {
  private readonly counters: EngineCounters;

  constructor(collections: Collections, compat: StoreCompat, counters: EngineCounters) {
    super(collections, compat);
    this.counters = counters;
  }

  /**
   * Records a batch of outcomes, each only if we still hold the row's lease: a retry updates the
   * row in the queue; a settled row (DELIVERED, FAILED) is written to the history and then leaves
   * the queue. Then the attempt records, and the counters of the events whose rows settled.
   * Every row write names this batch (`settledBy`), so when fewer rows changed than were sent (a
   * lease was taken over meanwhile) one read tells which did.
   */
  async writeOutcomes(outcomes: readonly Outcome[], now: Date): Promise<{ written: number; released: number }> {
    if (outcomes.length === 0) return { written: 0, released: 0 };
    const batch = `${outcomes[0]!.row.leaseOwner ?? ''}@${now.getTime()}:${Math.random().toString(36).slice(2, 10)}`;
    const settling = outcomes.filter((outcome) => outcome.fields.status === 'DELIVERED' || outcome.fields.status === 'FAILED');
    const retrying = outcomes.filter((outcome) => !settling.includes(outcome));
    const attempts = outcomes.flatMap((outcome) => (outcome.attempt ? [outcome.attempt] : []));
    const [settled, retried] = await Promise.all([
      this.settle(settling, batch),
      this.updateRetries(retrying, batch),
      insertAttempts(this, attempts),
    ]);
    const applied = [...settled, ...retried];
    const deltas = new EventDeltas();
    for (const { row, fields } of applied) deltas.add(row.eventId, rowDelta('IN_FLIGHT', fields.status ?? 'IN_FLIGHT'));
    const [released] = await Promise.all([
      passTurns(this, settled.map((outcome) => outcome.row), now, true),
      this.counters.apply(deltas, now),
    ]);
    return { written: applied.length, released };
  }

  /** History first, then out of the queue: a crash in between leaves a copy, never no row. */
  private async settle(outcomes: readonly Outcome[], batch: string): Promise<Outcome[]> {
    if (outcomes.length === 0) return [];
    const finished = outcomes.map(({ row, fields }) => ({
      ...row,
      ...fields,
      leaseOwner: null,
      leaseUntil: null,
      settledBy: batch,
      // The claim's time: a claimed row's `updatedAt` (engine/store/claims.ts).
      takenAt: row.updatedAt,
    }));
    await insertOrReplace(this.collections.deliveries, finished, this.compat, true);
    // One statement for the batch, each row only while our lease on it holds. On FerretDB v1 only
    // `status` reaches PostgreSQL, so it reads every row in flight: bounded by the engines' slots,
    // not by what is queued or stored, and shared by the batch (a delete by `_id` per row measured
    // slower: fan-out 0.69× on FerretDB).
    const owners = [...new Set(outcomes.map(({ row }) => row.leaseOwner ?? null))];
    const ids = outcomes.map(({ row }) => row._id);
    const removed = await this.write(() =>
      this.collections.queue.deleteMany({ _id: { $in: ids }, status: 'IN_FLIGHT', leaseOwner: { $in: owners } }),
    );
    if (removed.deletedCount === outcomes.length) return [...outcomes];
    // Some leases were taken over: those rows are someone else's now. A row settled since carries
    // the copy of the worker that settled it. Our copy of a row still queued stays, under the
    // queue's copy that readers take, until its holder's settle replaces it (it took the row later);
    // a delete of ours could remove that settle's copy where a delete is decided before it is
    // applied (FerretDB v1).
    const ours = await settledByUs(this.collections, this.compat, ids, batch);
    return outcomes.filter(({ row }) => ours.has(row._id));
  }

  /**
   * A retry updates its row by `_id`, only while our lease on it holds: each row's due time and
   * attempt are its own, so no two retries share a statement, and a `$in` beside the lease's
   * `status` would read every row in flight (FerretDB v1) for each of them.
   */
  private async updateRetries(outcomes: readonly Outcome[], batch: string): Promise<Outcome[]> {
    if (outcomes.length === 0) return [];
    const modified = await this.updateQueueInChunks(
      outcomes.map(({ row, fields }) => ({
        updateOne: { filter: this.compat.byId<DeliveryDocument>(row._id, { status: 'IN_FLIGHT', leaseOwner: row.leaseOwner ?? null }), update: { $set: { ...fields, settledBy: batch } } },
      })),
    );
    if (modified === outcomes.length) return [...outcomes];
    const stored = await this.read(() =>
      this.collections.queue.find({ _id: { $in: outcomes.map((outcome) => outcome.row._id) } }, { projection: { _id: 1, settledBy: 1 } }).toArray(),
    );
    const settledBy = new Map(stored.map((row) => [row._id, row.settledBy]));
    return outcomes.filter(({ row }) => settledBy.get(row._id) === batch);
  }
}
