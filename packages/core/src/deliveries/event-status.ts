// Cancelling the rows of a subscriber that was disabled or deleted.
import { randomUUID } from 'node:crypto';
import type { Collections } from '../storage/collections.js';
import type { StoreCompat } from '../storage/compat.js';
import { applyEventDeltas, EventDeltas, rowDelta } from './event-counters.js';

/**
 * Disabling or deleting a subscriber cancels its rows that no attempt has claimed yet (PENDING):
 * they become FAILED with `reason` as lastError, and their events' counters follow. A row that is
 * IN_FLIGHT is left to finish its attempt. The rows this call cancelled are told apart from rows
 * the engine claimed meanwhile by a token written with them: three commands, however many rows.
 */
export async function cancelPendingDeliveries(
  collections: Collections,
  compat: StoreCompat,
  subscriberId: string,
  reason: string,
  now: Date,
): Promise<number> {
  const token = `cancel:${randomUUID()}`;
  const result = await compat.write(() =>
    collections.deliveries.updateMany(
      { subscriberId, status: 'PENDING' },
      { $set: { status: 'FAILED', lastError: reason, nextAttemptAt: null, settledBy: token, updatedAt: now } },
    ),
  );
  if (result.modifiedCount === 0) return 0;
  const cancelled = await compat.retry(() =>
    collections.deliveries.find({ subscriberId, settledBy: token }, { projection: { eventId: 1 } }).toArray(),
  );
  const deltas = new EventDeltas();
  for (const row of cancelled) deltas.add(row.eventId, rowDelta('PENDING', 'FAILED'));
  await applyEventDeltas(collections, compat, deltas, now);
  return result.modifiedCount;
}
