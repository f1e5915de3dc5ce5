// Per-key ordering, the publisher's side: sequence numbers for the rows of ordered subscribers,
// handed out by a counter document per key (`$inc`, one command per key, all side by side, so a
// batch waits one round trip more — only when it has ordered rows), and the check after the rows
// are written that releases a row whose predecessor settled while the batch was being written.
//
// Why that check: a row is written held when the row before it had not settled yet. If that
// predecessor settles before the held row exists, the engine's release finds nothing; the engine
// writes `done` before it releases, so this read, made after the rows exist, sees it.
import type { Collections } from '../storage/collections.js';
import { isDuplicateKeyError } from '../storage/collections.js';
import { findByIds, type StoreCompat } from '../storage/compat.js';
import type { DeliveryDocument, OrderKeyDocument } from '../storage/documents.js';
import { afterSettle, doneId, planKey, sequenceId, type OrderedRow } from './keys.js';

type Store = { collections: Collections; compat: StoreCompat };

/** A held row that may be released once its predecessor's settle is visible. */
export interface HeldHead {
  orderKey: string;
  orderSeq: number;
}

/**
 * Numbers the rows (in accepted order) that carry an `orderKey`, in place: `orderSeq` set, and
 * every row but a key's releasable first one held (`nextAttemptAt: null`). Returns, per key whose
 * first row is held, that row: what `releaseSettledPredecessors` looks at once the rows are written.
 */
export async function sequenceRows(store: Store, rows: readonly DeliveryDocument[], now: Date): Promise<HeldHead[]> {
  const byKey = new Map<string, DeliveryDocument[]>();
  for (const row of rows) {
    if (row.orderKey === undefined) continue;
    const list = byKey.get(row.orderKey) ?? [];
    list.push(row);
    byKey.set(row.orderKey, list);
  }
  if (byKey.size === 0) return [];
  const keys = [...byKey.keys()];
  const [lasts, done] = await Promise.all([takeNumbers(store, new Map(keys.map((key) => [key, byKey.get(key)!.length])), now), readDone(store, keys)]);
  const held: HeldHead[] = [];
  keys.forEach((key) => {
    const keyRows = byKey.get(key)!;
    const { sequences, firstReleased } = planKey(keyRows.length, lasts.get(key)!, done.get(key) ?? 0);
    keyRows.forEach((row, position) => {
      row.orderSeq = sequences[position]!;
      if (position > 0 || !firstReleased) row.nextAttemptAt = null;
    });
    if (!firstReleased) held.push({ orderKey: key, orderSeq: sequences[0]! });
  });
  return held;
}

/**
 * Releases the held first rows whose predecessor has settled meanwhile (its `done` is visible).
 * Returns how many were released.
 */
export async function releaseSettledPredecessors(store: Store, held: readonly HeldHead[], now: Date): Promise<number> {
  if (held.length === 0) return 0;
  const done = await readDone(store, held.map((head) => head.orderKey));
  const due = held.filter((head) => (done.get(head.orderKey) ?? 0) >= head.orderSeq - 1);
  return releaseRows(store, due, now);
}

/**
 * Ordered rows that left the queue for good (settled, or removed with no event to send): each key's
 * `done` moves up, then the next row of the key is released. In that order: a publisher that wrote a
 * held row after this release looked for it reads `done` after writing, and releases the row itself.
 * Returns how many rows were released.
 */
export async function passTurns(store: Store, rows: readonly OrderedRow[], now: Date, urgent = false): Promise<number> {
  const { done, release } = afterSettle(rows);
  if (done.size === 0) return 0;
  await store.compat.write(
    () =>
      store.collections.orderKeys.bulkWrite(
        [...done].map(([key, sequence]) => ({ updateOne: { filter: { _id: doneId(key) }, update: { $max: { done: sequence } }, upsert: true } })),
        { ordered: false },
      ),
    urgent,
  );
  return releaseRows(store, release, now, urgent);
}

/** Gives held rows (by key and sequence) a due time, if they are still held. */
export async function releaseRows(store: Store, heads: readonly HeldHead[], now: Date, urgent = false): Promise<number> {
  let released = 0;
  const heldRow = ({ orderKey, orderSeq }: HeldHead) => ({ orderKey, orderSeq, status: 'PENDING' as const, nextAttemptAt: null });
  const update = { $set: { nextAttemptAt: now, updatedAt: now } };
  for (let start = 0; start < heads.length; start += store.compat.maxWriteBatch) {
    const part = heads.slice(start, start + store.compat.maxWriteBatch);
    // One statement per row where a root `$or` is matched in Go after every queued row is decoded
    // (storage/compat.ts pointReads); each key's equality is an index lookup there.
    released += await store.compat.write(
      async () =>
        (store.compat.pointReads
          ? await store.collections.queue.bulkWrite(part.map((head) => ({ updateOne: { filter: heldRow(head), update } })), { ordered: false })
          : await store.collections.queue.updateMany({ $or: part.map(heldRow) }, update)
        ).modifiedCount,
      urgent,
    );
  }
  return released;
}

/**
 * The sequence of the last settled row of each key (0: none yet): one `$in` read, or one read by
 * `_id` per key where a `$in` is matched in Go after every key's documents are decoded
 * (storage/compat.ts pointReads).
 */
export async function readDone(store: Store, keys: readonly string[], urgent = false): Promise<Map<string, number>> {
  const ids = [...new Set(keys)].map(doneId);
  const { collections, compat } = store;
  const found = await findByIds(collections.orderKeys, compat, ids, {}, urgent);
  const done = new Map<string, number>();
  for (const document of found) if (document.done !== undefined) done.set(document._id.slice('done:'.length), document.done);
  return done;
}

/**
 * For each key, adds its count to the key's counter and returns the new value. Where a conditional
 * update is not atomic against a concurrent one (storage/compat.ts `uniqueKeyClaims`), two
 * publishers in two processes could read the same value: there every number taken is also
 * inserted as a marker with a unique `_id` (one command for the batch), and the keys that lose a
 * marker to another process take fresh numbers (a gap, which the sweep steps over).
 */
async function takeNumbers(store: Store, counts: ReadonlyMap<string, number>, now: Date): Promise<Map<string, number>> {
  const { collections, compat } = store;
  const lasts = new Map<string, number>();
  let pending = [...counts.keys()];
  for (let round = 0; pending.length > 0; round++) {
    const taken = await Promise.all(pending.map(async (key) => [key, (await compat.write(() => upsertInc(collections, key, counts.get(key)!)))?.last ?? counts.get(key)!] as const));
    for (const [key, last] of taken) lasts.set(key, last);
    if (!compat.uniqueKeyClaims) return lasts;
    const markers = taken.flatMap(([key, last]) => Array.from({ length: counts.get(key)! }, (_unused, index) => ({ _id: `${key}:${last - index}`, orderKey: key, createdAt: now })));
    try {
      await compat.write(() => collections.orderMarkers.insertMany(markers, { ordered: false }));
      return lasts;
    } catch (error) {
      const lost = duplicateIndexes(error);
      if (!lost || round >= 5) throw error;
      pending = [...new Set([...lost].map((index) => markers[index]!.orderKey))];
    }
  }
  return lasts;
}

async function upsertInc(collections: Collections, key: string, count: number): Promise<OrderKeyDocument | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await collections.orderKeys.findOneAndUpdate({ _id: sequenceId(key) }, { $inc: { last: count } }, { upsert: true, returnDocument: 'after' });
    } catch (error) {
      // Two first publishes of one key both tried to insert its counter: the loser updates now.
      if (attempt >= 3 || !isDuplicateKeyError(error)) throw error;
    }
  }
}

/** The indexes of an unordered insert's duplicate-key failures, or undefined if anything else failed. */
function duplicateIndexes(error: unknown): Set<number> | undefined {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as Array<{ code?: number; index: number }>;
  if (list.length === 0 || list.some((writeError) => writeError.code !== 11000)) return undefined;
  return new Set(list.map((writeError) => writeError.index));
}

/** Every held row of a subscriber becomes due (its ordering was turned off), a page at a time. */
export async function releaseHeldRows(store: Store, subscriberId: string, now: Date): Promise<number> {
  const { collections, compat } = store;
  let released = 0;
  for (;;) {
    const page = await compat.retry(() =>
      collections.queue.find({ subscriberId, status: 'PENDING', nextAttemptAt: null }, { projection: { _id: 1 } }).limit(compat.maxWriteBatch).toArray(),
    );
    if (page.length === 0) return released;
    const result = await compat.write(() =>
      collections.queue.updateMany({ _id: { $in: page.map((row) => row._id) }, status: 'PENDING', nextAttemptAt: null }, { $set: { nextAttemptAt: now, updatedAt: now } }),
    );
    released += result.modifiedCount;
  }
}
