// The store-compatibility seam: the one place where Herald behaves differently on FerretDB v1, the
// dev and test store, than on MongoDB, the store users run. Everything else is written for
// MongoDB's documented semantics (single-document atomicity, indexes, retryable writes).
//
// What FerretDB v1 needs, measured on v1.24.2 (the SQLite handler first, the PostgreSQL handler,
// the default store now, since). Operations run side by side as on MongoDB. The serial lane the
// SQLite handler needed is gone: the wedges seen on the PostgreSQL handler were commands with more
// statements than FerretDB's pool (see `maxWriteBatch`); with those bounded, the suite and the
// wedge scenario (20 runs) pass side by side, and publishing beside a receiver failing every
// attempt went from 9 to 264 events/s (bench scenario (e), quick runs).
// - `uniqueKeyClaims`: a conditional update is not atomic against a concurrent one (two workers
//   both "won" the same rows), so a claim first inserts a document whose `_id` names the row's
//   incarnation; the unique `_id` makes exactly one claimer win.
// - `groupedOutcomeWrites`: every update statement scans the whole collection, even one by `_id`,
//   so outcomes with identical fields are written as one `updateMany` per group rather than one
//   statement per row (their timestamps become the write's time; each attempt record keeps the
//   attempt's exact start).
// - `separateJobStore`: on the SQLite handler Agenda's lock updates beside Herald's writes
//   deadlocked; it keeps one file per database, so the jobs get a database of their own
//   (`<database>_jobs`), and with it a lock of their own (not remeasured on PostgreSQL).
// - `maxWriteBatch`: a command holds one pooled SQLite connection per statement until the whole
//   command ends (seen in goroutine dumps: an update command of 200 statements held 100 open
//   result sets and waited for a 101st connection forever), and an update touching many documents
//   while others waited hung too; so a claim, an outcome write or any multi-statement write
//   touches at most 50 rows or statements. On the PostgreSQL handler the same: two cancellations of
//   one subscriber's rows replaced a thousand of them in one command and wedged the store for good.
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
import { isTransientStoreError } from './availability.js';

export type StoreCompatName = 'mongodb' | 'ferretdb-v1';

export interface StoreCompat {
  readonly name: StoreCompatName;
  readonly uniqueKeyClaims: boolean;
  readonly groupedOutcomeWrites: boolean;
  readonly separateJobStore: boolean;
  readonly deferredEventCounters: boolean;
  /** Look documents up one `{_id}` at a time instead of one `$in` query. */
  readonly pointReads: boolean;
  /** How many outcome flushes may be in flight at once. */
  readonly writeConcurrency: number;
  /** Most rows one claim or outcome write may touch. */
  readonly maxWriteBatch: number;
  /** Runs a database write (insert, update, delete), with transient retries on FerretDB v1. */
  write<T>(operation: () => Promise<T>): Promise<T>;
  /** Runs a read, with transient retries on FerretDB v1. */
  retry<T>(operation: () => Promise<T>): Promise<T>;
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

export function storeCompat(name: StoreCompatName): StoreCompat {
  if (name === 'mongodb') {
    const direct = <T>(operation: () => Promise<T>): Promise<T> => operation();
    return { name, uniqueKeyClaims: false, groupedOutcomeWrites: false, separateJobStore: false, deferredEventCounters: false, pointReads: false, writeConcurrency: 4, maxWriteBatch: Number.POSITIVE_INFINITY, write: direct, retry: direct };
  }
  return {
    name,
    uniqueKeyClaims: true,
    groupedOutcomeWrites: true,
    separateJobStore: true,
    deferredEventCounters: true,
    pointReads: true,
    writeConcurrency: 4,
    maxWriteBatch: 50,
    write: (operation) => retryTransient(operation),
    retry: (operation) => retryTransient(operation),
  };
}

/** 'auto' asks the server: FerretDB adds `ferretdbVersion` to `buildInfo`. */
export async function detectStoreCompat(db: Db, configured: StoreCompatName | 'auto' = 'auto'): Promise<StoreCompat> {
  if (configured !== 'auto') return storeCompat(configured);
  const info = await db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Record<string, unknown>);
  const ferret = typeof info.ferretdbVersion === 'string' || (typeof info.ferretdbFeatures === 'object' && info.ferretdbFeatures !== null);
  return storeCompat(ferret ? 'ferretdb-v1' : 'mongodb');
}
