// Event counters as the engine keeps them. On MongoDB each outcome batch applies its changes to the
// events at once; where every lookup is a scan (storage/compat.ts `deferredEventCounters`) changes
// are held in memory and an event is written when its status changes
// (model/deferred-event-counters.ts), starting from counters the publisher or a read handed over.
import type { WrittenCounters } from '../../handover/fast-path.js';
import { DeferredEventCounters, type EventCounters } from '../../model/deferred-event-counters.js';
import { applyEventDeltas, type EventDeltas } from '../../model/event-counters.js';
import { StorePart } from './part.js';

export class EngineCounters extends StorePart {
  private readonly deferred: DeferredEventCounters | undefined = this.compat.deferredEventCounters ? new DeferredEventCounters(this.collections, this.compat) : undefined;

  /** Whether changes are held in memory (and written when an event's status changes). */
  get held(): boolean {
    return this.deferred !== undefined;
  }

  /** Marks the start of a read whose counters `rememberRead` may then keep. */
  readMark(): number {
    return this.deferred?.readMark() ?? 0;
  }

  rememberRead(eventId: string, counters: EventCounters, mark: number): void {
    this.deferred?.rememberRead(eventId, counters, mark);
  }

  /** The counters the publisher just wrote for an event whose rows this engine now sends. */
  rememberWritten(written: WrittenCounters): void {
    this.deferred?.remember(written.eventId, { open: written.open, failed: written.failed, status: written.status });
  }

  apply(deltas: EventDeltas, now: Date): Promise<unknown> {
    return this.deferred ? this.deferred.apply(deltas, now) : applyEventDeltas(this.collections, this.compat, deltas, now, true);
  }

  /** Whether this process holds unwritten changes of the event (it is live, not stranded). */
  holds(eventId: string): boolean {
    return this.deferred?.holds(eventId) ?? false;
  }

  /** Writes the changes held since before `since` (quiet events), so a recount sees them. */
  async flushHeldSince(since: Date, now: Date): Promise<void> {
    await this.deferred?.flushHeldSince(since, now);
  }

  /** Writes the event counter changes this process still holds (it is stopping). */
  async flushEventCounters(now: Date): Promise<void> {
    await this.deferred?.flush(now);
  }
}
