// Where a delivery row lives. A row is in `delivery_queue` while it is PENDING or IN_FLIGHT — the
// engine's working set, which stays as small as the backlog — and in `deliveries` once it is
// DELIVERED or FAILED. The engine moves it when it settles (insert into the history, then delete
// from the queue) and a redelivery moves it back, so the cost of claiming and recording never
// grows with the history. A crash between the two writes can leave a row in both for a moment;
// readers then take the queue's copy, the live one.
import type { Document, Filter, MongoBulkWriteError } from 'mongodb';
import type { Collections } from '../storage/collections.js';
import { DUPLICATE_KEY } from '../storage/collections.js';
import type { DeliveryDocument } from '../storage/documents.js';
import type { StoreCompat } from '../storage/compat.js';

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

/**
 * Inserts rows, replacing any stored copy with the same id (a row settled twice, e.g. by a worker
 * whose lease had expired and by the one that took it over: the later write wins). A copy that is
 * gone by the time it is replaced (a cancellation taking back its copy of a row the engine
 * claimed) is inserted all the same: the replace upserts. The replaces go
 * `maxWriteBatch` statements per command (compat.ts: on FerretDB v1 a command holds a pooled
 * connection per statement, and a thousand replaces after two cancellations of the same rows
 * exhausted the pool for good).
 */
export async function insertOrReplace(
  target: Collections['deliveries'],
  rows: readonly DeliveryDocument[],
  compat: Pick<StoreCompat, 'write' | 'maxWriteBatch'>,
  urgent = false,
): Promise<void> {
  if (rows.length === 0) return;
  try {
    await compat.write(() => target.insertMany([...rows], { ordered: false }), urgent);
  } catch (error) {
    const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
    const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    if (list.length === 0 || list.some((writeError) => writeError.code !== DUPLICATE_KEY)) throw error;
    const again = list.map((writeError) => rows[writeError.index]!);
    for (let start = 0; start < again.length; start += compat.maxWriteBatch) {
      const chunk = again.slice(start, start + compat.maxWriteBatch);
      await compat.write(() => target.bulkWrite(chunk.map((row) => ({ replaceOne: { filter: { _id: row._id }, replacement: row, upsert: true } })), { ordered: false }), urgent);
    }
  }
}
