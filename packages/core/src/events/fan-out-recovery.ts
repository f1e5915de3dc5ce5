// Finds fan-outs a crash interrupted (an event with fewer rows than its `deliveryCount`) and
// completes them. It walks events in creation order from a cluster-wide cursor (engine_state), a
// page at a time, looking only at events older than a grace period (younger ones may be a publish
// in progress), so each event is checked about once, however long the history. Only events still
// open are looked at: an event is settled when its open counter reaches zero, and that counter
// starts at the number of planned rows, so a settled event has every row it planned.
import type { CoreContext } from '../context.js';
import { rowsByStatus } from '../model/event-counters.js';
import { isStoreUnavailable } from '../storage/availability.js';
import type { EventDocument } from '../storage/documents.js';
import { completeFanOut } from './fan-out.js';

const CURSOR_ID = 'fan-out-recovery-cursor';
const PAGE = 500;
const OPEN: ReadonlyArray<EventDocument['status']> = ['PENDING', 'DISPATCHED'];

type OpenEvent = Pick<EventDocument, '_id' | 'createdAt' | 'deliveryCount'>;

/**
 * The next page of open events created before `createdBefore`, after the cursor, in creation order.
 * One `$in` of the open statuses where the store's index serves it; where only an equality reaches
 * the store's planner (storage/compat.ts pointReads) a `$in` decodes every event stored, so each
 * open status is read by its own equality, and the two pages are merged.
 */
async function openEventsAfter(context: CoreContext, createdBefore: Date, after: Date, afterId: string): Promise<OpenEvent[]> {
  const { collections, compat } = context;
  const read = (status: EventDocument['status'] | { $in: Array<EventDocument['status']> }) =>
    compat.retry(() =>
      collections.events
        .find(
          { status, createdAt: { $lt: createdBefore }, $or: [{ createdAt: { $gt: after } }, { createdAt: after, _id: { $gt: afterId } }] },
          { projection: { _id: 1, createdAt: 1, deliveryCount: 1 } },
        )
        .sort({ createdAt: 1, _id: 1 })
        .limit(PAGE)
        .toArray(),
    );
  if (!compat.pointReads) return read({ $in: [...OPEN] });
  const pages = await Promise.all(OPEN.map((status) => read(status)));
  return pages
    .flat()
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
    .slice(0, PAGE);
}

/** How many rows (queued and settled) each event has. */
async function rowCounts(context: CoreContext, eventIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { _id, n } of await rowsByStatus(context.collections, context.compat, eventIds)) counts.set(_id.eventId, (counts.get(_id.eventId) ?? 0) + n);
  return counts;
}

export async function completeInterruptedFanOuts(context: CoreContext, createdBefore: Date): Promise<number> {
  const { collections, compat } = context;
  let completed = 0;
  for (;;) {
    const cursor = await compat.retry(() => collections.engineState.findOne({ _id: CURSOR_ID }));
    const after = cursor?.createdAt ?? new Date(0);
    const afterId = cursor?.eventId ?? '';
    const page = await openEventsAfter(context, createdBefore, after, afterId);
    if (page.length === 0) return completed;
    const withRows = page.filter((event) => (event.deliveryCount ?? 0) > 0);
    const rowsOf = await rowCounts(context, withRows.map((event) => event._id));
    for (const { _id, deliveryCount } of withRows) {
      if ((rowsOf.get(_id) ?? 0) >= deliveryCount) continue;
      try {
        const event = await compat.retry(() => collections.events.findOne({ _id }));
        if (event && (await completeFanOut(context, event as EventDocument)) > 0) completed++;
      } catch (error) {
        // An unreachable store fails the whole run, which the job scheduler reports once per outage.
        if (isStoreUnavailable(error)) throw error;
        context.logger.error({ eventId: _id, code: (error as { code?: unknown }).code }, 'completing an interrupted fan-out failed');
        return completed; // the cursor stays: the next run tries this event again
      }
    }
    const last = page.at(-1)!;
    await compat.write(() =>
      collections.engineState.updateOne({ _id: CURSOR_ID }, { $set: { createdAt: last.createdAt, eventId: last._id } }, { upsert: true }),
    );
    if (completed > 0) context.logger.warn({ completed }, 'completed fan-outs interrupted by a crash or a failed publish');
    if (page.length < PAGE) return completed;
  }
}
