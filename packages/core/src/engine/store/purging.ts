// What the engine removes: settled events past their retention (with their rows and attempts),
// queued rows whose event is gone, and the short-lived documents of the FerretDB path (claims,
// sequence markers, write turns).
import type { AnyBulkWriteOperation, Collection, Document, Filter } from 'mongodb';
import { chunks } from '../../model/event-counters.js';
import type { StoredRetention } from '../../rules/retention-policy.js';
import type { RetentionGroup } from '../../rules/retention-windows.js';
import type { EventStatus } from '../../schemas/index.js';
import { findByIds } from '../../storage/compat.js';
import type { DeliveryDocument } from '../../storage/documents.js';
import { passTurns } from '../../ordering/sequences.js';
import { StorePart } from './part.js';

const SETTLED: EventStatus[] = ['ALL_DELIVERED', 'FAILED'];

export class PurgeStore extends StorePart {
  /**
   * Deletes finished events older than the cutoff, with their settled rows and attempts: the
   * `status_created` index finds them, the children's `eventId` indexes and then `_id` delete them;
   * three round trips in series where the store serves a `$in`, one equality per document where it
   * does not (deleteChildren). Children first, side by side, then the events: an interrupted step
   * leaves no orphans, only events it deletes next time.
   *
   * The queue is left alone: a settled event has no queued rows, except while a redelivery moves
   * its rows back (deliveries/requeue.ts reopens the event, then queues them). One that begins
   * after the events were read keeps its queued rows and its event, which is no longer settled
   * when its delete comes; only the old history and attempts of that event go.
   */
  async purgeFinishedBefore(cutoff: Date, limit = 1_000, match: RetentionGroup['match'] | Record<string, never> = {}): Promise<number> {
    const old = await this.read(() =>
      this.collections.events.find({ status: { $in: SETTLED }, createdAt: { $lt: cutoff }, ...match }, { projection: { _id: 1 } }).limit(limit).toArray(),
    );
    if (old.length === 0) return 0;
    const ids = old.map((event) => event._id);
    await Promise.all([this.deleteChildren(this.collections.attempts, ids), this.deleteChildren(this.collections.deliveries, ids)]);
    if (!this.compat.pointReads) return (await this.write(() => this.collections.events.deleteMany({ _id: { $in: ids }, status: { $in: SETTLED } }))).deletedCount;
    return this.deleteInCommands(
      this.collections.events,
      ids.map((_id) => ({ deleteOne: { filter: { _id, status: { $in: SETTLED } } } })),
    );
  }

  /**
   * The rows or attempts of these events: one `$in` the `eventId` index serves; where a `$in` is
   * matched in Go after every document is decoded (storage/compat.ts pointReads), one equality per
   * event, at most `maxWriteBatch` to a command (measured on FerretDB v1 with 12,000 events stored:
   * a step of 200 events' children and events 6.3 s by `$in`, 0.85 s by equality).
   */
  private async deleteChildren<T extends { eventId: string }>(collection: Collection<T>, eventIds: readonly string[]): Promise<void> {
    if (!this.compat.pointReads) {
      await this.write(() => collection.deleteMany({ eventId: { $in: [...eventIds] } } as Filter<T>));
      return;
    }
    await this.deleteInCommands(
      collection,
      eventIds.map((eventId) => ({ deleteMany: { filter: { eventId } as Filter<T> } })),
    );
  }

  /**
   * Deletes the queued rows (still `PENDING`) whose event the primary does not hold, and passes on
   * the turn of each ordered one; returns how many rows went. The caller found no event for them,
   * maybe on a lagging secondary (a read preference in the connection string); the primary holds
   * every event whose rows exist, as events are written before their rows. By `$in`, or one
   * equality each where `$in` is decoded in Go.
   */
  async removeRowsWithoutEvent(rows: readonly Pick<DeliveryDocument, '_id' | 'eventId' | 'orderKey' | 'orderSeq'>[], now: Date): Promise<number> {
    const eventIds = [...new Set(rows.map((row) => row.eventId))];
    const onPrimary = { projection: { _id: 1 }, readPreference: 'primary' } as const;
    const found = await findByIds(this.collections.events, this.compat, eventIds, onPrimary, true);
    const stored = new Set(found.map((event) => event._id));
    const orphans = rows.filter((row) => !stored.has(row.eventId));
    if (orphans.length === 0) return 0;
    const rowIds = orphans.map((row) => row._id);
    const queue = this.collections.queue;
    const removed = this.compat.pointReads
      ? await this.deleteInCommands(queue, rowIds.map((_id) => ({ deleteOne: { filter: { _id, status: 'PENDING' as const } } })))
      : (await this.write(() => queue.deleteMany({ _id: { $in: rowIds }, status: 'PENDING' }))).deletedCount;
    // Nothing can ever be sent for these rows: the next row of their keys may go.
    await passTurns(this, orphans, now, true);
    return removed;
  }

  /** Unordered delete statements, at most `maxWriteBatch` to a command, one command at a time. */
  private async deleteInCommands<T extends Document>(collection: Collection<T>, statements: AnyBulkWriteOperation<T>[]): Promise<number> {
    let deleted = 0;
    for (const part of chunks(statements, this.compat.maxWriteBatch)) {
      deleted += (await this.write(() => collection.bulkWrite(part, { ordered: false }))).deletedCount;
    }
    return deleted;
  }

  /** The organizations that set a retention policy of their own, with it. */
  async orgRetentionPolicies(): Promise<Map<string, StoredRetention>> {
    const states = await this.read(() => this.collections.orgState.find({ retention: { $exists: true } }, { projection: { retention: 1 } }).toArray());
    return new Map(states.flatMap((state) => (state.retention ? [[state._id, state.retention] as const] : [])));
  }

  /** Claims only matter while a reader may still hold the incarnation they name. */
  async purgeClaimsBefore(cutoff: Date): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    return (await this.write(() => this.collections.claims.deleteMany({ createdAt: { $lt: cutoff } }))).deletedCount;
  }

  /**
   * Sequence markers (ordering/sequences.ts) and write turns (storage/write-turns.ts), FerretDB v1
   * only, matter for a moment after they are taken.
   */
  async purgeSequenceMarkersBefore(cutoff: Date): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    const [markers, turns] = await Promise.all([
      this.write(() => this.collections.orderMarkers.deleteMany({ createdAt: { $lt: cutoff } })),
      this.write(() => this.collections.writeTurns.deleteMany({ createdAt: { $lt: cutoff } })),
    ]);
    return markers.deletedCount + turns.deletedCount;
  }
}
