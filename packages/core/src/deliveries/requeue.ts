// Manual redelivery: rows back to PENDING, due now, with a fresh retry budget (attempts reset to 0;
// the attempt records keep every earlier attempt). Rows IN_FLIGHT are left to finish, and rows of
// subscribers that are now disabled or deleted are not resent: those subscribers opted out.
import type { Filter } from 'mongodb';
import type { CoreContext } from '../context.js';
import type { DeliveryStatus } from '../schemas/index.js';
import type { DeliveryDocument } from '../storage/documents.js';
import { applyEventDeltas, EventDeltas, recountEvents, rowDelta } from './event-counters.js';

const REQUEUEABLE: DeliveryStatus[] = ['DELIVERED', 'FAILED', 'PENDING'];

export async function requeueRows(context: CoreContext, filter: Filter<DeliveryDocument>): Promise<string[]> {
  const { collections, compat } = context;
  const candidates = await collections.deliveries
    .find({ ...filter, status: { $in: REQUEUEABLE } }, { projection: { _id: 1, subscriberId: 1, eventId: 1, status: 1 } })
    .toArray();
  const subscriberIds = [...new Set(candidates.map((row) => row.subscriberId))];
  const enabled = new Set(
    (await collections.subscribers.find({ _id: { $in: subscriberIds }, enabled: true }, { projection: { _id: 1 } }).toArray()).map(
      (subscriber) => subscriber._id,
    ),
  );
  const rows = candidates.filter((row) => enabled.has(row.subscriberId));
  if (rows.length === 0) return [];
  const now = context.now();
  // One update per status the rows come from, so the counters know exactly what moved.
  const deltas = new EventDeltas();
  let exact = true;
  for (const from of REQUEUEABLE) {
    const group = rows.filter((row) => row.status === from);
    if (group.length === 0) continue;
    const result = await compat.write(() =>
      collections.deliveries.updateMany(
        { _id: { $in: group.map((row) => row._id) }, status: from },
        { $set: { status: 'PENDING', nextAttemptAt: now, attempts: 0, leaseOwner: null, leaseUntil: null, updatedAt: now } },
      ),
    );
    if (result.modifiedCount !== group.length) exact = false;
    for (const row of group) deltas.add(row.eventId, rowDelta(from, 'PENDING'));
  }
  // A row changed between the read and the update (the engine or another retry): count afresh.
  if (exact) await applyEventDeltas(collections, compat, deltas, now);
  else await recountEvents(collections, compat, [...new Set(rows.map((row) => row.eventId))], now);
  context.engine.notify();
  return rows.map((row) => row._id);
}
