// Due rows read ahead of the free slots. In a backlog, reading only as many rows as slots are free
// makes every freed slot a read of the queue. One read of up to the store seam's `dueReadAhead.rows`
// serves the slots that free over the next moments instead, until the rows are `maxAgeMs` old: on
// MongoDB an index range of 500 rows renewed each second; where a read decodes every queued row
// whatever its limit (FerretDB v1), all due rows up to 5,000 for up to 10 s (storage/compat.ts).
//
// The rows kept are what the store held when it was read. That is safe: a claim names each row's
// incarnation, so a row someone else claimed, retried or cancelled meanwhile is simply not won (and
// the window is dropped, since others are working the same rows). Order is kept too: the window
// holds the oldest due rows, and a row that becomes due later is due no earlier than those. What it
// could cost is fairness: rows of a subscriber that the window does not hold are read once slots
// are left over (`wantsRead`), so one subscriber's backlog does not hold back another's rows. While
// such reads find nothing they pause, 250 ms after the first and doubling to the window's age, so a
// backlog of subscribers that are all busy is not read again and again for nothing. And while rows
// are held, such reads take at most a quarter of the time, whatever a read costs
// (rules/store-share.ts): a few milliseconds on an index, while a read that decodes the queue (a
// second and more at 20,000 queued rows, retried ones becoming due again and again while a receiver
// is down) would otherwise follow every freed slot.
import { ShareOfTime } from '../rules/store-share.js';
import type { DeliveryDocument } from '../storage/documents.js';

/** After a read for left-over slots found nothing, how long until the next such read (then doubling). */
export const DUE_EMPTY_READ_PAUSE_MS = 250;

/** While rows are held, the share of the time reads for left-over slots may take. */
export const LEFT_OVER_READ_SHARE = 0.25;

/** The pause after `emptyReads` reads in a row found nothing, at most `maxAgeMs`. */
export function emptyReadPause(emptyReads: number, maxAgeMs: number): number {
  return emptyReads <= 0 ? 0 : Math.min(DUE_EMPTY_READ_PAUSE_MS * 2 ** (emptyReads - 1), maxAgeMs);
}

export class DueWindow {
  private held: DeliveryDocument[] = [];
  private readAt = 0;
  private emptyReadAt = Number.NEGATIVE_INFINITY;
  private emptyReads = 0;
  private readonly reads = new ShareOfTime(LEFT_OVER_READ_SHARE);
  /** How long rows read ahead are used before the queue is read afresh. */
  private readonly maxAgeMs: number;

  constructor(maxAgeMs: number) {
    this.maxAgeMs = maxAgeMs;
  }

  /** The rows held, oldest due first; none once they are older than the window's age. */
  rows(now: number): readonly DeliveryDocument[] {
    if (this.held.length > 0 && now - this.readAt >= this.maxAgeMs) this.held = [];
    return this.held;
  }

  /** Whether to read the queue for `leftOver` slots the held rows cannot fill. */
  wantsRead(leftOver: number, now: number): boolean {
    if (leftOver <= 0) return false;
    if (this.rows(now).length === 0) return true;
    return now - this.emptyReadAt >= emptyReadPause(this.emptyReads, this.maxAgeMs) && this.reads.ready(now);
  }

  /** The subscribers of the held rows that cannot start one now: a read for left-over slots leaves them out. */
  heldSubscribers(except: readonly DeliveryDocument[]): string[] {
    const starting = new Set(except.map((row) => row._id));
    return [...new Set(this.held.filter((row) => !starting.has(row._id)).map((row) => row.subscriberId))];
  }

  /** Rows just read (by a read begun at `now` that took `readMs`) join those held, oldest due first. */
  add(read: readonly DeliveryDocument[], now: number, readMs = 0): void {
    this.reads.ran(now, now + readMs);
    if (read.length === 0) {
      this.emptyReadAt = now;
      this.emptyReads += 1;
    } else {
      this.emptyReads = 0;
    }
    if (this.held.length === 0) this.readAt = now;
    const known = new Set(this.held.map((row) => row._id));
    const fresh = read.filter((row) => !known.has(row._id));
    if (fresh.length === 0) return;
    this.held = [...this.held, ...fresh].sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0));
  }

  /** Rows taken to claim leave the window, won or not. */
  remove(taken: readonly DeliveryDocument[]): void {
    if (taken.length === 0) return;
    const ids = new Set(taken.map((row) => row._id));
    this.held = this.held.filter((row) => !ids.has(row._id));
  }

  clear(): void {
    this.held = [];
  }
}
