// The store-compatibility seam: the one place where Herald behaves differently on FerretDB v1, the
// dev and test store, than on MongoDB, the store users run. Everything else is written for
// MongoDB's documented semantics (single-document atomicity, indexes, retryable writes).
//
// What FerretDB v1 needs, measured on v1.24.2 with its PostgreSQL handler (the dev stack's):
// - a bounded lane (storage/store-lane.ts): every operation goes through it (`write`, `retry`), at
//   most three at once, the engine's first; why, and what it does to publishing, is said there.
// - `uniqueKeyClaims`: a conditional update is not atomic against a concurrent one (8 clients
//   updating the same 20 rows `{_id: {$in}, status: 'PENDING'}` to IN_FLIGHT: a row won twice in
//   30 rounds of 30), so a claim first inserts a document whose `_id` names the row's incarnation;
//   the unique `_id` makes exactly one claimer win. The same holds for every conditional write that
//   decides between writers: a subscriber update first takes a turn at the revision it writes
//   (storage/write-turns.ts), per-key sequence numbers are taken as markers (ordering/sequences.ts).
// - `maxWriteBatch`: a command holds one pooled PostgreSQL connection per statement until it ends,
//   so a command of more statements than the pool has connections never ends; a claim, an outcome
//   write or any multi-statement write touches at most 50 rows or statements.
// - `deferredEventCounters` and `pointReads`: only equality reaches PostgreSQL, as JSON
//   containment, which FerretDB's own btree indexes cannot serve (the dev store adds GIN twins that
//   can: docs/ARCHITECTURE.md "Store compatibility"); any other filter (`$in`, a range) is matched in
//   Go after every document the equalities select is decoded. Measured without the twins, 400-byte
//   documents at 500 / 5,000 / 20,000 documents: `findOne({_id})` 1.3 / 2.5 / 9.8 ms, an update by
//   `_id` 1.9 / 2.7 / 12 ms, a `$in` of 10 ids 18 / 152 / 547 ms. So a retry updates its row by `_id`
//   (`_id: {$in}` beside the lease's `status` would read every row in flight for each retry; a
//   batch of settled rows shares one such read); the engine holds
//   event counter changes in memory and writes an event once, when its status changes
//   (model/deferred-event-counters.ts), taking the counters it starts from from the publisher
//   or from the read that fetched the event to send its rows; and events are read by id one at a
//   time rather than with one `$in` (so are the delivery rows of an events page, by event, and the
//   per-key ordering markers, by key; a key's held row is released by its own equality; and the
//   maintenance pass's claims, up to two hours' worth, by `_id`, and its events' queued rows by event;
//   retention deletes each old event's rows and attempts by event and the event by `_id`). No sort
//   or limit is pushed down either (`explain`: `sortPushdown`/`limitPushdown` false, PostgreSQL a
//   sequential scan), so a list page reads and sorts every document its equalities select:
//   docs/ARCHITECTURE.md "Hot queries of the read side".
// - `byId`: a conditional write to one document names its `_id` and the state it expects. Handed
//   to PostgreSQL whole, the planner may serve it from an index on the expected fields instead of
//   `_id`: a claim's `status: 'PENDING'` and `nextAttemptAt` then read every row of a burst (one
//   publish batch shares one `nextAttemptAt`), measured 18 ms per row updated at 10,000 queued rows
//   against 2.7 ms with `_id` alone. The expected state is written as one-value `$in`s, which
//   FerretDB matches in Go on the one document fetched by `_id`; the result is the same. `byKey`
//   does the same for another indexed key: an event's rows by `{eventId}` (engine/store/whole-event-claims.ts).
// - `dueReadAhead`: the engine's read of due rows (`{status: 'PENDING', nextAttemptAt: {$lte}}`
//   sorted, limited) costs what every `PENDING` row costs to decode, whatever its limit, since only
//   the `status` equality reaches PostgreSQL: 455–613 ms for 500 of 5,000 queued rows. So one read
//   takes every due row up to 5,000, and the engine works through them for up to 10 s before it
//   reads again (engine/due-window.ts). On MongoDB the read is an index range whose cost follows
//   its limit, so it takes 500 and is renewed each second.
// - transient errors: `InternalError` (code 1) "deadlock detected" from PostgreSQL, or "database is
//   locked" from the SQLite handler, is retried with bounded backoff. On MongoDB the driver's
//   retryable reads and writes do this.
//
// On every store, since every operation passes here: each is given up at the client's socket timeout
// (storage/availability.ts withinDeadline).
//
// Chosen by detection (`buildInfo` carries `ferretdbVersion` on FerretDB) or by configuration
// (`storeCompat: 'mongodb' | 'ferretdb-v1'`). docs/ARCHITECTURE.md "Store compatibility" has the list.
import type { Collection, Db, Filter, FindOptions } from 'mongodb';
import { CLIENT_TIMEOUT_DEFAULTS, isTransientStoreError, withinDeadline } from './availability.js';
import { StoreLane } from './store-lane.js';

export type StoreCompatName = 'mongodb' | 'ferretdb-v1';

export interface DueReadAhead {
  readonly rows: number;
  readonly maxAgeMs: number;
}

/** An index range: a read costs what it returns, so it stays small and fresh. */
const INDEXED_DUE_READ: DueReadAhead = { rows: 500, maxAgeMs: 1_000 };
/** A read decodes every queued row whatever it returns: each one takes all it can and lasts. */
const DECODED_DUE_READ: DueReadAhead = { rows: 5_000, maxAgeMs: 10_000 };

export interface StoreCompat {
  readonly name: StoreCompatName;
  /** Conditional updates are not atomic: claims, sequence numbers and revisions are decided by unique `_id` inserts. */
  readonly uniqueKeyClaims: boolean;
  readonly deferredEventCounters: boolean;
  /**
   * Look documents up, claim queued rows and release held ones one equality at a time (`{_id}`, a
   * key's `{orderKey, orderSeq}`, an event's `{eventId}`) instead of one `$in` or `$or`; the
   * maintenance pass does the same, and checks at most `maxWriteBatch` overdue rows' claims a pass,
   * and so does retention's step when it deletes.
   */
  readonly pointReads: boolean;
  /**
   * Whether a publish's operations run side by side. On the lane they run one at a time, so
   * overlapping two of them saves no round trip, and publishing keeps its reads before its writes.
   */
  readonly concurrentOperations: boolean;
  /** How many outcome flushes may be in flight at once. */
  readonly writeConcurrency: number;
  /** Most rows one claim or outcome write may touch. */
  readonly maxWriteBatch: number;
  /**
   * How the engine reads due rows ahead of its free slots (engine/due-window.ts): at most `rows`
   * per read, used for at most `maxAgeMs` before the queue is read afresh.
   */
  readonly dueReadAhead: DueReadAhead;
  /**
   * Runs a database write (insert, update, delete): through the lane (storage/store-lane.ts) and
   * with transient retries on FerretDB v1. `urgent` marks the engine's: they go before queued
   * publishes, and a publish waits for them while deliveries are behind.
   */
  write<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
  /**
   * The engine says whether deliveries wait on it (its slots are full, or due rows wait in the
   * store). On the lane, while they do, other operations wait for the engine's.
   */
  deliveryBacklog(present: boolean): void;
  /** Runs a read, through the lane and with transient retries on FerretDB v1. */
  retry<T>(operation: () => Promise<T>, urgent?: boolean): Promise<T>;
  /** The filter of one document by `_id` in an expected state (scalar values), served by `_id`. */
  byId<T extends { _id: string }>(id: string, expected: Partial<Omit<T, '_id'>>): Filter<T>;
  /** The filter of the documents with `key` (equalities an index serves) in an expected state, served by that index. */
  byKey<T>(key: Readonly<Record<string, unknown>>, expected: Partial<T>): Filter<T>;
}

/**
 * The documents among `ids` (in no particular order): one `$in`, served by the `_id` index, or, where
 * a `$in` is matched only after every document is decoded (`pointReads`), one read by `_id` each,
 * side by side. `urgent` as for `retry`.
 */
export async function findByIds<TSchema extends { _id: string }, TResult = TSchema>(
  collection: Collection<TSchema>,
  compat: Pick<StoreCompat, 'pointReads' | 'retry'>,
  ids: readonly string[],
  options: FindOptions = {},
  urgent = false,
): Promise<TResult[]> {
  if (ids.length === 0) return [];
  if (!compat.pointReads) {
    return (await compat.retry(() => collection.find({ _id: { $in: [...ids] } } as Filter<TSchema>, options).toArray(), urgent)) as unknown[] as TResult[];
  }
  const found = await Promise.all(ids.map((_id) => compat.retry(() => collection.findOne({ _id } as Filter<TSchema>, options), urgent)));
  return found.filter((document) => document !== null) as unknown[] as TResult[];
}

/** The key and the expected state, all equalities: MongoDB plans them by the key's index. */
function expectedWithKey<T>(key: Readonly<Record<string, unknown>>, expected: Partial<T>): Filter<T> {
  return { ...key, ...expected } as Filter<T>;
}

/** Equality on the key alone reaches the store's query planner; the rest is matched on the documents it finds. */
function expectedAfterFetch<T>(key: Readonly<Record<string, unknown>>, expected: Partial<T>): Filter<T> {
  const filter: Record<string, unknown> = { ...key };
  for (const [field, value] of Object.entries(expected)) filter[field] = { $in: [value] };
  return filter as Filter<T>;
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

/**
 * `deadlineMs`: on every store, each operation is given up after it (storage/availability.ts
 * withinDeadline), so one command the driver never ends holds neither its caller nor a lane slot.
 */
export function storeCompat(name: StoreCompatName, deadlineMs: number = CLIENT_TIMEOUT_DEFAULTS.socketTimeoutMS): StoreCompat {
  const bounded = <T>(operation: () => Promise<T>): Promise<T> => withinDeadline(operation(), deadlineMs);
  if (name === 'mongodb') {
    const direct = <T>(operation: () => Promise<T>, _urgent?: boolean): Promise<T> => bounded(operation);
    return {
      name,
      deliveryBacklog: () => {},
      uniqueKeyClaims: false,
      deferredEventCounters: false,
      pointReads: false,
      concurrentOperations: true,
      writeConcurrency: 4,
      maxWriteBatch: Number.POSITIVE_INFINITY,
      dueReadAhead: INDEXED_DUE_READ,
      write: direct,
      retry: direct,
      byId: <T extends { _id: string }>(id: string, expected: Partial<Omit<T, '_id'>>) => expectedWithKey<T>({ _id: id }, expected as Partial<T>),
      byKey: expectedWithKey,
    };
  }
  const lane = new StoreLane();
  return {
    name,
    uniqueKeyClaims: true,
    deferredEventCounters: true,
    pointReads: true,
    concurrentOperations: false,
    writeConcurrency: 1,
    maxWriteBatch: 50,
    dueReadAhead: DECODED_DUE_READ,
    deliveryBacklog: (present) => lane.setBacklog(present),
    write: (operation, urgent) => lane.run(() => retryTransient(() => bounded(operation)), urgent),
    retry: (operation, urgent) => lane.run(() => retryTransient(() => bounded(operation)), urgent),
    byId: <T extends { _id: string }>(id: string, expected: Partial<Omit<T, '_id'>>) => expectedAfterFetch<T>({ _id: id }, expected as Partial<T>),
    byKey: expectedAfterFetch,
  };
}

/**
 * 'auto' asks the server: FerretDB adds `ferretdbVersion` to `buildInfo`. Operations are given up at
 * the client's socket timeout.
 */
export async function detectStoreCompat(db: Db, configured: StoreCompatName | 'auto' = 'auto'): Promise<StoreCompat> {
  const deadlineMs = db.client.options.socketTimeoutMS || CLIENT_TIMEOUT_DEFAULTS.socketTimeoutMS;
  if (configured !== 'auto') return storeCompat(configured, deadlineMs);
  const info = await db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Record<string, unknown>);
  const ferret = typeof info.ferretdbVersion === 'string' || (typeof info.ferretdbFeatures === 'object' && info.ferretdbFeatures !== null);
  return storeCompat(ferret ? 'ferretdb-v1' : 'mongodb', deadlineMs);
}
