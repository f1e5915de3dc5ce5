// What every part of the engine's store shares: the collections, the compatibility seam, and the
// engine's own way through it — its operations go first on FerretDB's lane (storage/store-lane.ts).
import type { AnyBulkWriteOperation } from 'mongodb';
import type { Collections } from '../../storage/collections.js';
import { duplicateIndexes } from '../../storage/collections.js';
import type { StoreCompat } from '../../storage/compat.js';
import type { AttemptDocument, DeliveryDocument } from '../../storage/documents.js';

/** A queued row to update, and the state it must still be in. */
export interface RowInState {
  id: string;
  expected: Partial<Omit<DeliveryDocument, '_id'>>;
}

export abstract class StorePart {
  readonly collections: Collections;
  readonly compat: StoreCompat;
  protected readonly read: <T>(operation: () => Promise<T>) => Promise<T>;
  protected readonly write: <T>(operation: () => Promise<T>) => Promise<T>;

  constructor(collections: Collections, compat: StoreCompat) {
    this.collections = collections;
    this.compat = compat;
    this.read = (operation) => compat.retry(operation, true);
    this.write = (operation) => compat.write(operation, true);
  }

  /**
   * Updates the queued rows still in the state each names; returns how many changed. One
   * `updateMany` of an `$or` where the store serves each branch by `_id`; where a root `$or` is
   * matched in Go after every queued row is decoded (storage/compat.ts pointReads), one update by
   * `_id` per row instead, at most `maxWriteBatch` to a command.
   */
  protected async updateRowsInState(rows: readonly RowInState[], update: { $set: Partial<DeliveryDocument>; $inc?: Partial<Record<'attempts', number>> }): Promise<number> {
    const filters = rows.map((row) => this.compat.byId<DeliveryDocument>(row.id, row.expected));
    if (!this.compat.pointReads) return filters.length === 0 ? 0 : (await this.write(() => this.collections.queue.updateMany({ $or: filters }, update))).modifiedCount;
    return this.updateQueueInChunks(filters.map((filter) => ({ updateOne: { filter, update } })));
  }

  /** Queue updates at most `maxWriteBatch` statements to a command; returns how many rows changed. */
  protected async updateQueueInChunks(operations: readonly AnyBulkWriteOperation<DeliveryDocument>[]): Promise<number> {
    let modified = 0;
    for (let start = 0; start < operations.length; start += this.compat.maxWriteBatch) {
      const part = operations.slice(start, start + this.compat.maxWriteBatch);
      modified += (await this.write(() => this.collections.queue.bulkWrite(part, { ordered: false }))).modifiedCount;
    }
    return modified;
  }
}

/** Attempt records are append-only: one already written by an earlier try of the same write is kept. */
export async function insertAttempts(part: { collections: Collections; compat: StoreCompat }, attempts: readonly AttemptDocument[]): Promise<void> {
  if (attempts.length === 0) return;
  try {
    await part.compat.write(() => part.collections.attempts.insertMany([...attempts], { ordered: false }), true);
  } catch (error) {
    if (!duplicateIndexes(error)) throw error;
  }
}
