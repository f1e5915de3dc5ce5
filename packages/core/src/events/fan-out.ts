// The fan-out of one event into delivery rows:
//   1. event inserted PENDING, with pendingSensitive (by publish)
//   2. event → DISPATCHED, deliveryCount, `fanOutIncomplete: true`   (ALL_DELIVERED, done, if no row)
//   3. insertMany rows (unordered, duplicates ignored: unique {eventId, subscriberId})
//   4. event: pendingSensitive and fanOutIncomplete unset
// Why DISPATCHED before the rows: rows are claimable the moment they are written, and the engine
// re-aggregates only events that are not PENDING. Were the event still PENDING then, a poller that
// delivered every row quickly would leave it DISPATCHED forever with all rows terminal.
// Every step is idempotent, so completeFanOut can redo an interrupted fan-out at any time: it
// looks for events still PENDING or still marked fanOutIncomplete.
import { randomUUID } from 'node:crypto';
import type { MongoBulkWriteError } from 'mongodb';
import type { CoreContext } from '../context.js';
import type { DeliveryStatus } from '../schemas/index.js';
import { DUPLICATE_KEY, isDuplicateKeyError } from '../storage/collections.js';
import type { DeliveryDocument, EventDocument, SealedSecret } from '../storage/documents.js';
import { refreshEventStatus } from '../deliveries/event-status.js';
import { findMatchingSubscribers } from '../subscribers/match-index.js';
import { buildSubscriberBody, type SplitData } from './payload.js';

/** What pendingSensitive holds once opened. */
export interface PendingSensitive {
  /** Key order of the original `data`. */
  order: string[];
  values: Record<string, unknown>;
}

export function sealPendingSensitive(context: CoreContext, pending: PendingSensitive): SealedSecret {
  return context.secretBox.seal(JSON.stringify(pending));
}

function openPendingSensitive(context: CoreContext, event: EventDocument): PendingSensitive {
  if (!event.pendingSensitive) return { order: Object.keys(event.data), values: {} };
  return JSON.parse(context.secretBox.open(event.pendingSensitive)) as PendingSensitive;
}

function isOnlyDuplicateKeyErrors(error: unknown): boolean {
  if (isDuplicateKeyError(error)) return true;
  const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((writeError) => writeError.code === DUPLICATE_KEY);
}

export interface FanOutResult {
  event: EventDocument;
  /** The event's rows: the ones written now, or all stored ones when some already existed. */
  rows: DeliveryDocument[];
}

/** Runs the fan-out of a PENDING event given its sensitive values. */
export async function fanOut(context: CoreContext, event: EventDocument, pending: PendingSensitive): Promise<FanOutResult> {
  const { collections } = context;
  const subscribers = await findMatchingSubscribers(collections, event.orgId, event.eventType);
  const split: SplitData = { publicData: event.data, sensitiveValues: pending.values };
  const now = context.now();
  const rows: DeliveryDocument[] = subscribers.map((subscriber) => {
    const secret = subscriber.secret ? context.secretBox.open(subscriber.secret) : undefined;
    const { body, encryptedFields } = buildSubscriberBody(
      {
        eventId: event._id,
        eventType: event.eventType,
        orgId: event.orgId,
        aggregateType: event.aggregateType,
        aggregateId: event.aggregateId,
        occurredAt: event.occurredAt,
      },
      split,
      pending.order,
      secret,
      context.signingProfile,
    );
    return {
      _id: randomUUID(),
      orgId: event.orgId,
      eventId: event._id,
      subscriberId: subscriber._id,
      subscriberHandle: subscriber.handle,
      targetUrl: subscriber.targetUrl,
      eventType: event.eventType,
      occurredAt: event.occurredAt,
      status: 'PENDING' as DeliveryStatus,
      attempts: 0,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseUntil: null,
      lastHttpStatus: null,
      lastError: null,
      lastAttemptAt: null,
      deliveredAt: null,
      body,
      encryptedFields,
      attemptHistory: [],
      createdAt: now,
      updatedAt: now,
    };
  });

  let storedRows = rows;
  if (rows.length === 0) {
    await collections.events.updateOne(
      { _id: event._id },
      { $set: { status: 'ALL_DELIVERED', deliveryCount: 0, updatedAt: now }, $unset: { pendingSensitive: '', fanOutIncomplete: '' } },
    );
  } else {
    // Updates by `_id` alone, the one filter FerretDB v1 pushes down (with a second condition it
    // decodes every event). Only a fan-out moves an event out of PENDING, so no condition is needed.
    await collections.events.updateOne(
      { _id: event._id },
      { $set: { status: 'DISPATCHED', deliveryCount: rows.length, fanOutIncomplete: true, updatedAt: now } },
    );
    try {
      await collections.deliveries.insertMany(rows, { ordered: false });
    } catch (error) {
      // A previous, interrupted run already wrote some rows: keep those, they may be in progress.
      if (!isOnlyDuplicateKeyErrors(error)) throw error;
      storedRows = await collections.deliveries.find({ eventId: event._id }).toArray();
    }
    await collections.events.updateOne(
      { _id: event._id },
      { $set: { deliveryCount: storedRows.length }, $unset: { pendingSensitive: '', fanOutIncomplete: '' } },
    );
  }
  const status = storedRows.length === 0 ? 'ALL_DELIVERED' : 'DISPATCHED';
  const pendingIds = storedRows.filter((row) => row.status === 'PENDING').map((row) => row._id);
  if (pendingIds.length > 0) context.notifyEngine(pendingIds);
  const { pendingSensitive: _sealed, fanOutIncomplete: _incomplete, ...dispatched } = event;
  return { event: { ...dispatched, status, deliveryCount: storedRows.length, updatedAt: now }, rows: storedRows };
}

/** Whether an event's fan-out has not finished (publish in progress, or interrupted by a crash). */
export function isFanOutIncomplete(event: Pick<EventDocument, 'status' | 'fanOutIncomplete'>): boolean {
  return event.status === 'PENDING' || event.fanOutIncomplete === true;
}

/**
 * Finishes an interrupted fan-out, then re-aggregates the event from its rows (some may have been
 * delivered meanwhile). No-op for an event whose fan-out is complete. Returns whether it did work.
 */
export async function completeFanOut(context: CoreContext, eventId: string): Promise<boolean> {
  const event = await context.collections.events.findOne({ _id: eventId });
  if (!event || !isFanOutIncomplete(event)) return false;
  await fanOut(context, event, openPendingSensitive(context, event));
  await refreshEventStatus(context.collections, eventId, context.now());
  return true;
}

/** Completes every unfinished fan-out of an event created before `createdBefore` (older ones are not in progress). */
export async function completePendingFanOuts(context: CoreContext, createdBefore: Date): Promise<number> {
  const stuck = await context.collections.events
    .find(
      { $or: [{ status: 'PENDING' }, { fanOutIncomplete: true }], createdAt: { $lt: createdBefore } },
      { projection: { _id: 1 } },
    )
    .toArray();
  let completed = 0;
  for (const { _id } of stuck) {
    try {
      if (await completeFanOut(context, _id)) completed++;
    } catch (error) {
      context.logger.error({ eventId: _id, code: (error as { code?: unknown }).code }, 'completing a pending fan-out failed');
    }
  }
  if (completed > 0) context.logger.warn({ completed }, 'completed fan-outs interrupted by a crash or a failed publish');
  return completed;
}
