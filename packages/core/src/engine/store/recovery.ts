// What the maintenance jobs repair: rows whose worker stopped (expired leases, stranded claims),
// events whose counters a stopped worker left behind their rows, and ordered keys whose queued rows
// are all held. Each step is bounded and idempotent, so any replica may run it.
import { recountEvents } from '../../model/event-counters.js';
import { isHoldingLease } from '../../model/holding-leases.js';
import { finishMovesBack, type HeldMove } from '../../model/moves-back.js';
import { lowestPerKey, stalledHeads } from '../../ordering/keys.js';
import { readDone } from '../../ordering/sequences.js';
import { claimKey, type Collections } from '../../storage/collections.js';
import type { StoreCompat } from '../../storage/compat.js';
import type { EngineCounters } from './counters.js';
import { insertAttempts, StorePart } from './part.js';

const INTERRUPTED = 'the attempt was interrupted (the worker holding its lease stopped); it will be retried';

export class RecoveryStore extends StorePart {
  private readonly counters: EngineCounters;

  constructor(collections: Collections, compat: StoreCompat, counters: EngineCounters) {
    super(collections, compat);
    this.counters = counters;
  }

  /**
   * Rows whose lease expired (the worker stopped or stalled) go back to PENDING, due now — never to
   * FAILED (DECISIONS §7). The interrupted attempt counts and is recorded, so the next one carries
   * the next number and the history shows what happened.
   */
  async recoverExpiredLeases(now: Date, limit = 1_000): Promise<number> {
    const expired = await this.read(() =>
      this.collections.queue
        .find({ status: 'IN_FLIGHT', leaseUntil: { $lt: now } }, { projection: { _id: 1, eventId: 1, subscriberId: 1, orgId: 1, attempts: 1, leaseOwner: 1, updatedAt: 1, movedBack: 1 } })
        .limit(limit)
        .toArray(),
    );
    if (expired.length === 0) return 0;
    // A cancellation or a redelivery that stopped while holding rows leased them without attempting
    // them. A redelivery's move is finished as it would have finished it: a copy it made from a
    // history copy since overtaken is withdrawn, not let go.
    const isMoveBack = (row: (typeof expired)[number]): row is (typeof expired)[number] & HeldMove =>
      isHoldingLease(row.leaseOwner) && row.movedBack?.by === row.leaseOwner;
    const moves = expired.filter(isMoveBack);
    const unattempted = expired.filter((row) => isHoldingLease(row.leaseOwner) && !isMoveBack(row));
    const interrupted = expired.filter((row) => !isHoldingLease(row.leaseOwner));
    const leaseOf = (rows: typeof expired) => rows.map((row) => ({ id: row._id, expected: { status: 'IN_FLIGHT' as const, leaseOwner: row.leaseOwner ?? null } }));
    const pending = { status: 'PENDING' as const, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now };
    const [moved, returned, recovered] = await Promise.all([
      moves.length > 0 ? finishMovesBack(this.collections, this.compat, moves, pending) : new Set<string>(),
      this.updateRowsInState(leaseOf(unattempted), { $set: pending }),
      this.updateRowsInState(leaseOf(interrupted), { $set: { ...pending, lastError: INTERRUPTED }, $inc: { attempts: 1 } }),
    ]);
    await insertAttempts(
      this,
      interrupted.map((row) => ({
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
    return moved.size + returned + recovered;
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
      this.collections.queue
        .find({ status: 'PENDING', nextAttemptAt: { $lt: cutoff } })
        .sort({ nextAttemptAt: 1 })
        .limit(Math.min(limit, this.compat.maxWriteBatch))
        .toArray(),
    );
    if (overdue.length === 0) return 0;
    const claims = await this.findClaims(overdue.map(claimKey), cutoff);
    const stale = new Set(claims.map((claim) => claim._id));
    const stranded = overdue.filter((row) => stale.has(claimKey(row)));
    if (stranded.length === 0) return 0;
    return this.updateRowsInState(
      stranded.map((row) => ({ id: row._id, expected: { status: 'PENDING', attempts: row.attempts, nextAttemptAt: row.nextAttemptAt } })),
      { $set: { nextAttemptAt: now, updatedAt: now } },
    );
  }

  /**
   * The claims of these incarnations made before `cutoff`, read by `_id` one at a time: claims exist
   * only where they are unique-key inserts (FerretDB v1), whose `$in` decodes every claim kept, up
   * to two hours' worth (engine/jobs.ts MARKER_LIFETIME_MS; storage/compat.ts pointReads).
   */
  private async findClaims(ids: readonly string[], cutoff: Date): Promise<Array<{ _id: string }>> {
    const found = await Promise.all(ids.map((_id) => this.read(() => this.collections.claims.findOne({ _id }, { projection: { _id: 1, createdAt: 1 } }))));
    return found.flatMap((claim) => (claim && claim.createdAt < cutoff ? [{ _id: claim._id }] : []));
  }

  /**
   * Repairs the counters of events left DISPATCHED and quiet (a worker died between writing rows
   * and their event's counters): recounts a page of them from their rows, from `after` on. An
   * event whose rows changed within `quietMs` is left for a later pass: every engine writes the
   * counter changes it holds within half that time (engine/index.ts), so by then they are written.
   */
  async reconcileEvents(now: Date, quietMs: number, after: Date, limit = 200): Promise<{ checked: number; cursor: Date }> {
    const quietBefore = new Date(now.getTime() - quietMs);
    await this.counters.flushHeldSince(quietBefore, now);
    const events = await this.read(() =>
      this.collections.events
        .find({ status: 'DISPATCHED', updatedAt: { $gt: after, $lt: quietBefore } }, { projection: { _id: 1, updatedAt: 1 } })
        .sort({ updatedAt: 1 })
        .limit(limit)
        .toArray(),
    );
    // Events whose changes this process holds are live, not stranded: their counters are written when due.
    let stranded = events.filter((event) => !this.counters.holds(event._id));
    if (this.counters.held && stranded.length > 0) {
      // Where counters are held in memory, an event with rows still queued is written when its last
      // row settles; a recount (a scan of the history on such a store) is only for the rest.
      const busy = await this.eventsWithQueuedRows(stranded.map((event) => event._id));
      stranded = stranded.filter((event) => !busy.has(event._id));
    }
    await recountEvents(this.collections, this.compat, stranded.map((event) => event._id), now, quietBefore);
    const last = events.at(-1);
    // A short page means we reached the end: start over next time.
    return { checked: events.length, cursor: events.length === limit && last ? last.updatedAt : new Date(0) };
  }

  /**
   * Which of these events still have rows queued, read by `eventId` one at a time: counters are held
   * in memory only on FerretDB v1, whose `$in` decodes the whole queue (storage/compat.ts pointReads).
   */
  private async eventsWithQueuedRows(eventIds: readonly string[]): Promise<Set<string>> {
    const found = await Promise.all(eventIds.map((eventId) => this.read(() => this.collections.queue.findOne({ eventId }, { projection: { eventId: 1 } }))));
    return new Set(found.flatMap((row) => (row ? [row.eventId] : [])));
  }

  /**
   * The sweep of ordered keys (ordering/keys.ts stalledHeads): a key whose queued rows are all held
   * gets its lowest one released once nothing before it can still come. Returns how many keys were
   * freed.
   */
  async releaseStalledKeys(now: Date, limit = 5_000): Promise<number> {
    const held = await this.read(() =>
      this.collections.queue
        .find({ status: 'PENDING', nextAttemptAt: null, orderKey: { $exists: true } }, { projection: { _id: 1, orderKey: 1, orderSeq: 1, createdAt: 1 } })
        .limit(limit)
        .toArray(),
    );
    if (held.length === 0) return 0;
    const lowest = lowestPerKey(held);
    const live = await this.read(() =>
      this.collections.queue
        .find({ orderKey: { $in: [...lowest.keys()] }, $or: [{ status: 'IN_FLIGHT' }, { nextAttemptAt: { $ne: null } }] }, { projection: { orderKey: 1 } })
        .toArray(),
    );
    const liveKeys = new Set(live.map((row) => row.orderKey!));
    const quiet = [...lowest.keys()].filter((key) => !liveKeys.has(key));
    if (quiet.length === 0) return 0;
    const ids = stalledHeads(lowest, liveKeys, await readDone(this, quiet, true), now);
    if (ids.length === 0) return 0;
    return this.updateRowsInState(
      ids.map((id) => ({ id, expected: { status: 'PENDING', nextAttemptAt: null } })),
      { $set: { nextAttemptAt: now, updatedAt: now } },
    );
  }
}
