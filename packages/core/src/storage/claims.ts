// Claims of queued rows' incarnations, where conditional updates are not atomic (the seam's
// `uniqueKeyClaims`, FerretDB v1): whoever inserts a row's claim first may change that incarnation.
// The engine claims rows to send them (engine/store.ts); a requeue claims the rows it resets
// (deliveries/requeue.ts), a cancellation those it cancels (model/event-status.ts), so none writes
// over another.
import { claimKey, duplicateIndexes, type Collections } from './collections.js';
import type { StoreCompat } from './compat.js';
import type { DeliveryDocument } from './documents.js';

/** The rows whose current incarnation `owner` now holds; the others were claimed first by someone else. */
export async function claimIncarnations<T extends Pick<DeliveryDocument, '_id' | 'attempts' | 'nextAttemptAt'>>(
  collections: Pick<Collections, 'claims'>,
  compat: Pick<StoreCompat, 'write'>,
  rows: readonly T[],
  owner: string,
  now: Date,
  urgent = false,
): Promise<T[]> {
  const documents = rows.map((row) => ({ _id: claimKey(row), deliveryId: row._id, owner, createdAt: now }));
  try {
    await compat.write(() => collections.claims.insertMany(documents, { ordered: false }), urgent);
    return [...rows];
  } catch (error) {
    const lost = duplicateIndexes(error);
    if (!lost) throw error;
    return rows.filter((_row, index) => !lost.has(index));
  }
}
