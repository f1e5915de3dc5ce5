// A queued row whose event is gone (a redelivery moving it back while retention or an erase removes
// the event) can never be sent. The engine takes it out of the queue instead of claiming it again
// at every lease's end, and an ordered key it headed goes on with its next delivery at once.
import { afterEach, expect, test } from 'vitest';
import { DeliveryStore } from '../../src/engine/store/index.js';
import { detectStoreCompat } from '../../src/storage/compat.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';
import { answer, startSink, type Sink } from './support/sink.js';

const opened: Array<Harness | Sink> = [];
afterEach(async () => {
  for (const part of opened.reverse()) await part.close();
  opened.length = 0;
});

/** Publishes with an engine that is not running, so the rows wait for another process's poll. */
async function publishedElsewhere(ordering: 'none' | 'aggregate', receiverUrl: string): Promise<{ publisher: Harness; eventIds: string[] }> {
  const publisher = await startHarness({ start: false });
  opened.push(publisher);
  await publisher.herald.subscribers.create(scope, { displayName: 'orphans', targetUrl: receiverUrl, events: ['order.*'], ordering });
  const eventIds: string[] = [];
  for (const round of [1, 2]) {
    const { event } = await publisher.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'k', data: { round } });
    eventIds.push(event.eventId);
  }
  return { publisher, eventIds };
}

async function queuedEventIds(h: Harness): Promise<string[]> {
  const rows = await h.database.db.collection<{ eventId: string }>('herald_delivery_queue').find({}, { projection: { eventId: 1 } }).toArray();
  return rows.map((row) => row.eventId);
}

for (const ordering of ['none', 'aggregate'] as const) {
  test(`a queued row whose event is gone leaves the queue unsent; the other event is delivered (ordering: ${ordering})`, async () => {
    const receiver = await startSink(answer(204));
    opened.push(receiver);
    const { publisher, eventIds } = await publishedElsewhere(ordering, receiver.url);
    const [gone, kept] = eventIds as [string, string];
    await publisher.database.db.collection('herald_events').deleteOne({ _id: gone as never });

    const engine = await startHarness({ database: publisher.database, masterKey: publisher.masterKey });
    opened.push(engine);
    await eventually(() => queuedEventIds(engine), (ids) => ids.length === 0, 20_000);
    expect((await eventSettles(engine.herald, kept)).status).toBe('ALL_DELIVERED');
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([kept]);
    const history = await engine.database.db.collection('herald_deliveries').find({ eventId: gone }).toArray();
    expect(history).toEqual([]);
  }, 40_000);
}

test('only rows whose event the store does not hold are removed', async () => {
  const { publisher, eventIds } = await publishedElsewhere('none', 'http://127.0.0.1:9/');
  const db = publisher.database.db;
  const store = new DeliveryStore(db, 'herald_', await detectStoreCompat(db));
  const rows = await store.collections.queue.find({}).toArray();
  expect(await store.purging.removeRowsWithoutEvent(rows, new Date())).toBe(0);
  await store.collections.events.deleteOne({ _id: eventIds[0]! });
  expect(await store.purging.removeRowsWithoutEvent(rows, new Date())).toBe(1);
  expect((await store.collections.queue.find({}).toArray()).map((row) => row.eventId)).toEqual([eventIds[1]]);
});
