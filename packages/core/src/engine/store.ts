// The engine's database edge: the due-row poll, claims, outcome writes and the maintenance sweeps.
// Written for MongoDB's single-document atomicity; what FerretDB v1 needs besides comes from the
// compatibility seam (storage/compat.ts) and nowhere else.
//
// Claims: a conditional update per batch — an `$or` of each row's expected state (PENDING, the
// attempts and nextAttemptAt we read) — so each row goes to exactly one claimer, which then owns it
// under its lease token. Where updates are not atomic (FerretDB v1) a claimer first inserts one
// claim document per row whose `_id` names that incarnation of the row; the unique `_id` decides.
import type { StoredRetention } from '../retention/policy.js';
import type { RetentionGroup } from './retention.js';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { DeferredEventCounters } from '../deliveries/deferred-event-counters.js';
import { applyEventDeltas, EventDeltas, recountEvents, rowDelta } from '../deliveries/event-counters.js';
import { insertOrReplace } from '../deliveries/rows.js';
import type { DeliveryStatus } from '../schemas/index.js';
import { claimIncarnations } from '../storage/claims.js';
import { claimKey, collectionsFor, duplicateIndexes, type Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import type { AttemptDocument, ClaimDocument, DeliveryDocument, EventDocument, SubscriberHealthDocument } from '../storage/documents.js';
import { afterSettle, doneId, lowestPerKey, stalledHeads } from '../ordering/keys.js';
import { releaseRows } from '../ordering/sequences.js';
import type { Breaker } from './breaker.js';
import type { SubscriberForSend, WrittenCounters } from './fast-path.js';

/** The recorded end of one attempt (or of a row cancelled before it). */
export interface Outcome {
  row: DeliveryDocument;
  fields: Partial<DeliveryDocument>;
  attempt?: AttemptDocument | undefined;
}

const SEND_PROJECTION = { _id: 1, enabled: 1, targetUrl: 1, timeoutMs: 1, secret: 1, previousSecrets: 1, maxConcurrency: 1, rateLimitPerSecond: 1, egressProxy: 1 } as const;
const INTERRUPTED = 'the attempt was interrupted (the worker holding its lease stopped); it will be retried';

export class DeliveryStore {
  readonly collections: Collections;
  readonly claims: Collection<ClaimDocument>;
  readonly compat: StoreCompat;
  private readonly deferredCounters: DeferredEventCounters | undefined;

  /** The engine's own operations, which go first on FerretDB's lane (storage/store-lane.ts). */
  private readonly write = <T>(operation: () => Promise<T>): Promise<T> => this.compat.write(operation, true);
  private readonly read = <T>(operation: () => Promise<T>): Promise<T> => this.compat.retry(operation, true);

  constructor(db: Db, prefix: string, compat: StoreCompat) {
    this.collections = collectionsFor(db, prefix);
    this.claims = this.collections.claims;
    this.compat = compat;
    this.deferredCounters = compat.deferredEventCounters ? new DeferredEventCounters(this.collections, compat) : undefined;
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.collections.queue.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'engine_due' }),
      this.collections.queue.createIndex({ status: 1, leaseUntil: 1 }, { name: 'engine_lease' }),
      this.compat.uniqueKeyClaims ? this.claims.createIndex({ createdAt: 1 }, { name: 'engine_claims_age' }) : undefined,
      // Releasing the next row of a key (ordering/keys.ts) looks rows up by key and sequence.
      this.collections.queue.createIndex({ orderKey: 1, orderSeq: 1 }, { name: 'engine_order', sparse: true }),
    ]);
  }

  /** The oldest due PENDING rows, whoever wrote them, leaving out subscribers with no free slot. */
  findDue(now: Date, limit: number, excludeSubscribers: readonly string[]): Promise<DeliveryDocument[]> {
    const filter = excludeSubscribers.length > 0 ? { subscriberId: { $nin: [...excludeSubscribers] } } : {};
    return this.read(() =>
      this.collections.queue
        .find({ status: 'PENDING', nextAttemptAt: { $lte: now }, ...filter })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray(),
    );
  }

  /** What sending these rows needs: their subscribers (read fresh) and their events. */
  async loadForSend(rows: readonly DeliveryDocument[]): Promise<{ subscribers: Map<string, SubscriberForSend>; events: Map<string, EventDocument> }> {
    const subscriberIds = [...new Set(rows.map((row) => row.subscriberId))];
    const eventIds = [...new Set(rows.map((row) => row.eventId))];
    const mark = this.deferredCounters?.readMark() ?? 0;
    const [subscribers, events] = await Promise.all([
      this.read(() => this.collections.subscribers.find({ _id: { $in: subscriberIds } }, { projection: SEND_PROJECTION }).toArray()),
      this.findEvents(eventIds),
    ]);
    // Where counters are held in memory, the ones read here spare the first outcome a second read.
    for (const event of events) {
      this.deferredCounters?.rememberRead(event._id, { open: event.openDeliveries ?? 0, failed: event.failedDeliveries ?? 0, status: event.status }, mark);
    }
    return {
      subscribers: new Map(subscribers.map((subscriber) => [subscriber._id, subscriber as SubscriberForSend])),
      events: new Map(events.map((event) => [event._id, event])),
    };
  }

  private async findEvents(eventIds: readonly string[]): Promise<EventDocument[]> {
    const projection = { subscriberIds: 0 };
    if (!this.compat.pointReads) return this.read(() => this.collections.events.find({ _id: { $in: [...eventIds] } }, { projection }).toArray());
    const found = await Promise.all(eventIds.map((_id) => this.read(() => this.collections.events.findOne({ _id }, { projection }))));
    return found.filter((event): event is EventDocument => event !== null);
  }

  /** Claims rows read a moment ago under `token`; returns the rows won, as now stored. */
  async claim(rows: readonly DeliveryDocument[], token: string, now: Date, leaseUntil: Date): Promise<DeliveryDocument[]> {
    if (rows.length === 0) return [];
    const candidates = this.compat.uniqueKeyClaims ? await claimIncarnations(this.collections, this.compat, rows, token, now, true) : [...rows];
    if (candidates.length === 0) return [];
    const result = await this.write(() =>
      this.collections.queue.updateMany(
        {
          $or: candidates.map((row) => ({ _id: row._id, status: 'PENDING' as DeliveryStatus, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt })),
        },
        { $set: { status: 'IN_FLIGHT', leaseOwner: token, leaseUntil, updatedAt: now } },
      ),
    );
    const claimed = candidates.map((row) => ({ ...row, status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: token, leaseUntil }));
    if (result.modifiedCount === candidates.length) return claimed;
    // Another claimer, a cancel or a manual retry changed some rows since we read them.
    const won = await this.read(() =>
      this.collections.queue.find({ _id: { $in: candidates.map((row) => row._id) }, leaseOwner: token }, { projection: { _id: 1 } }).toArray(),
    );
    const wonIds = new Set(won.map((row) => row._id));
    return claimed.filter((row) => wonIds.has(row._id));
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
      this.settle(settling, batch, now),
      this.updateRetries(retrying, batch, now),
      attempts.length > 0 ? this.insertAttempts(attempts) : undefined,
    ]);
    const applied = [...settled, ...retried];
    const deltas = new EventDeltas();
    for (const { row, fields } of applied) deltas.add(row.eventId, rowDelta('IN_FLIGHT', fields.status ?? 'IN_FLIGHT'));
    const [released] = await Promise.all([
      this.advanceOrderedKeys(settled.map((outcome) => outcome.row), now),
      this.deferredCounters ? this.deferredCounters.apply(deltas, now) : applyEventDeltas(this.collections, this.compat, deltas, now, true),
    ]);
    return { written: applied.length, released };
  }

  /**
   * Ordered rows settled (and left the queue): each key's `done` moves up, then the next row of the
   * key is released. In that order: a publisher that wrote a held row after this release looked for
   * it reads `done` after writing, and releases the row itself (ordering/sequences.ts).
   */
  private async advanceOrderedKeys(rows: readonly DeliveryDocument[], now: Date): Promise<number> {
    const { done, release } = afterSettle(rows);
    if (done.size === 0) return 0;
    await this.write(() =>
      this.collections.orderKeys.bulkWrite(
        [...done].map(([key, sequence]) => ({ updateOne: { filter: { _id: doneId(key) }, update: { $max: { done: sequence } }, upsert: true } })),
        { ordered: false },
      ),
    );
    return releaseRows(this, release, now, true);
  }

  /**
   * The sweep of ordered keys (ordering/keys.ts stalledHeads): a key whose queued rows are all held
   * gets its lowest one released. Returns how many keys were freed.
   */
  async releaseStalledKeys(now: Date, limit = 5_000): Promise<number> {
    const held = await this.read(() =>
      this.collections.queue.find({ status: 'PENDING', nextAttemptAt: null, orderKey: { $exists: true } }, { projection: { _id: 1, orderKey: 1, orderSeq: 1 } }).limit(limit).toArray(),
    );
    if (held.length === 0) return 0;
    const lowest = lowestPerKey(held);
    const live = await this.read(() =>
      this.collections.queue
        .find({ orderKey: { $in: [...lowest.keys()] }, $or: [{ status: 'IN_FLIGHT' }, { nextAttemptAt: { $ne: null } }] }, { projection: { orderKey: 1 } })
        .toArray(),
    );
    const ids = stalledHeads(lowest, new Set(live.map((row) => row.orderKey!)));
    if (ids.length === 0) return 0;
    const result = await this.write(() =>
      this.collections.queue.updateMany({ _id: { $in: ids }, status: 'PENDING', nextAttemptAt: null }, { $set: { nextAttemptAt: now, updatedAt: now } }),
    );
    return result.modifiedCount;
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

  /** The counters the publisher just wrote for an event whose rows this engine now sends. */
  rememberWritten(written: WrittenCounters): void {
    this.deferredCounters?.remember(written.eventId, { open: written.open, failed: written.failed, status: written.status });
  }

  /** Records a subscriber's health after a change of state (one small upsert by id). */
  async saveHealth(subscriberId: string, breaker: Breaker, now: Date): Promise<void> {
    const document: Omit<SubscriberHealthDocument, '_id'> = {
      state: breaker.state,
      since: new Date(breaker.since),
      consecutiveFailures: breaker.consecutiveFailures,
      lastError: breaker.lastError,
      probes: breaker.probes,
      nextProbeAt: breaker.nextProbeAt === null ? null : new Date(breaker.nextProbeAt),
      updatedAt: now,
    };
    await this.compat.write(() => this.collections.health.updateOne({ _id: subscriberId }, { $set: document }, { upsert: true }));
  }

  async subscriberOrg(subscriberId: string): Promise<{ orgId: string; handle: string } | null> {
    return this.read(() => this.collections.subscribers.findOne({ _id: subscriberId }, { projection: { orgId: 1, handle: 1 } }));
  }

  /** Health other engines (or this one before a restart) left not healthy. */
  async loadHealth(): Promise<Map<string, Breaker>> {
    const stored = await this.read(() => this.collections.health.find({ state: { $in: ['failing', 'open'] } }).toArray());
    return new Map(
      stored.map((document) => [
        document._id,
        {
          state: document.state,
          since: document.since.getTime(),
          consecutiveFailures: document.consecutiveFailures,
          failingSince: document.since.getTime(),
          lastError: document.lastError,
          probes: document.probes,
          nextProbeAt: document.nextProbeAt?.getTime() ?? null,
          ramp: null,
        },
      ]),
    );
  }

  /** Writes the event counter changes this process still holds (it is stopping). */
  async flushEventCounters(now: Date): Promise<void> {
    await this.deferredCounters?.flush(now);
  }

  /** History first, then out of the queue: a crash in between leaves a copy, never no row. */
  private async settle(outcomes: readonly Outcome[], batch: string, now: Date): Promise<Outcome[]> {
    if (outcomes.length === 0) return [];
    const grouped = this.compat.groupedOutcomeWrites;
    const finished = outcomes.map(({ row, fields }) => ({
      ...row,
      ...fields,
      // Grouped writes (FerretDB v1) share the batch's time; the attempt records keep each start.
      ...(grouped && fields.status === 'DELIVERED' ? { lastAttemptAt: now, deliveredAt: now } : {}),
      leaseOwner: null,
      leaseUntil: null,
      settledBy: batch,
    }));
    await insertOrReplace(this.collections.deliveries, finished, this.compat, true);
    const owners = [...new Set(outcomes.map(({ row }) => row.leaseOwner ?? null))];
    const ids = outcomes.map(({ row }) => row._id);
    const removed = await this.write(() =>
      this.collections.queue.deleteMany({ _id: { $in: ids }, status: 'IN_FLIGHT', leaseOwner: { $in: owners } }),
    );
    if (removed.deletedCount === outcomes.length) return [...outcomes];
    // Some leases were taken over: those rows are someone else's now; take our copies back.
    const kept = await this.read(() => this.collections.queue.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray());
    const notOurs = new Set(kept.map((row) => row._id));
    await this.write(() => this.collections.deliveries.deleteMany({ _id: { $in: [...notOurs] }, settledBy: batch }));
    return outcomes.filter(({ row }) => !notOurs.has(row._id));
  }

  private async updateRetries(outcomes: readonly Outcome[], batch: string, now: Date): Promise<Outcome[]> {
    if (outcomes.length === 0) return [];
    const result = await this.write(() => this.collections.queue.bulkWrite(this.retryOperations(outcomes, batch, now), { ordered: false }));
    if (result.modifiedCount === outcomes.length) return [...outcomes];
    const stored = await this.read(() =>
      this.collections.queue.find({ _id: { $in: outcomes.map((outcome) => outcome.row._id) } }, { projection: { _id: 1, settledBy: 1 } }).toArray(),
    );
    const settledBy = new Map(stored.map((row) => [row._id, row.settledBy]));
    return outcomes.filter(({ row }) => settledBy.get(row._id) === batch);
  }

  private retryOperations(outcomes: readonly Outcome[], batch: string, now: Date): AnyBulkWriteOperation<DeliveryDocument>[] {
    if (!this.compat.groupedOutcomeWrites) {
      return outcomes.map(({ row, fields }) => ({
        updateOne: { filter: { _id: row._id, status: 'IN_FLIGHT', leaseOwner: row.leaseOwner ?? null }, update: { $set: { ...fields, settledBy: batch } } },
      }));
    }
    // One statement per distinct new state; retries rarely share one (jittered due times).
    const groups = new Map<string, { fields: Partial<DeliveryDocument>; rows: DeliveryDocument[] }>();
    for (const { row, fields } of outcomes) {
      const key = JSON.stringify(fields);
      const group = groups.get(key) ?? { fields: { ...fields, settledBy: batch, updatedAt: now }, rows: [] };
      group.rows.push(row);
      groups.set(key, group);
    }
    return [...groups.values()].map(({ fields, rows }) => ({
      updateMany: {
        filter: { _id: { $in: rows.map((row) => row._id) }, status: 'IN_FLIGHT', leaseOwner: { $in: [...new Set(rows.map((row) => row.leaseOwner ?? null))] } },
        update: { $set: fields },
      },
    }));
  }

  private async insertAttempts(attempts: readonly AttemptDocument[]): Promise<void> {
    try {
      await this.write(() => this.collections.attempts.insertMany([...attempts], { ordered: false }));
    } catch (error) {
      if (!duplicateIndexes(error)) throw error; // a record already written by an earlier try
    }
  }

  /**
   * Rows whose lease expired (the worker stopped or stalled) go back to PENDING, due now — never to
   * FAILED (DECISIONS §7). The interrupted attempt counts and is recorded, so the next one carries
   * the next number and the history shows what happened.
   */
  async recoverExpiredLeases(now: Date, limit = 1_000): Promise<number> {
    const expired = await this.read(() =>
      this.collections.queue.find({ status: 'IN_FLIGHT', leaseUntil: { $lt: now } }, { projection: { _id: 1, eventId: 1, subscriberId: 1, orgId: 1, attempts: 1, leaseOwner: 1, updatedAt: 1 } }).limit(limit).toArray(),
    );
    if (expired.length === 0) return 0;
    const result = await this.write(() =>
      this.collections.queue.updateMany(
        { $or: expired.map((row) => ({ _id: row._id, status: 'IN_FLIGHT' as DeliveryStatus, leaseOwner: row.leaseOwner ?? null })) },
        { $set: { status: 'PENDING', nextAttemptAt: now, leaseOwner: null, leaseUntil: null, lastError: INTERRUPTED, updatedAt: now }, $inc: { attempts: 1 } },
      ),
    );
    await this.insertAttempts(
      expired.map((row) => ({
        _id: `${row._id}:${row.leaseOwner ?? 'none'}:interrupted`,
        deliveryId: row._id,
        eventId: row.eventId,
        subscriberId: row.subscriberId,
        orgId: row.orgId,
        attempt: row.attempts + 1,
        startedAt: row.updatedAt,
        durationMs: now.getTime() - row.updatedAt.getTime(),
        httpStatus: null,
        errorClass: 'INTERRUPTED',
        errorMessage: INTERRUPTED,
        responseBodySnippet: null,
      })),
    );
    return result.modifiedCount;
  }

  /**
   * Unique-key claims only: a worker that died between inserting its claim and marking the row
   * IN_FLIGHT leaves the row PENDING with its incarnation's claim taken. A new `nextAttemptAt` makes
   * a new incarnation. Only rows overdue by `staleMs` whose claim is as old are touched.
   */
  async recoverStrandedClaims(now: Date, staleMs: number, limit = 500): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    const cutoff = new Date(now.getTime() - staleMs);
    const overdue = await this.read(() =>
      this.collections.queue.find({ status: 'PENDING', nextAttemptAt: { $lt: cutoff } }).sort({ nextAttemptAt: 1 }).limit(limit).toArray(),
    );
    if (overdue.length === 0) return 0;
    const claims = await this.read(() =>
      this.claims.find({ _id: { $in: overdue.map(claimKey) }, createdAt: { $lt: cutoff } }, { projection: { _id: 1 } }).toArray(),
    );
    const stale = new Set(claims.map((claim) => claim._id));
    const stranded = overdue.filter((row) => stale.has(claimKey(row)));
    if (stranded.length === 0) return 0;
    const result = await this.write(() =>
      this.collections.queue.updateMany(
        { $or: stranded.map((row) => ({ _id: row._id, status: 'PENDING' as DeliveryStatus, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt })) },
        { $set: { nextAttemptAt: now, updatedAt: now } },
      ),
    );
    return result.modifiedCount;
  }

  /**
   * Repairs the counters of events left DISPATCHED and quiet (a worker died between writing rows
   * and their event's counters): recounts a page of them from their rows, from `after` on.
   */
  async reconcileEvents(now: Date, quietMs: number, after: Date, limit = 200): Promise<{ checked: number; cursor: Date }> {
    await this.deferredCounters?.flushHeldSince(new Date(now.getTime() - quietMs), now);
    const events = await this.read(() =>
      this.collections.events
        .find({ status: 'DISPATCHED', updatedAt: { $gt: after, $lt: new Date(now.getTime() - quietMs) } }, { projection: { _id: 1, updatedAt: 1 } })
        .sort({ updatedAt: 1 })
        .limit(limit)
        .toArray(),
    );
    // Events whose changes this process holds are live, not stranded: their counters are written when due.
    let stranded = events.filter((event) => !this.deferredCounters?.holds(event._id));
    if (this.deferredCounters && stranded.length > 0) {
      // Where counters are held in memory, an event with rows still queued is written when its last
      // row settles; a recount (a scan of the history on such a store) is only for the rest.
      const queued = await this.read(() =>
        this.collections.queue.find({ eventId: { $in: stranded.map((event) => event._id) } }, { projection: { eventId: 1 } }).toArray(),
      );
      const busy = new Set(queued.map((row) => row.eventId));
      stranded = stranded.filter((event) => !busy.has(event._id));
    }
    await recountEvents(this.collections, this.compat, stranded.map((event) => event._id), now);
    const last = events.at(-1);
    // A short page means we reached the end: start over next time.
    return { checked: events.length, cursor: events.length === limit && last ? last.updatedAt : new Date(0) };
  }

  /** The organizations that set a retention policy of their own, with it. */
  async orgRetentionPolicies(): Promise<Map<string, StoredRetention>> {
    const states = await this.read(() => this.collections.orgState.find({ retention: { $exists: true } }, { projection: { retention: 1 } }).toArray());
    return new Map(states.flatMap((state) => (state.retention ? [[state._id, state.retention] as const] : [])));
  }

  /** Claims only matter while a reader may still hold the incarnation they name. */
  async purgeClaimsBefore(cutoff: Date): Promise<number> {
    if (!this.compat.uniqueKeyClaims) return 0;
    return (await this.write(() => this.claims.deleteMany({ createdAt: { $lt: cutoff } }))).deletedCount;
  }

  /**
   * Deletes finished events older than the cutoff, with their rows and attempts: three round trips
   * in series (the `status_created` index finds them; the children's `eventId` indexes delete them).
   * Children first, side by side, then the events: an interrupted step leaves no orphans, only
   * events it deletes next time.
   */
  async purgeFinishedBefore(cutoff: Date, limit = 1_000, match: RetentionGroup['match'] | Record<string, never> = {}): Promise<number> {
    const old = await this.read(() =>
      this.collections.events.find({ status: { $in: ['ALL_DELIVERED', 'FAILED'] }, createdAt: { $lt: cutoff }, ...match }, { projection: { _id: 1 } }).limit(limit).toArray(),
    );
    if (old.length === 0) return 0;
    const ids = old.map((event) => event._id);
    await Promise.all([
      this.write(() => this.collections.attempts.deleteMany({ eventId: { $in: ids } })),
      this.write(() => this.collections.queue.deleteMany({ eventId: { $in: ids } })),
      this.write(() => this.collections.deliveries.deleteMany({ eventId: { $in: ids } })),
    ]);
    const result = await this.write(() => this.collections.events.deleteMany({ _id: { $in: ids }, status: { $in: ['ALL_DELIVERED', 'FAILED'] } }));
    return result.deletedCount;
  }
}
