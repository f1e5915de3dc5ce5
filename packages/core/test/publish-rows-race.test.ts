// A batch one of whose events already has a row for one of its subscribers when the batch's rows are
// written — another writer got there first: a repeat of the same idempotency key completing the
// event's fan-out. Every item still succeeds (the events beside it are not refused for it), every
// subscriber has its row, and the row planned here is neither written twice nor sent from the fast
// path (the poll sends what is stored).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { idempotentEventId } from '../src/events/ids.js';
import type { DeliveryDocument } from '../src/storage/documents.js';
import { eventually, scope, startHarness, type Harness } from './engine/support/harness.js';
import { startSink, type Sink } from './engine/support/sink.js';

let h: Harness;
let sink: Sink;

beforeAll(async () => {
  h = await startHarness();
  sink = await startSink();
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

test("rows another writer inserted first: every item of the batch succeeds, no row is doubled, the raced event is not sent from the fast path", async () => {
  const subscriber = await h.herald.subscribers.create(scope, { displayName: 'sink', targetUrl: sink.url, events: ['order.*'] });
  const queue = h.database.db.collection<DeliveryDocument>('herald_delivery_queue');
  const history = h.database.db.collection<DeliveryDocument>('herald_deliveries');
  // A real row to copy the shape of.
  const { event: first } = await h.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o0', data: {} });
  await sink.waitFor(1);
  const template = await eventually(() => history.findOne({ eventId: first.eventId }), (row) => row !== null);
  const eventId = idempotentEventId(scope.orgId, 'race-1');
  // The other writer's row: due in an hour, so the poll leaves it alone while the test looks.
  const theirs = { ...template!, _id: 'theirs-row', eventId, status: 'PENDING', attempts: 0, nextAttemptAt: new Date(Date.now() + 3_600_000) } as DeliveryDocument;
  await queue.insertOne(theirs);

  // One group commit with an event of its own beside it: neither is refused for the other's row.
  const results = await h.herald.events.publishMany(scope, [
    { eventType: 'order.created', aggregateId: 'o1', data: {}, idempotencyKey: 'race-1' },
    { eventType: 'order.created', aggregateId: 'o2', data: {} },
  ]);
  expect(results.map((result) => result.ok)).toEqual([true, true]);
  const [raced, beside] = results as Array<Extract<(typeof results)[number], { ok: true }>>;
  expect(raced!.event.eventId).toBe(eventId);
  expect((await queue.find({ eventId }).toArray()).map((row) => row._id)).toEqual(['theirs-row']);
  // The event beside it is delivered from the fast path as usual; the raced one is not sent from it.
  await eventually(async () => sink.received.filter((request) => request.headers['webhook-id'] === beside!.event.eventId).length, (count) => count === 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(sink.received.filter((request) => request.headers['webhook-id'] === eventId)).toEqual([]);
  // The slots taken for the planned rows were given back.
  await eventually(async () => h.herald.metrics().inFlight, (inFlight) => inFlight === 0);
  expect(subscriber.id).toBeDefined();
});
