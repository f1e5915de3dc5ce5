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
  /** How many outcome flushes may be in flight at once. */
  readonly writeConcurrency: number;
  /** Runs a database write (insert, update, delete): through the single lane and with transient retries on FerretDB v1. */
  write<T>(operation: () => Promise<T>): Promise<T>;
  /** Runs a read, with transient retries on FerretDB v1. */
  retry<T>(operation: () => Promise<T>): Promise<T>;
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

/** Runs async sections one at a time, in order. */
class SerialLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section, section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export function storeCompat(name: StoreCompatName): StoreCompat {
  if (name === 'mongodb') {
    const direct = <T>(operation: () => Promise<T>): Promise<T> => operation();
    return { name, uniqueKeyClaims: false, groupedOutcomeWrites: false, writeConcurrency: 4, write: direct, retry: direct };
  }
  const lane = new SerialLane();
  return {
    name,
    uniqueKeyClaims: true,
    groupedOutcomeWrites: true,
    writeConcurrency: 1,
    write: (operation) => lane.run(() => retryTransient(operation)),
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
