// Group commit for publishing: publishes made in the same turn of the event loop, and those that
// arrive while every write slot is busy, share a batch, and a batch costs three commands however
// many events it holds — one revision read per org, one insertMany of the events, one of their
// rows — in two round trips when the orgs' matches are cached and the store runs operations side
// by side (the revisions are read beside the events insert). A lone publisher gets a batch of one
// (the same three commands); concurrent publishers share the commands, and on a store that
// serialises writes (FerretDB v1) the batch is what keeps publishing ahead of the offered rate. Up
// to `compat.writeConcurrency` batches are in flight; an event is durable before its publish
// resolves.
import type { MongoBulkWriteError } from 'mongodb';
import type { CoreContext } from '../context.js';
import type { Admission, StartedEvent } from '../handover/fast-path.js';
import { DUPLICATE_KEY } from '../storage/collections.js';
import type { DeliveryDocument, EventDocument, SubscriberDocument } from '../storage/documents.js';
import type { Matcher } from '../model/subscriber-directory.js';
import { orderKeyOf } from '../ordering/keys.js';
import { releaseSettledPredecessors, sequenceRows, type HeldHead } from '../ordering/sequences.js';
import { newDeliveryRow } from './delivery-row.js';
import type { EventPayload } from '../model/payload.js';
import { filterSubscribers } from './subscriber-filter.js';

/** Most events one batch writes. */
const MAX_BATCH = 100;

export interface PublishedFanOut {
  event: EventDocument;
  rows: DeliveryDocument[];
}

interface Waiting {
  draft: EventDocument;
  payload: EventPayload;
  resolve(result: PublishedFanOut): void;
  reject(error: unknown): void;
}

interface Planned extends Waiting {
  event: EventDocument;
  rows: DeliveryDocument[];
  subscribers: SubscriberDocument[];
  admission: Admission;
  /** Per subscriber, whether its row was admitted to the fast path. */
  accepted: readonly boolean[];
}

export interface PublishBatcher {
  /** Records the event and its rows; rejects with the duplicate-key error of an idempotent repeat. */
  publish(draft: EventDocument, payload: EventPayload): Promise<PublishedFanOut>;
}

export function createPublishBatcher(context: CoreContext): PublishBatcher {
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const pump = (): void => {
    while (waiting.length > 0 && inFlight < context.compat.writeConcurrency) {
      const batch = waiting.splice(0, MAX_BATCH);
      inFlight += 1;
      void writeBatch(context, batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  };
  // A batch starts on the next turn of the event loop, not at the first publish: publishers woken
  // together (a batch's callers, a burst of requests) join one batch instead of each starting one.
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  };

  return {
    publish(draft, payload) {
      return new Promise<PublishedFanOut>((resolve, reject) => {
        waiting.push({ draft, payload, resolve, reject });
        schedule();
      });
    },
  };
}

async function writeBatch(context: CoreContext, batch: readonly Waiting[]): Promise<void> {
  const { collections, compat, directory } = context;
  // What the engine is told when the batch ends, in one hand-over whatever became of it.
  const admissions: Admission[] = [];
  const started: StartedEvent[] = [];
  let leftToPoll = false;
  let held: HeldHead[] = [];
  const planFor = (item: Waiting, matched: readonly SubscriberDocument[], now: Date): Planned => {
    const planned = plan(context, item, matched, now);
    admissions.push(planned.admission);
    return planned;
  };
  try {
    let planned: Planned[] = [];
    const orgIds = [...new Set(batch.map((item) => item.draft.orgId))];
    const readMatchers = async (): Promise<Map<string, Matcher>> =>
      new Map(await Promise.all(orgIds.map(async (orgId) => [orgId, await compat.retry(() => directory.forOrg(orgId))] as const)));
    const now = context.now();
    const cached = batch.map((item) => directory.cached(item.draft.orgId, item.draft.eventType));
    let repeated: Set<number>;
    if (compat.concurrentOperations && cached.every((matches) => matches !== undefined)) {
      // Every match is cached: the events are written while the revisions are read, so a publish
      // waits for two round trips in series, not three. An org whose revision moved since (one of
      // its subscribers changed) gets its events' fan-out planned again and corrected before any
      // row is written; until then no row of theirs exists, so nothing was sent on the old plan.
      planned = batch.map((item, index) => planFor(item, cached[index]!.subscribers, now));
      const [matchers, refused] = await Promise.all([readMatchers(), insertEvents(context, planned.map((item) => item.event))]);
      repeated = refused;
      const stale = batch.flatMap((item, index) => (!repeated.has(index) && matchers.get(item.draft.orgId)!.revision !== cached[index]!.revision ? [index] : []));
      if (stale.length > 0) {
        const current = await Promise.all(stale.map((index) => compat.retry(() => matchers.get(batch[index]!.draft.orgId)!.match(batch[index]!.draft.eventType))));
        stale.forEach((index, position) => {
          planned[index] = planFor(batch[index]!, current[position]!, now);
        });
        await compat.write(() =>
          collections.events.bulkWrite(
            stale.map((index) => ({ updateOne: { filter: { _id: planned[index]!.event._id }, update: { $set: fanOutPlan(planned[index]!.event) } } })),
            { ordered: false },
          ),
        );
      }
    } else {
      const matchers = await readMatchers();
      for (const item of batch) {
        // Only a miss is a read: a lane turn for a match held in memory would wait behind the
        // engine's operations for nothing, once per event of the batch.
        const matcher = matchers.get(item.draft.orgId)!;
        const subscribers = matcher.known(item.draft.eventType) ?? (await compat.retry(() => matcher.match(item.draft.eventType)));
        planned.push(planFor(item, subscribers, now));
      }
      // Events first: a row never exists without its event.
      repeated = await insertEvents(context, planned.map((item) => item.event));
    }
    for (const index of repeated) {
      const item = planned[index]!;
      item.reject(Object.assign(new Error(`event ${item.event._id} exists`), { code: DUPLICATE_KEY }));
    }
    planned = planned.filter((_item, index) => !repeated.has(index));
    const rows = planned.flatMap((item) => item.rows);
    // Rows of ordered subscribers take their numbers now that the events they belong to are known
    // not to be repeats (ordering/sequences.ts): one more round trip, for batches that have them.
    held = await sequenceRows(context, rows, now);
    // Rows another writer put in first (a repeat's fan-out completion) are not the ones planned
    // here: none of their event's rows is sent from here, the poll sends them all.
    const present = rows.length > 0 ? await insertRows(context, rows) : new Set<DeliveryDocument>();
    for (const item of planned) {
      const items = item.rows.some((row) => present.has(row))
        ? []
        : item.rows.flatMap((row, index) => (item.accepted[index] ? [{ row, subscriber: item.subscribers[index]!, payload: item.payload }] : []));
      const { event } = item;
      const polled = items.length < item.rows.length;
      started.push({ admission: item.admission, items, written: { eventId: event._id, open: event.openDeliveries, failed: event.failedDeliveries, status: event.status }, ...(polled ? { forPoll: event } : {}) });
      if (polled) leftToPoll = true;
    }
    for (const item of planned) item.resolve({ event: item.event, rows: item.rows });
  } catch (error) {
    started.length = 0;
    leftToPoll = false;
    for (const item of batch) item.reject(error); // no-op for those already answered
    return;
  } finally {
    context.engine.handOver({ admissions, started, leftToPoll });
  }
  if (held.length > 0) {
    void releaseSettledPredecessors(context, held, context.now()).then(
      (released) => {
        if (released > 0) context.engine.notify();
      },
      // The sweep (engine/store.ts releaseStalledKeys) releases them within a maintenance interval.
      (error: unknown) => context.logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, 'ordered deliveries not checked for release; the sweep will'),
    );
  }
}

/**
 * The event and its rows for the subscribers matching its type whose payload filter it passes, with
 * slots asked of the local engine.
 */
function plan(context: CoreContext, item: Waiting, matched: readonly SubscriberDocument[], now: Date): Planned {
  const subscribers = filterSubscribers(matched, item.payload);
  // Rows of ordered subscribers are never sent from the fast path: whether one may go at once is
  // known only once its sequence number is (ordering/sequences.ts); the poll sends it.
  const unordered = subscribers.filter((s) => s.ordering !== 'aggregate');
  const admission = context.engine.admit(
    unordered.map((s) => ({ subscriberId: s._id, timeoutMs: s.timeoutMs, maxConcurrency: s.maxConcurrency, rateLimitPerSecond: s.rateLimitPerSecond })),
    now,
  );
  const accepted = unordered.length === subscribers.length ? admission.accepted : spread(subscribers, admission.accepted);
  const event: EventDocument = {
    ...item.draft,
    status: subscribers.length > 0 ? 'DISPATCHED' : 'ALL_DELIVERED',
    subscriberIds: subscribers.map((subscriber) => subscriber._id),
    deliveryCount: subscribers.length,
    openDeliveries: subscribers.length,
    failedDeliveries: 0,
  };
  const rows = subscribers.map((subscriber, index) => {
    const row = newDeliveryRow(event, subscriber, now, accepted[index] ? admission : undefined);
    if (subscriber.ordering === 'aggregate') row.orderKey = orderKeyOf({ subscriberId: subscriber._id, aggregateType: event.aggregateType, aggregateId: event.aggregateId });
    return row;
  });
  return { ...item, event, rows, subscribers, admission, accepted };
}

/** The unordered subscribers' admissions spread over all subscribers (ordered ones: not admitted). */
function spread(subscribers: readonly SubscriberDocument[], accepted: readonly boolean[]): boolean[] {
  let next = 0;
  return subscribers.map((s) => (s.ordering === 'aggregate' ? false : accepted[next++]!));
}

/** The fields of an event that follow from its matching subscribers. */
function fanOutPlan(event: EventDocument): Pick<EventDocument, 'status' | 'subscriberIds' | 'deliveryCount' | 'openDeliveries'> {
  return { status: event.status, subscriberIds: event.subscriberIds, deliveryCount: event.deliveryCount, openDeliveries: event.openDeliveries };
}

/**
 * Inserts the rows; returns those refused because the event already has a row for that subscriber:
 * written by another writer — a repeat of the event completing its fan-out — while this one wrote.
 */
async function insertRows(context: CoreContext, rows: readonly DeliveryDocument[]): Promise<Set<DeliveryDocument>> {
  try {
    await context.compat.write(() => context.collections.queue.insertMany([...rows], { ordered: false }));
    return new Set();
  } catch (error) {
    return new Set([...duplicateIndexesOf(error)].map((index) => rows[index]!));
  }
}

/** The indexes a bulk insert refused as duplicate keys; rethrows any other failure. */
function duplicateIndexesOf(error: unknown): Set<number> {
  const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0 || list.some((writeError) => writeError.code !== DUPLICATE_KEY)) throw error;
  return new Set(list.map((writeError) => writeError.index));
}

/** Inserts the events; returns the indexes refused as duplicates (idempotent repeats). */
async function insertEvents(context: CoreContext, events: readonly EventDocument[]): Promise<Set<number>> {
  try {
    await context.compat.write(() => context.collections.events.insertMany([...events], { ordered: false }));
    return new Set();
  } catch (error) {
    return duplicateIndexesOf(error);
  }
}
