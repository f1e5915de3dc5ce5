// Keeps a stored event's status in step with its rows (the I/O around deliveries/status.ts).
import type { Collections } from '../storage/collections.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { eventStatusAfterRowChange } from './status.js';

// No transactions: another writer (the engine) may change rows between our read and our write, so
// re-read after writing and settle within a few rounds.
const SETTLE_ROUNDS = 3;

export async function refreshEventStatus(collections: Collections, eventId: string, now: Date): Promise<void> {
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    const event = await collections.events.findOne({ _id: eventId }, { projection: { status: 1 } });
    if (!event) return;
    const rows = await collections.deliveries
      .find({ eventId }, { projection: { status: 1 } })
      .toArray() as Pick<DeliveryDocument, '_id' | 'status'>[];
    const next = eventStatusAfterRowChange(event.status, rows.map((row) => row.status));
    if (next === event.status) return;
    // Conditional on the status we read, so a concurrent change makes us re-read instead of clobbering.
    await collections.events.updateOne({ _id: eventId, status: event.status }, { $set: { status: next, updatedAt: now } });
  }
}

/**
 * Disabling or deleting a subscriber cancels its rows that no attempt has claimed yet (PENDING):
 * they become FAILED with `reason` as lastError, and their events are re-aggregated. A row that is
 * IN_FLIGHT is left to finish its attempt: cancelling it here would race the engine's own update.
 */
export async function cancelPendingDeliveries(
  collections: Collections,
  subscriberId: string,
  reason: string,
  now: Date,
): Promise<number> {
  const pending = await collections.deliveries
    .find({ subscriberId, status: 'PENDING' }, { projection: { _id: 1, eventId: 1 } })
    .toArray();
  if (pending.length === 0) return 0;
  const result = await collections.deliveries.updateMany(
    { _id: { $in: pending.map((row) => row._id) }, status: 'PENDING' },
    { $set: { status: 'FAILED', lastError: reason, nextAttemptAt: null, updatedAt: now } },
  );
  for (const eventId of new Set(pending.map((row) => row.eventId))) await refreshEventStatus(collections, eventId, now);
  return result.modifiedCount;
}
