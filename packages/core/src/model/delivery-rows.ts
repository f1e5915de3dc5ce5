// Where a delivery row lives. A row is in `delivery_queue` while it is PENDING or IN_FLIGHT — the
// engine's working set, which stays as small as the backlog — and in `deliveries` once it is
// DELIVERED or FAILED. The engine moves it when it settles (insert into the history, then delete
// from the queue) and a redelivery moves it back, so the cost of claiming and recording never
// grows with the history. A crash between the two writes can leave a row in both for a moment;
// readers then take the queue's copy, the live one.
import type { Document, Filter } from 'mongodb';
import type { Collections } from '../storage/collections.js';
import { duplicateIndexes } from '../storage/collections.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { findByIds, type StoreCompat } from '../storage/compat.js';

/**
 * Rows of both collections matching `filter`, one per id (the queue's copy wins). The two reads run
 * side by side, so a row moving between the collections at that moment can be missed by both; when
 * fewer rows than `expected` come back, both are read once more, and a row whose move finished
 * meanwhile is found where it went.
 */
export async function findRows<T extends Pick<DeliveryDocument, '_id'> = DeliveryDocument>(
  collections: Collections,
  filter: Filter<DeliveryDocument>,
  projection?: Document,
  expected = 0,
): Promise<T[]> {
  const options = projection ? { projection } : {};
  const read = async (): Promise<T[]> => {
    const [active, finished] = await Promise.all([
      collections.queue.find(filter, options).toArray() as Promise<unknown[]> as Promise<T[]>,
      collections.deliveries.find(filter, options).toArray() as Promise<unknown[]> as Promise<T[]>,
    ]);
    const seen = new Set(active.map((row) => row._id));
    return [...active, ...finished.filter((row) => !seen.has(row._id))];
  };
  const rows = await read();
  return rows.length < expected ? read() : rows;
}

/** The row with this id, wherever it is; read again once if neither collection had it (it may have been moving). */
export async function findRow(collections: Collections, id: string, projection?: Document): Promise<DeliveryDocument | null> {
  const options = projection ? { projection } : {};
  const read = async () => {
    const [active, finished] = await Promise.all([collections.queue.findOne({ _id: id }, options), collections.deliveries.findOne({ _id: id }, options)]);
    return active ?? finished;
  };
  return (await read()) ?? read();
}

/** Inserts rows, leaving out those another writer stored first (a duplicate key); returns those inserted. */
export async function insertAbsent(
  target: Collections['queue'] | Collections['deliveries'],
  rows: readonly DeliveryDocument[],
  compat: Pick<StoreCompat, 'write'>,
  urgent = false,
): Promise<readonly DeliveryDocument[]> {
  if (rows.length === 0) return rows;
  try {
    await compat.write(() => target.insertMany([...rows], { ordered: false }), urgent);
    return rows;
  } catch (error) {
    const duplicates = duplicateIndexes(error);
    if (!duplicates) throw error;
    return rows.filter((_row, index) => !duplicates.has(index));
  }
}

/**
 * Inserts copies into the history, each replacing a stored copy of the same row only if that copy's
 * writer took the row earlier (`takenAt`; a copy without one is older than any). The takes of one row
 * are ordered: a writer takes it only once the last holder's lease ran out and lease recovery
 * returned it, a lease's length (the attempt's timeout plus its margin) later, more than any clock
 * skew between processes. So a worker that stalled past its lease and settles late leaves the copy
 * of whoever took the row after it, while a copy left by a crash between a settle's two writes, or
 * one a redelivery is moving back, is replaced. A copy that is gone by the time it is replaced (a
 * cancellation taking back its copy of a row the engine claimed) is inserted all the same: the
 * replace upserts. Whether a writer's copy stood is read afterwards (`settledByUs`). The replaces go
 * `maxWriteBatch` statements per command (compat.ts: on FerretDB v1 a command holds a pooled
 * connection per statement, and a thousand replaces after two cancellations of the same rows
 * exhausted the pool for good).
 */
export async function insertOrReplace(
  target: Collections['deliveries'],
  copies: readonly (DeliveryDocument & { takenAt: Date })[],
  compat: Pick<StoreCompat, 'write' | 'maxWriteBatch'>,
  urgent = false,
): Promise<void> {
  const inserted = await insertAbsent(target, copies, compat, urgent);
  if (inserted.length === copies.length) return;
  const insertedIds = new Set(inserted.map((row) => row._id));
  const again = copies.filter((row) => !insertedIds.has(row._id));
  for (let start = 0; start < again.length; start += compat.maxWriteBatch) {
    const chunk = again.slice(start, start + compat.maxWriteBatch);
    const replaces = chunk.map((row) => ({
      replaceOne: { filter: { _id: row._id, $or: [{ takenAt: { $lt: row.takenAt } }, { takenAt: { $exists: false } }] }, replacement: row, upsert: true },
    }));
    try {
      await compat.write(() => target.bulkWrite(replaces, { ordered: false }), urgent);
    } catch (replaceError) {
      // The upsert of a row whose stored copy was taken later collides with that copy, which stands.
      if (!duplicateIndexes(replaceError)) throw replaceError;
    }
  }
}

/**
 * Which of the rows a writer moved into the history (its copies marked `settledBy: mark`) it did
 * settle, when its delete from the queue removed fewer than it wrote: a row still queued belongs to
 * whoever holds it now, and a row gone from the queue is the writer's only while the history holds
 * its copy (a writer that took the row over wrote its own). Runs only when a lease was lost.
 */
export async function settledByUs(
  collections: Collections,
  compat: Pick<StoreCompat, 'retry' | 'pointReads'>,
  ids: readonly string[],
  mark: string,
): Promise<Set<string>> {
  // The queue first: a row that leaves it after this read has its settling writer's copy in the
  // history before it leaves, so the history read then shows that copy.
  const queued = await findByIds(collections.queue, compat, ids, { projection: { _id: 1 } });
  const copies = await findByIds<DeliveryDocument, Pick<DeliveryDocument, '_id' | 'settledBy'>>(collections.deliveries, compat, ids, { projection: { _id: 1, settledBy: 1 } });
  const stillQueued = new Set(queued.map((row) => row._id));
  return new Set(copies.flatMap((row) => (row.settledBy === mark && !stillQueued.has(row._id) ? [row._id] : [])));
}
