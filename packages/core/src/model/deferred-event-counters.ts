// Event counters kept in memory between outcome writes, for stores whose updates cost a scan of
// the collection (`StoreCompat.deferredEventCounters`, FerretDB v1). Writing each outcome batch's
// counter changes to the events collection would make every delivery pay for the whole event
// history; instead this process adds the changes up per event and writes an event once, when its
// status changes (its last open row settles, or a settled event reopens), or at shutdown — and at
// the latest half a maintenance interval after a change (engine/index.ts), because another
// process's reconciliation recounts an event whose rows have been quiet for a whole interval.
//
// Nothing is lost by keeping them in memory: the rows are written first and are the truth. After a
// crash the event stays DISPATCHED and quiet, and the periodic reconciliation recounts it from its
// rows; the reconciliation leaves alone the events whose changes this process still holds, and
// writes the ones held longer than it waits for quiet events (a change written directly meanwhile,
// such as a cancel, may have settled an event without this process seeing it).
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import type { EventStatus } from '../schemas/index.js';
import { statusUpdate, type CounterDelta, type EventDeltas } from './event-counters.js';

export interface EventCounters {
  open: number;
  failed: number;
  status: EventStatus;
}

/** The status an event's counters call for (a PENDING event is still being fanned out: left alone). */
export function statusForCounters({ open, failed, status }: EventCounters): EventStatus {
  if (status === 'PENDING') return status;
  if (open > 0) return 'DISPATCHED';
  return failed > 0 ? 'FAILED' : 'ALL_DELIVERED';
}

/** Whether changes held for an event must be written now: its status would change. */
export function mustWrite(stored: EventCounters, delta: CounterDelta): boolean {
  return statusForCounters({ open: stored.open + delta.open, failed: stored.failed + delta.failed, status: stored.status }) !== stored.status;
}

interface Held {
  delta: CounterDelta;
  /** When the first change still held arrived (ms). */
  since: number;
  /** The event's counters as last read or written by this process. */
  stored?: EventCounters;
}

/** How many events' written counters are remembered at most (oldest forgotten first). */
export const REMEMBERED_LIMIT = 10_000;

export class DeferredEventCounters {
  private readonly held = new Map<string, Held>();
  /** Counters as the publisher wrote them, used instead of a read when the event's first change comes. */
  private readonly remembered = new Map<string, EventCounters>();
  private readonly collections: Collections;
  private readonly compat: StoreCompat;
  /** Counts the starts and ends of this process's event writes; `readMark` and `rememberRead` compare with it. */
  private writesStarted = 0;
  /** The `writesStarted` count at each event's latest write start or end, bounded like `remembered`. */
  private readonly lastWrite = new Map<string, number>();
  /** Writes forgotten from `lastWrite` were all started at or before this count. */
  private forgottenUpTo = 0;
  /** Events this process is writing now, with how many writes of each are under way. */
  private readonly inFlight = new Map<string, number>();

  constructor(collections: Collections, compat: StoreCompat) {
    this.collections = collections;
    this.compat = compat;
  }

  /**
   * The event's counters as just written by this process's publisher, whose rows this engine is
   * sending: the first change to it then needs no read. Bounded, because some of those rows may
   * settle elsewhere (another engine after a lease expiry) and never bring a change here.
   */
  remember(eventId: string, counters: EventCounters): void {
    if (this.held.has(eventId)) return;
    this.remembered.set(eventId, counters);
    if (this.remembered.size > REMEMBERED_LIMIT) this.remembered.delete(this.remembered.keys().next().value!);
  }

  /** A mark for a read of events issued now, to pass to `rememberRead` with what it found. */
  readMark(): number {
    return this.writesStarted;
  }

  /**
   * Counters read with the event to send its rows (the engine's poll), so the first change to it
   * needs no second read. Left out when a write of the event by this process was queued or still
   * running after the read was issued: the read may then predate that write.
   */
  rememberRead(eventId: string, counters: EventCounters, mark: number): void {
    const lastWrite = this.lastWrite.get(eventId) ?? (mark < this.forgottenUpTo ? Number.POSITIVE_INFINITY : 0);
    if (lastWrite > mark || this.inFlight.has(eventId)) return;
    // A read newer than the counters the held changes are reckoned from replaces them: it has every
    // change written so far — this process's and those written directly, such as a redelivery's —
    // and none of the held ones, which are not written yet.
    const held = this.held.get(eventId);
    if (held) held.stored = counters;
    else this.remember(eventId, counters);
  }

  /** Whether this process holds unwritten changes for the event. */
  holds(eventId: string): boolean {
    return this.held.has(eventId);
  }

  /** Adds the changes; writes the events whose status they change. */
  async apply(deltas: EventDeltas, now: Date): Promise<void> {
    for (const [eventId, delta] of deltas.entries()) {
      const current = this.held.get(eventId);
      this.held.set(eventId, {
        ...current,
        since: current?.since ?? now.getTime(),
        delta: { open: (current?.delta.open ?? 0) + delta.open, failed: (current?.delta.failed ?? 0) + delta.failed },
      });
    }
    await this.readStored([...deltas.entries()].map(([eventId]) => eventId));
    const due = [...this.held].filter(([, held]) => held.stored && mustWrite(held.stored, held.delta)).map(([eventId]) => eventId);
    await this.write(due, now);
  }

  /** Writes the changes held since before `cutoff`. */
  async flushHeldSince(cutoff: Date, now: Date): Promise<void> {
    await this.write([...this.held].filter(([, held]) => held.since < cutoff.getTime()).map(([eventId]) => eventId), now);
  }

  /** Writes every held change (the engine is stopping). */
  async flush(now: Date): Promise<void> {
    await this.write([...this.held.keys()], now);
  }

  /** What the publisher wrote or the engine read to send, else reads by `_id` alone, the cheapest lookup on such a store. */
  private async readStored(eventIds: readonly string[]): Promise<void> {
    for (const eventId of eventIds) {
      const written = this.remembered.get(eventId);
      const held = this.held.get(eventId);
      if (!written || !held) continue;
      this.remembered.delete(eventId);
      held.stored ??= written;
    }
    const missing = eventIds.filter((eventId) => this.held.get(eventId)?.stored === undefined);
    await Promise.all(
      missing.map(async (eventId) => {
        const event = await this.compat.retry(
          () => this.collections.events.findOne({ _id: eventId }, { projection: { openDeliveries: 1, failedDeliveries: 1, status: 1 } }),
          true,
        );
        const held = this.held.get(eventId);
        if (!held) return;
        if (!event) this.held.delete(eventId); // purged meanwhile
        else held.stored = { open: event.openDeliveries ?? 0, failed: event.failedDeliveries ?? 0, status: event.status };
      }),
    );
  }

  /**
   * One update per event, each a scan on such a store: the counters by `$inc` (not `$set`), so a
   * change written directly meanwhile (a cancel, a redelivery) is kept, and the status this process
   * expects. The write returns the stored counters; in the rare case they call for another status
   * (that direct change), a second write corrects it.
   */
  private async write(eventIds: readonly string[], now: Date): Promise<void> {
    for (const eventId of eventIds) {
      const held = this.held.get(eventId);
      if (!held) continue;
      this.held.delete(eventId);
      if (held.delta.open === 0 && held.delta.failed === 0) continue;
      const expected = held.stored
        ? statusForCounters({ open: held.stored.open + held.delta.open, failed: held.stored.failed + held.delta.failed, status: held.stored.status })
        : undefined;
      const after = await this.writing(eventId, () =>
        this.collections.events.findOneAndUpdate(
          { _id: eventId },
          {
            $inc: { openDeliveries: held.delta.open, failedDeliveries: held.delta.failed },
            ...(expected ? statusUpdate(expected, now) : { $set: { updatedAt: now } }),
          },
          // No projection: FerretDB v1's findAndModify does not implement one.
          { returnDocument: 'after' },
        ),
      );
      if (!after) continue;
      const status = statusForCounters({ open: after.openDeliveries, failed: after.failedDeliveries, status: after.status });
      if (status === after.status) continue;
      await this.writing(eventId, () => this.collections.events.updateOne({ _id: eventId }, statusUpdate(status, now)));
    }
  }

  /**
   * One write of an event, noted as it is queued and again once it has ended: a read issued in
   * between may run beside it on the store (its lane runs several operations at once) and see the
   * event before or after it, so `rememberRead` trusts only reads issued after its end, and none
   * while it is under way.
   */
  private async writing<T>(eventId: string, operation: () => Promise<T>): Promise<T> {
    this.noteWrite(eventId);
    this.inFlight.set(eventId, (this.inFlight.get(eventId) ?? 0) + 1);
    try {
      return await this.compat.write(operation, true);
    } finally {
      const left = this.inFlight.get(eventId)! - 1;
      if (left > 0) this.inFlight.set(eventId, left);
      else this.inFlight.delete(eventId);
      this.noteWrite(eventId);
    }
  }

  private noteWrite(eventId: string): void {
    this.writesStarted += 1;
    this.lastWrite.delete(eventId);
    this.lastWrite.set(eventId, this.writesStarted);
    if (this.lastWrite.size > REMEMBERED_LIMIT) {
      const [oldest, startedAt] = this.lastWrite.entries().next().value!;
      this.lastWrite.delete(oldest);
      this.forgottenUpTo = startedAt;
    }
  }
}
