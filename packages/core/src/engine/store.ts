// The engine's database edge: claims, outcome writes, event re-aggregation and the maintenance
// sweeps. Every state change is a single-document update conditioned on the state it expects
// (status, attempts, lease owner), which MongoDB applies atomically per document; that is what
// makes claims exclusive across processes — no transactions, no findAndModify.
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { aggregateEventStatus } from '../deliveries/status.js';
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';
import { collectionsFor, type Collections } from '../storage/collections.js';
import type { DeliveryDocument, EventDocument, SubscriberDocument } from '../storage/documents.js';

export interface RowWrite {
  row: DeliveryDocument;
  fields: Partial<DeliveryDocument>;
}

export type SubscriberForSend = Pick<SubscriberDocument, '_id' | 'enabled' | 'targetUrl' | 'timeoutMs' | 'secret' | 'previousSecrets'>;

export class DeliveryStore {
  readonly collections: Collections;

  constructor(db: Db, prefix: string) {
    this.collections = collectionsFor(db, prefix);
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.collections.deliveries.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'engine_due' }),
      this.collections.deliveries.createIndex({ status: 1, leaseUntil: 1 }, { name: 'engine_lease' }),
    ]);
  }

  /** PENDING rows among `ids` that are due. */
  findDueByIds(ids: readonly string[], now: Date): Promise<DeliveryDocument[]> {
    return this.collections.deliveries.find({ _id: { $in: [...ids] }, status: 'PENDING', nextAttemptAt: { $lte: now } }).toArray();
  }

  /** The oldest due PENDING rows, whoever wrote them. */
  findDue(now: Date, limit: number, excludeSubscribers: readonly string[]): Promise<DeliveryDocument[]> {
    const filter = excludeSubscribers.length > 0 ? { subscriberId: { $nin: [...excludeSubscribers] } } : {};
    return this.collections.deliveries
      .find({ status: 'PENDING', nextAttemptAt: { $lte: now }, ...filter })
      .sort({ nextAttemptAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Claims rows read a moment ago: each update matches only if the row is still PENDING with the
   * attempts count we read, so exactly one claimer wins it and our copy of the row is current.
   * Returns the rows we won.
   */
  async claim(rows: readonly DeliveryDocument[], owner: string, now: Date, leaseMs: (row: DeliveryDocument) => number): Promise<DeliveryDocument[]> {
    if (rows.length === 0) return [];
    const token = `${owner}/${now.getTime()}/${Math.random().toString(36).slice(2)}`;
    const claimed = rows.map((row) => ({ ...row, status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: token, leaseUntil: new Date(now.getTime() + leaseMs(row)) }));
    const result = await this.collections.deliveries.bulkWrite(
      claimed.map((row) => ({
        updateOne: {
          filter: { _id: row._id, status: 'PENDING', attempts: row.attempts, nextAttemptAt: { $lte: now } },
          update: { $set: { status: 'IN_FLIGHT', leaseOwner: token, leaseUntil: row.leaseUntil, updatedAt: now } },
        },
      })),
      { ordered: false },
    );
    if (result.modifiedCount === rows.length) return claimed;
    // Someone else won some rows: ask which ones carry our token.
    const won = await this.collections.deliveries
      .find({ _id: { $in: rows.map((row) => row._id) }, leaseOwner: token }, { projection: { _id: 1 } })
      .toArray();
    const wonIds = new Set(won.map((row) => row._id));
    return claimed.filter((row) => wonIds.has(row._id));
  }

  async subscribers(ids: readonly string[]): Promise<Map<string, SubscriberForSend>> {
    const found = await this.collections.subscribers
      .find(
        { _id: { $in: [...ids] } },
        { projection: { _id: 1, enabled: 1, targetUrl: 1, timeoutMs: 1, secret: 1, previousSecrets: 1 } },
      )
      .toArray();
    return new Map(found.map((subscriber) => [subscriber._id, subscriber as SubscriberForSend]));
  }

  /** Writes outcomes, each only if we still hold the row's lease. Returns how many stuck. */
  async writeOutcomes(writes: readonly RowWrite[]): Promise<number> {
    if (writes.length === 0) return 0;
    const operations: AnyBulkWriteOperation<DeliveryDocument>[] = writes.map(({ row, fields }) => ({
      updateOne: { filter: { _id: row._id, status: 'IN_FLIGHT', leaseOwner: row.leaseOwner ?? null }, update: { $set: fields } },
    }));
    const result = await this.collections.deliveries.bulkWrite(operations, { ordered: false });
    return result.modifiedCount;
  }

  /**
   * Re-aggregates the status of events whose rows just became terminal: one read of their rows,
   * then one conditional write per event whose status changes. A PENDING event (fan-out not
   * finished) is left alone. Concurrent writers converge: whoever writes last read last.
   */
  async refreshEvents(eventIds: readonly string[], now: Date): Promise<void> {
    if (eventIds.length === 0) return;
    const rows = await this.collections.deliveries
      .find({ eventId: { $in: [...eventIds] } }, { projection: { eventId: 1, status: 1 } })
      .toArray();
    const statusesByEvent = new Map<string, DeliveryStatus[]>();
    for (const row of rows) {
      const list = statusesByEvent.get(row.eventId) ?? [];
      list.push(row.status);
      statusesByEvent.set(row.eventId, list);
    }
    const operations: AnyBulkWriteOperation<EventDocument>[] = [];
    for (const [eventId, statuses] of statusesByEvent) {
      const next = aggregateEventStatus(statuses);
      if (next === 'DISPATCHED') continue; // rows still in progress: nothing can have changed
      const from: EventStatus[] = ['DISPATCHED', next === 'FAILED' ? 'ALL_DELIVERED' : 'FAILED'];
      operations.push({ updateOne: { filter: { _id: eventId, status: { $in: from } }, update: { $set: { status: next, updatedAt: now } } } });
    }
    if (operations.length > 0) await this.collections.events.bulkWrite(operations, { ordered: false });
  }

  /** Expired leases back to PENDING, due now (DECISIONS §7: never silently FAILED). */
  async recoverExpiredLeases(now: Date): Promise<number> {
    const result = await this.collections.deliveries.updateMany(
      { status: 'IN_FLIGHT', leaseUntil: { $lt: now } },
      {
        $set: {
          status: 'PENDING',
          nextAttemptAt: now,
          leaseOwner: null,
          leaseUntil: null,
          lastError: 'the attempt was interrupted (worker lease expired); it will be retried',
          updatedAt: now,
        },
      },
    );
    return result.modifiedCount;
  }

  /** Deletes finished events older than the cutoff, with their rows. Rows first: no orphans. */
  async purgeFinishedBefore(cutoff: Date, limit = 1_000): Promise<number> {
    const old = await this.collections.events
      .find({ status: { $in: ['ALL_DELIVERED', 'FAILED'] }, createdAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (old.length === 0) return 0;
    const ids = old.map((event) => event._id);
    await this.collections.deliveries.deleteMany({ eventId: { $in: ids } });
    const result = await this.collections.events.deleteMany({ _id: { $in: ids }, status: { $in: ['ALL_DELIVERED', 'FAILED'] } });
    return result.deletedCount;
  }
}
