// Endpoint health end to end: a receiver that keeps failing gets its deliveries held — PENDING,
// attempts untouched, one probe at a time — and when it answers again the backlog drains; the
// state shows on the subscriber. Nothing is skipped or failed because the endpoint was down.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MongoClient } from 'mongodb';
import { createHerald } from '../../src/index.js';
import { openTestDatabase } from '../../../../test/support/mongo.js';
import { startTcpProxy } from '../../../../test/support/tcp-proxy.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventually, FAST_DELIVERY, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  harness = await startHarness({ delivery: { maxAttempts: 20, retrySchedule: [100], breaker: { failures: 3, windowMs: 0, probeBackoffMs: [400] } } });
  receiver = await startSink(answer(503));
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

test('held while down, probed one at a time, drained when back', async () => {
  await harness.herald.subscribers.create(scope, { id: 'flaky-endpoint', displayName: 'flaky', targetUrl: receiver.url, events: ['order.*'] });
  const first = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o0', data: {} });
  await eventually(() => harness.herald.subscribers.get(scope, 'flaky-endpoint'), (subscriber) => subscriber.health?.state === 'open');

  const atOpening = receiver.received.length;
  const held = await Promise.all(Array.from({ length: 5 }, (_, i) => harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `o${i + 1}`, data: {} })));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  // While open only probes reach the receiver, one at a time every 400 ms, each a row's real attempt;
  // every other row waits PENDING with no attempt spent.
  const probes = receiver.received.length - atOpening;
  expect(probes).toBeGreaterThanOrEqual(1);
  expect(probes).toBeLessThanOrEqual(5);
  const rows = await Promise.all(held.map(async ({ event }) => (await harness.herald.events.get(scope, event.eventId)).deliveries[0]!));
  // A probe may be on its way at the moment of reading: at most one row is IN_FLIGHT.
  expect(rows.every((row) => row.status === 'PENDING' || row.status === 'IN_FLIGHT')).toBe(true);
  expect(rows.filter((row) => row.status === 'IN_FLIGHT').length).toBeLessThanOrEqual(1);
  expect(rows.reduce((sum, row) => sum + row.attempts, 0)).toBeLessThanOrEqual(probes);
  expect(rows.filter((row) => row.attempts === 0).length).toBeGreaterThanOrEqual(5 - probes);
  const subscriber = await harness.herald.subscribers.get(scope, 'flaky-endpoint');
  expect(subscriber.health).toMatchObject({ state: 'open', lastError: expect.stringContaining('503') });

  receiver.setHandler(answer(204));
  for (const { event } of [first, ...held]) {
    expect((await eventually(() => harness.herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED', 20_000)).status).toBe('ALL_DELIVERED');
  }
  expect((await harness.herald.subscribers.get(scope, 'flaky-endpoint')).health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
});

test('a health change made by the last attempts of a drain is recorded before the engine stops', async () => {
  const receiver503 = await startSink(async (request, response, index) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    answer(503)(request, response, index);
  });
  // Herald alone on a database of its own, through a slow store (60 ms per round trip), on a
  // client of its own that is closed as soon as Herald has stopped, as an embedding application's.
  const database = await openTestDatabase('breaker_stop');
  const slowStore = await startTcpProxy(database.uri, { delayMs: 60 });
  const client = new MongoClient(slowStore.uri);
  const herald = await createHerald({
    mongo: { db: client.db(database.dbName) },
    masterKeys: { current: 'k1', keys: { k1: harness.masterKey } },
    delivery: { ...FAST_DELIVERY, leaseMarginMs: 10_000, breaker: { failures: 1, windowMs: 0, probeBackoffMs: [60_000] } },
  });
  try {
    await herald.start();
    await herald.subscribers.create(scope, { id: 'failing-at-stop', displayName: 'failing', targetUrl: receiver503.url, events: ['order.*'] });
    await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o-stop', data: {} });
    await eventually(async () => receiver503.received.length, (received) => received > 0);
    await herald.close(); // the 503 arrives while draining: the breaker opens
    await client.close();
    const health = await database.db.collection('herald_subscriber_health').find({}).toArray();
    expect(health).toMatchObject([{ state: 'open', consecutiveFailures: 1, lastError: 'HTTP 503' }]);
  } finally {
    await client.close();
    await slowStore.close();
    await database.close();
    await receiver503.close();
  }
});
