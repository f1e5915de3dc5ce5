// The one way a subscriber document is rewritten: a replace conditional on the revision read,
// re-read and re-applied when another writer got there first, each write taking its turn where the
// store needs one (storage/write-turns.ts). Updates, listener renewals and auto-disable all go
// through it, so none of them can write over another's change.
import type { CoreContext } from '../context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { isDuplicateKeyError } from '../storage/collections.js';
import type { SubscriberDocument } from '../storage/documents.js';
import { releaseWriteTurn, takeWriteTurn } from '../storage/write-turns.js';

/** Optimistic-concurrency retries of a write that raced another writer, with jittered backoff from the first delay. */
const UPDATE_ROUNDS = 8;
const UPDATE_RETRY_DELAY_MS = 10;

export function subscriberNotFound(handle: string): NotFoundError {
  return new NotFoundError(`webhook subscriber "${handle}" not found`);
}

export function handleTaken(handle: string): ConflictError {
  return new ConflictError(`a webhook subscriber with id "${handle}" already exists`);
}

function pause(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, UPDATE_RETRY_DELAY_MS * 2 ** round * (0.5 + Math.random())));
}

/**
 * Writes `change(current)` over the stored document, conditional on the revision it was made
 * from, re-reading and re-applying it when another writer got there first; undefined when it kept
 * losing. `change` returns the next document with the revision after the current one.
 */
export async function replaceByRevision(
  context: Pick<CoreContext, 'collections' | 'compat'>,
  id: string,
  handle: string,
  change: (current: SubscriberDocument) => SubscriberDocument,
): Promise<{ current: SubscriberDocument; next: SubscriberDocument } | undefined> {
  const { collections, compat } = context;
  for (let round = 0; round < UPDATE_ROUNDS; round++) {
    if (round > 0) await pause(round - 1);
    const current = await collections.subscribers.findOne({ _id: id });
    if (!current || current.handle !== handle) throw subscriberNotFound(handle);
    const next = change(current);
    if (!(await takeWriteTurn(collections, compat, 'subscriber', current._id, next.revision, next.updatedAt))) continue;
    let matched = 0;
    try {
      // `null` also matches documents written without a revision.
      matched = (await collections.subscribers.replaceOne({ _id: current._id, revision: current.revision ?? null }, next)).matchedCount;
    } catch (error) {
      await releaseWriteTurn(collections, compat, 'subscriber', current._id, next.revision);
      if (isDuplicateKeyError(error)) throw handleTaken(next.handle);
      throw error;
    }
    if (matched === 1) return { current, next };
    await releaseWriteTurn(collections, compat, 'subscriber', current._id, next.revision);
  }
  return undefined;
}
