// Which of several concurrent writers may write a document's next revision. On MongoDB the
// conditional replace itself decides (`{_id, revision}` is matched and replaced atomically), so
// taking a turn there costs nothing. Where conditional updates are not atomic (the seam's
// `uniqueKeyClaims`, FerretDB v1) two writers that read the same revision would both replace it and
// one change would be lost; there a writer first inserts a turn document whose `_id` names the
// revision it writes, and the unique `_id` lets exactly one of them have it.
import { isDuplicateKeyError, type Collections } from './collections.js';
import type { StoreCompat } from './compat.js';

/**
 * A turn older than this belongs to a writer that stopped between taking it and writing (every
 * store operation is given up at the client's socket timeout, storage/availability.ts), so the next
 * writer may take it over.
 */
export const ABANDONED_TURN_MS = 60_000;

export function turnId(kind: string, documentId: string, revision: number): string {
  return `${kind}:${documentId}:${revision}`;
}

/** Whether this writer may write `revision` of the document; false: another writer has it (re-read and try again). */
export async function takeWriteTurn(
  collections: Pick<Collections, 'writeTurns'>,
  compat: Pick<StoreCompat, 'uniqueKeyClaims' | 'write' | 'retry'>,
  kind: string,
  documentId: string,
  revision: number,
  now: Date,
): Promise<boolean> {
  if (!compat.uniqueKeyClaims) return true;
  const _id = turnId(kind, documentId, revision);
  for (let tries = 0; tries < 2; tries++) {
    try {
      await compat.write(() => collections.writeTurns.insertOne({ _id, createdAt: now }));
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const held = await compat.retry(() => collections.writeTurns.findOne({ _id }));
    if (held && now.getTime() - held.createdAt.getTime() < ABANDONED_TURN_MS) return false;
    // Abandoned (or gone meanwhile): removed by its own age, so two writers taking it over remove it once.
    if (held) await compat.write(() => collections.writeTurns.deleteOne({ _id, createdAt: held.createdAt }));
  }
  return false;
}

/** Gives a turn back when its write did not happen (refused, or the document had moved on), so the next writer need not wait it out. */
export async function releaseWriteTurn(
  collections: Pick<Collections, 'writeTurns'>,
  compat: Pick<StoreCompat, 'uniqueKeyClaims' | 'write'>,
  kind: string,
  documentId: string,
  revision: number,
): Promise<void> {
  if (!compat.uniqueKeyClaims) return;
  await compat.write(() => collections.writeTurns.deleteOne({ _id: turnId(kind, documentId, revision) }));
}
