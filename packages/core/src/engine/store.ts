// The engine's database edge: claims, outcome writes, event re-aggregation and the maintenance
// sweeps. No transactions and no findAndModify (DECISIONS §8).
//
// Claim exclusivity rests on a unique key, not on update atomicity: to claim a row, a worker
// inserts a claim document whose _id names the row's current PENDING incarnation
// (deliveryId : attempts : nextAttemptAt). Every transition back to PENDING (retry, lease
// recovery, redelivery) changes attempts or nextAttemptAt, so each incarnation can be claimed
// exactly once. A duplicate _id is rejected by MongoDB's unique _id index and by FerretDB's
// SQLite primary key alike — measured here, FerretDB v1 does not make a conditional update
// atomic against a concurrent one (two workers both "won" the same rows), so conditional
// updates alone would double-deliver on it. The conditional update that follows the insert
// only records IN_FLIGHT and the lease (and loses to a concurrent cancel of the row).
import type { AnyBulkWriteOperation, Collection, Db, MongoBulkWriteError } from 'mongodb';
import { aggregateEventStatus } from '../deliveries/status.js';
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';
import { collectionsFor, type Collections } from '../storage/collections.js';
import type { DeliveryDocument, EventDocument, SubscriberDocument } from '../storage/documents.js';

export interface RowWrite {
  row: DeliveryDocument;
  fields: Partial<DeliveryDocument>;
}

export type SubscriberForSend = Pick<SubscriberDocument, '_id' | 'enabled' | 'targetUrl' | 'timeoutMs' | 'secret' | 'previousSecrets'>;

export interface ClaimDocument {
  /** `${deliveryId}:${attempts}:${nextAttemptAt ms}` — one per claimable incarnation of a row. */
  _id: string;
  deliveryId: string;
  owner: string;
  createdAt: Date;
}

export function claimKey(row: Pick<DeliveryDocument, '_id' | 'attempts' | 'nextAttemptAt'>): string {
  return `${row._id}:${row.attempts}:${row.nextAttemptAt?.getTime() ?? 0}`;
}

const DUPLICATE_KEY = 11000;

/**
 * Runs async sections one at a time. FerretDB v1's SQLite backend was seen to deadlock for good
 * when one client sent two multi-document updates to the same collection at once (the
 * benchmark's claim and outcome writes); every update this store sends goes through one lane.
 * Claims and outcomes are batched, so the lane costs little; on MongoDB it is merely unneeded.
 */
class WriteLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section, section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class DeliveryStore {
  readonly collections: Collections;
  readonly claims: Collection<ClaimDocument>;
  private readonly lane = new WriteLane();

  constructor(db: Db, prefix: string) {
    this.collections = collectionsFor(db, prefix);
    this.claims = db.collection<ClaimDocument>(`${prefix}delivery_claims`);
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.collections.deliveries.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'engine_due' }),
      this.collections.deliveries.createIndex({ status: 1, leaseUntil: 1 }, { name: 'engine_lease' }),
      this.claims.createIndex({ createdAt: 1 }, { name: 'engine_claims_age' }),
    ]);
  }

  /** Inserts one claim per row; returns the rows whose claim this call inserted. */
  private async insertClaims(rows: readonly DeliveryDocument[], token: string, now: Date): Promise<DeliveryDocument[]> {
    const documents = rows.map((row) => ({ _id: claimKey(row), deliveryId: row._id, owner: token, createdAt: now }));
    try {
      await this.lane.run(() => this.claims.insertMany(documents, { ordered: false }));
      return [...rows];
    } catch (error) {
      const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
      const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      if (list.length === 0 || list.some((writeError) => writeError.code !== DUPLICATE_KEY)) throw error;
      const lost = new Set(list.map((writeError) => writeError.index));
      return rows.filter((_row, index) => !lost.has(index));
    }
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
    const won = await this.insertClaims(rows, token, now);
    if (won.length === 0) return [];
    return this.markInFlight(won, token, now, leaseMs);
  }

  /**
   * One updateMany for the batch (an $or of each row's expected state) rather than one update
   * per row: FerretDB v1 scans the collection once per update statement. The batch shares the
   * longest of its rows' leases, which only delays recovery of a crashed attempt a little.
   */
  private async markInFlight(rows: readonly DeliveryDocument[], token: string, now: Date, leaseMs: (row: DeliveryDocument) => number): Promise<DeliveryDocument[]> {
    const leaseUntil = new Date(now.getTime() + Math.max(...rows.map(leaseMs)));
    const claimed = rows.map((row) => ({ ...row, status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: token, leaseUntil }));
    const result = await this.lane.run(() =>
      this.collections.deliveries.updateMany(
        { $or: rows.map((row) => ({ _id: row._id, status: 'PENDING' as DeliveryStatus, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt })) },
        { $set: { status: 'IN_FLIGHT', leaseOwner: token, leaseUntil, updatedAt: now } },
      ),
    );
    if (result.modifiedCount === rows.length) return claimed;
    // Some rows changed since we read them (cancelled, redelivered): keep the ones we marked.
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
    const result = await this.lane.run(() => this.collections.deliveries.bulkWrite(operations, { ordered: false }));
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
    if (operations.length > 0) await this.lane.run(() => this.collections.events.bulkWrite(operations, { ordered: false }));
  }

  /** Expired leases back to PENDING, due now (DECISIONS §7: never silently FAILED). */
  async recoverExpiredLeases(now: Date): Promise<number> {
    const result = await this.lane.run(() => this.collections.deliveries.updateMany(
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
    ));
    return result.modifiedCount;
  }

  /**
   * Rows stranded by a worker that died between inserting its claim and marking the row
   * IN_FLIGHT: the row is still PENDING, but its incarnation's claim key is taken, so nobody can
   * claim it. Giving such a row a new `nextAttemptAt` makes a new incarnation (a new claim key).
   * Only rows overdue by `staleMs` are looked at (the oldest first, where strays sort), and only
   * when their claim is as old, so a live claimer mid-way is never disturbed.
   */
  async recoverStrandedClaims(now: Date, staleMs: number, limit = 500): Promise<number> {
    const cutoff = new Date(now.getTime() - staleMs);
    const overdue = await this.collections.deliveries
      .find({ status: 'PENDING', nextAttemptAt: { $lt: cutoff } })
      .sort({ nextAttemptAt: 1 })
      .limit(limit)
      .toArray();
    if (overdue.length === 0) return 0;
    const claims = await this.claims
      .find({ _id: { $in: overdue.map(claimKey) }, createdAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .toArray();
    const stale = new Set(claims.map((claim) => claim._id));
    const stranded = overdue.filter((row) => stale.has(claimKey(row)));
    if (stranded.length === 0) return 0;
    const result = await this.lane.run(() =>
      this.collections.deliveries.updateMany(
        { $or: stranded.map((row) => ({ _id: row._id, status: 'PENDING' as DeliveryStatus, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt })) },
        { $set: { nextAttemptAt: now, updatedAt: now } },
      ),
    );
    return result.modifiedCount;
  }

  /**
   * Events left DISPATCHED although every row is terminal: a worker died between writing its
   * outcomes and re-aggregating their events. Walks DISPATCHED events not touched recently, a page
   * at a time from `after` (a cursor the caller keeps), and re-aggregates them.
   */
  async reconcileEvents(now: Date, quietMs: number, after: Date, limit = 200): Promise<{ checked: number; cursor: Date }> {
    const events = await this.collections.events
      .find({ status: 'DISPATCHED', updatedAt: { $gt: after, $lt: new Date(now.getTime() - quietMs) } }, { projection: { _id: 1, updatedAt: 1 } })
      .sort({ updatedAt: 1 })
      .limit(limit)
      .toArray();
    await this.refreshEvents(events.map((event) => event._id), now);
    const last = events.at(-1);
    // A short page means we reached the end: start over next time.
    return { checked: events.length, cursor: events.length === limit && last ? last.updatedAt : new Date(0) };
  }

  /** Claims only matter while a reader may still hold the incarnation they name. */
  async purgeClaimsBefore(cutoff: Date): Promise<number> {
    return (await this.claims.deleteMany({ createdAt: { $lt: cutoff } })).deletedCount;
  }

  /** Deletes finished events older than the cutoff, with their rows. Rows first: no orphans. */
  async purgeFinishedBefore(cutoff: Date, limit = 1_000): Promise<number> {
    const old = await this.collections.events
      .find({ status: { $in: ['ALL_DELIVERED', 'FAILED'] }, createdAt: { $lt: cutoff } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    if (old.length === 0) return 0;
    const ids = old.map((event) => event._id);
    await this.lane.run(() => this.collections.deliveries.deleteMany({ eventId: { $in: ids } }));
    const result = await this.lane.run(() => this.collections.events.deleteMany({ _id: { $in: ids }, status: { $in: ['ALL_DELIVERED', 'FAILED'] } }));
    return result.deletedCount;
  }
}
