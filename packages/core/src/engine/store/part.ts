// What every part of the engine's store shares: the collections, the compatibility seam, and the
// engine's own way through it — its operations go first on FerretDB's lane (storage/store-lane.ts).
import type { Collections } from '../../storage/collections.js';
import { duplicateIndexes } from '../../storage/collections.js';
import type { StoreCompat } from '../../storage/compat.js';
import type { AttemptDocument } from '../../storage/documents.js';

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
