// Finishing an erasure that attempts outlived. An attempt already on the wire when its event was
// erased ends after the erase, and its outcome is written then: a settled row in the history and an
// attempt record, maybe with a snippet of the receiver's answer. So an erase that removed rows
// IN_FLIGHT leaves a note, and once no attempt of the event can still be running (the longest lease
// has passed) the maintenance pass deletes what was written for the event since, then the note.
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';

const NOTE_PREFIX = 'erased:';
/** The first string after every note's `_id`: notes are one `_id` range. */
const NOTE_PREFIX_END = 'erased;';

export async function noteErasureInFlight(collections: Pick<Collections, 'engineState'>, compat: Pick<StoreCompat, 'write'>, eventId: string, orgId: string, now: Date): Promise<void> {
  await compat.write(() => collections.engineState.updateOne({ _id: `${NOTE_PREFIX}${eventId}` }, { $set: { eventId, orgId, createdAt: now } }, { upsert: true }));
}

/** Finishes the erasures noted before `noAttemptSince`, a page at a time; returns the documents removed. */
export async function finishErasures(
  collections: Pick<Collections, 'engineState' | 'events' | 'deliveries' | 'attempts'>,
  compat: Pick<StoreCompat, 'write' | 'retry'>,
  noAttemptSince: Date,
  limit = 100,
): Promise<number> {
  const notes = await compat.retry(() => collections.engineState.find({ _id: { $gte: NOTE_PREFIX, $lt: NOTE_PREFIX_END }, createdAt: { $lt: noAttemptSince } }).limit(limit).toArray(), true);
  let removed = 0;
  for (const note of notes) {
    const { eventId, orgId } = note;
    // An erase that failed after its note left the event stored: its rows are not late writes.
    const stored = eventId ? await compat.retry(() => collections.events.findOne({ _id: eventId }, { projection: { _id: 1 } }), true) : null;
    if (eventId && orgId && !stored) {
      const [rows, attempts] = await Promise.all([
        compat.write(() => collections.deliveries.deleteMany({ eventId, orgId }), true),
        compat.write(() => collections.attempts.deleteMany({ eventId, orgId }), true),
      ]);
      removed += rows.deletedCount + attempts.deletedCount;
    }
    await compat.write(() => collections.engineState.deleteOne({ _id: note._id, createdAt: note.createdAt }), true);
  }
  return removed;
}
