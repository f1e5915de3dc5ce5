// The store-compatibility seam: the one place where Herald behaves differently on FerretDB v1, the
// dev and test store, than on MongoDB, the store users run. Everything else is written for
// MongoDB's documented semantics (single-document atomicity, indexes, retryable writes).
//
// What FerretDB v1 (SQLite or PostgreSQL handler) needs, measured on v1.24.2:
// - a serial write lane: one client sending a multi-document update while another write to the
//   same collection was running deadlocked it for good (seen with updates, and with an update
//   beside inserts), so every write of the process goes through one lane (`StoreCompat.write`).
//   Reads go through it too. Run beside it, four at a time, they doubled short runs, but in a 10 s
//   run at 500 deliveries/s on a 1,000-event history the same outcome batch went unrecorded lease
//   after lease (12 deliveries/s, duplicates), as when an operation hangs. On the PostgreSQL
//   handler too: with operations side by side some commands went unanswered until the driver's
//   60 s socket timeout (a burst's fan-out p95 55 s; a poll that never failed during an outage).
// - `uniqueKeyClaims`: a conditional update is not atomic against a concurrent one (two workers
//   both "won" the same rows), so a claim first inserts a document whose `_id` names the row's
//   incarnation; the unique `_id` makes exactly one claimer win.
// - `groupedOutcomeWrites`: every update statement scans the whole collection, even one by `_id`,
//   so outcomes with identical fields are written as one `updateMany` per group rather than one
//   statement per row (their timestamps become the write's time; each attempt record keeps the
//   attempt's exact start).
// - `separateJobStore`: Agenda's lock updates run beside Herald's writes and cannot join its lane;
//   FerretDB v1 keeps one SQLite file per database, so the jobs get a database of their own
//   (`<database>_jobs`), and with it a lock of their own.
// - `maxWriteBatch`: a command holds one pooled SQLite connection per statement until the whole
//   command ends (seen in goroutine dumps: an update command of 200 statements held 100 open
//   result sets and waited for a 101st connection forever), and an update touching many documents
//   while others waited hung too; so a claim, an outcome write or any multi-statement write
//   touches at most 50 rows or statements.
// - `deferredEventCounters` and `pointReads`: no lookup is indexed. A filter of `{_id}` alone is
//   handed to SQLite, but FerretDB's `_id` index is on another expression than its lookup, so
//   SQLite reads every row; any other filter (`$in`, a second field) is matched in Go after every
//   document is decoded. Measured with 400-byte documents at 500 / 5,000 / 20,000 documents:
//   `findOne({_id})` 4 / 17 / 52 ms, an update by `_id` 7 / 34 / 122 ms, a `$in` of 10 ids or
//   `{_id, status}` 20–26 / 130–150 / 630 ms; an insert 1 ms at any size. So the engine holds
//   event counter changes in memory and writes an event once, when its status changes
//   (deliveries/deferred-event-counters.ts), takes the counters it starts from from the publisher
//   or from the read that fetched the event to send its rows, never from a read of its own, and
//   reads events by id one at a time rather than with one `$in`.
// - transient errors: `InternalError` (code 1) "database is locked" / SQLITE_BUSY under load is
//   retried with bounded backoff. On MongoDB the driver's retryable reads and writes do this.
//
// Chosen by detection (`buildInfo` carries `ferretdbVersion` on FerretDB) or by configuration
// (`storeCompat: 'mongodb' | 'ferretdb-v1'`). docs/ARCHITECTURE.md "Store compatibility" has the list.
import type { Db } from 'mongodb';
import { isStoreUnavailable, isTransientStoreError, StoreUnavailableError } from './availability.js';

export type StoreCompatName = 'mongodb' | 'ferretdb-v1';

export interface StoreCompat {
  readonly name: StoreCompatName;
  readonly uniqueKeyClaims: boolean;
  readonly groupedOutcomeWrites: boolean;
  readonly separateJobStore: boolean;
  readonly deferredEventCounters: boolean;
  /** Look documents up one `{_id}` at a time instead of one `$in` query. */
  readonly pointReads: boolean;
  /**
   * Whether operations run side by side. On the serial lane they do not, so overlapping two of
   * them saves no round trip, and publishing keeps its reads before its writes.
   */
  readonly concurrentOperations: boolean;
  /** How many outcome flushes may be in flight at once. */
  readonly writeConcurrency: number;
  /** Most rows one claim or outcome write may touch. */
  readonly maxWriteBatch: number;
  /**
   * Runs a database write (insert, update, delete): through the single lane and with transient
   * retries on FerretDB v1. `urgent` writes (the engine's) go before queued publishes, so a flood
   * of publishes slows publishing, not delivery.
   */
  write<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
  /** Runs a read, through the lane and with transient retries on FerretDB v1. */
  retry<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
}

const TRANSIENT_RETRIES = 5;
const TRANSIENT_BASE_DELAY_MS = 20;

export async function retryTransient<T>(operation: () => Promise<T>, sleep = defaultSleep): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt > TRANSIENT_RETRIES || !isTransientStoreError(error)) throw error;
      await sleep(TRANSIENT_BASE_DELAY_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
    }
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** After a section finds the store unreachable, queued and new sections fail at once for this long. */
export const UNREACHABLE_WINDOW_MS = 1_000;

interface Section {
  run: () => Promise<void>;
  reject: (error: unknown) => void;
}

/**
 * Runs async sections one at a time: urgent ones (the engine's) first, each kind in order. Sharing
 * the lane's time with publishes was measured and refused: beside a receiver failing every attempt
 * it raised publishing from 9 to 89–131 events/s, but a burst of publishes then delayed deliveries
 * by seconds (fan-out p50 57 ms → 5–9 s, bench scenarios (a) and (e)). When one section finds the
 * store unreachable, the sections queued behind it fail at once instead of each waiting out its
 * own timeout in turn — callers get a fast answer during an outage, and the next section after the
 * window probes the store again.
 */
class SerialLane {
  private readonly urgent: Section[] = [];
  private readonly normal: Section[] = [];
  private busy = false;
  private unreachableUntil = 0;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  run<T>(section: () => Promise<T>, urgent = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (urgent ? this.urgent : this.normal).push({ run: () => section().then(resolve), reject });
      void this.drain();
    });
  }

  private next(): Section | undefined {
    return this.urgent.shift() ?? this.normal.shift();
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let section = this.next(); section; section = this.next()) {
        if (this.now() < this.unreachableUntil) {
          section.reject(new StoreUnavailableError());
          continue;
        }
        try {
          await section.run();
        } catch (error) {
          if (isStoreUnavailable(error)) this.unreachableUntil = this.now() + UNREACHABLE_WINDOW_MS;
          section.reject(error);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}

export function storeCompat(name: StoreCompatName, now: () => number = Date.now): StoreCompat {
  if (name === 'mongodb') {
    const direct = <T>(operation: () => Promise<T>, _urgent?: boolean): Promise<T> => operation();
    return { name, uniqueKeyClaims: false, groupedOutcomeWrites: false, separateJobStore: false, deferredEventCounters: false, pointReads: false, concurrentOperations: true, writeConcurrency: 4, maxWriteBatch: Number.POSITIVE_INFINITY, write: direct, retry: direct };
  }
  const lane = new SerialLane(now);
  return {
    name,
    uniqueKeyClaims: true,
    groupedOutcomeWrites: true,
    separateJobStore: true,
    deferredEventCounters: true,
    pointReads: true,
    concurrentOperations: false,
    writeConcurrency: 1,
    maxWriteBatch: 50,
    write: (operation, urgent) => lane.run(() => retryTransient(operation), urgent),
    retry: (operation, urgent) => lane.run(() => retryTransient(operation), urgent),
  };
}

/** 'auto' asks the server: FerretDB adds `ferretdbVersion` to `buildInfo`. */
export async function detectStoreCompat(db: Db, configured: StoreCompatName | 'auto' = 'auto'): Promise<StoreCompat> {
  if (configured !== 'auto') return storeCompat(configured);
  const info = await db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Record<string, unknown>);
  const ferret = typeof info.ferretdbVersion === 'string' || (typeof info.ferretdbFeatures === 'object' && info.ferretdbFeatures !== null);
  return storeCompat(ferret ? 'ferretdb-v1' : 'mongodb');
}
