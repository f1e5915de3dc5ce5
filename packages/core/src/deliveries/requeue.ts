// Manual redelivery: rows back to PENDING, due now, with a fresh retry budget (attempts reset to 0;
// the attempt history keeps every earlier attempt). Rows IN_FLIGHT are left to finish, and rows of
// subscribers that are now disabled or deleted are not resent: those subscribers opted out.
import type { Filter } from 'mongodb';
import type { CoreContext } from '../context.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { refreshEventStatus } from './event-status.js';

export async function requeueRows(context: CoreContext, filter: Filter<DeliveryDocument>, eventIds: readonly string[]): Promise<string[]> {
  const { collections } = context;
  const candidates = await collections.deliveries
    .find({ ...filter, status: { $in: ['DELIVERED', 'FAILED', 'PENDING'] } }, { projection: { _id: 1, subscriberId: 1 } })
    .toArray();
  const subscriberIds = [...new Set(candidates.map((row) => row.subscriberId))];
  const enabled = new Set(
    (
      await Promise.all(
        subscriberIds.map((_id) => collections.subscribers.findOne({ _id, enabled: true }, { projection: { _id: 1 } })),
      )
    ).flatMap((subscriber) => (subscriber ? [subscriber._id] : [])),
  );
  const ids = candidates.filter((row) => enabled.has(row.subscriberId)).map((row) => row._id);
  if (ids.length > 0) {
    const now = context.now();
    await collections.deliveries.updateMany(
      { _id: { $in: ids }, status: { $in: ['DELIVERED', 'FAILED', 'PENDING'] } },
      { $set: { status: 'PENDING', nextAttemptAt: now, attempts: 0, leaseOwner: null, leaseUntil: null, updatedAt: now } },
    );
    for (const eventId of eventIds) await refreshEventStatus(collections, eventId, now);
    context.notifyEngine(ids);
  }
  return ids;
}
