// The store-compatibility seam: the one place where Herald behaves differently on FerretDB v1, the
// dev and test store, than on MongoDB, the store users run. Everything else is written for
// MongoDB's documented semantics (single-document atomicity, indexes, retryable writes).
//
// What FerretDB v1 (SQLite or PostgreSQL handler) needs, measured on v1.24.2:
// - a serial write lane: one client sending a multi-document update while another write to the
//   same collection was running deadlocked it for good (seen with updates, and with an update
//   beside inserts), so every write of the process goes through one lane (`StoreCompat.write`).
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
// - `maxWriteBatch`: an update that touched many documents while others waited hung it for good
//   (its goroutines held every pooled SQLite connection, seen in a goroutine dump), so a claim or
//   an outcome write touches at most 50 rows.
// - transient errors: `InternalError` (code 1) "database is locked" / SQLITE_BUSY under load is
//   retried with bounded backoff. On MongoDB the driver's retryable reads and writes do this.
//
// Chosen by detection (`buildInfo` carries `ferretdbVersion` on FerretDB) or by configuration
// (`storeCompat: 'mongodb' | 'ferretdb-v1'`). docs/ARCHITECTURE.md "Store compatibility" has the list.
import type { Db } from 'mongodb';

export type StoreCompatName = 'mongodb' | 'ferretdb-v1';

export interface StoreCompat {
  readonly name: StoreCompatName;
  readonly uniqueKeyClaims: boolean;
  readonly groupedOutcomeWrites: boolean;
  readonly separateJobStore: boolean;
  /** How many outcome flushes may be in flight at once. */
  readonly writeConcurrency: number;
  /** Most rows one claim or outcome write may touch. */
  readonly maxWriteBatch: number;
  /**
   * Runs a database write (insert, update, delete): through the single lane and with transient
   * retries on FerretDB v1. `urgent` writes (the engine recording outcomes, which frees its slots)
   * go before queued publishes, so a flood of publishes slows publishing, not delivery.
   */
  write<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
  /** Runs a read, through the lane and with transient retries on FerretDB v1. */
  retry<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
}

const TRANSIENT_RETRIES = 5;
const TRANSIENT_BASE_DELAY_MS = 20;

/** FerretDB v1's backend-busy errors: safe to retry, the statement did not apply. */
export function isTransientStoreError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 1 && typeof message === 'string' && /database is locked|SQLITE_BUSY|deadlock detected/i.test(message);
}

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

/** A lane section running longer than this is reported: FerretDB v1 was seen to deadlock for good. */
export const STUCK_AFTER_MS = 30_000;

/** Runs async sections one at a time: urgent ones first, each kind in order. */
class SerialLane {
  private readonly urgent: Array<() => Promise<void>> = [];
  private readonly normal: Array<() => Promise<void>> = [];
  private busy = false;
  private readonly onStuck: (waitingBehind: number) => void;

  constructor(onStuck: (waitingBehind: number) => void) {
    this.onStuck = onStuck;
  }

  run<T>(section: () => Promise<T>, urgent = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (urgent ? this.urgent : this.normal).push(() => section().then(resolve, reject));
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.urgent.shift() ?? this.normal.shift(); next; next = this.urgent.shift() ?? this.normal.shift()) {
        const watchdog = setTimeout(() => this.onStuck(this.urgent.length + this.normal.length), STUCK_AFTER_MS);
        watchdog.unref();
        try {
          await next();
        } finally {
          clearTimeout(watchdog);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}

/** Called when an operation on a serial store has not answered for STUCK_AFTER_MS. */
export type StuckReport = (details: { afterMs: number; waitingBehind: number }) => void;

export function storeCompat(name: StoreCompatName, onStuck: StuckReport = () => undefined): StoreCompat {
  if (name === 'mongodb') {
    const direct = <T>(operation: () => Promise<T>, _urgent?: boolean): Promise<T> => operation();
    return { name, uniqueKeyClaims: false, groupedOutcomeWrites: false, separateJobStore: false, writeConcurrency: 4, maxWriteBatch: Number.POSITIVE_INFINITY, write: direct, retry: direct };
  }
  const lane = new SerialLane((waitingBehind) => onStuck({ afterMs: STUCK_AFTER_MS, waitingBehind }));
  return {
    name,
    uniqueKeyClaims: true,
    groupedOutcomeWrites: true,
    separateJobStore: true,
    writeConcurrency: 1,
    maxWriteBatch: 50,
    write: (operation, urgent) => lane.run(() => retryTransient(operation), urgent),
    retry: (operation, urgent) => lane.run(() => retryTransient(operation), urgent),
  };
}

/** 'auto' asks the server: FerretDB adds `ferretdbVersion` to `buildInfo`. */
export async function detectStoreCompat(db: Db, configured: StoreCompatName | 'auto' = 'auto', onStuck?: StuckReport): Promise<StoreCompat> {
  if (configured !== 'auto') return storeCompat(configured, onStuck);
  const info = await db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Record<string, unknown>);
  const ferret = typeof info.ferretdbVersion === 'string' || (typeof info.ferretdbFeatures === 'object' && info.ferretdbFeatures !== null);
  return storeCompat(ferret ? 'ferretdb-v1' : 'mongodb', onStuck);
}
