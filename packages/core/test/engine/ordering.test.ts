// Per-key ordering (docs/ordering.md) on a real store with a real receiver: in order under random
// failures, a FAILED delivery letting the next of its key go (and saying so), other keys never held
// back, unordered subscribers untouched, and ordering turned off releasing what was held.
import { afterEach, expect, test } from 'vitest';
import { DeliveryStore } from '../../src/engine/store/index.js';
import { doneId, GAP_GRACE_MS } from '../../src/ordering/keys.js';
import { detectStoreCompat } from '../../src/storage/compat.js';
import { eventually, scope, startHarness, type Harness } from './support/harness.js';
import { orderedHandler, outOfOrder } from './support/ordered-sink.js';
import { startSink, type Sink } from './support/sink.js';

let harness: Harness | undefined;
let sink: Sink | undefined;
afterEach(async () => {
  await harness?.close();
  await sink?.close();
  harness = undefined;
  sink = undefined;
});

async function queued(h: Harness): Promise<Array<{ status: string; orderSeq?: number; nextAttemptAt: Date | null }>> {
  return h.database.db.collection<{ status: string; orderSeq?: number; nextAttemptAt: Date | null }>('herald_delivery_queue').find({}).toArray();
}

async function publishKeys(h: Harness, keys: number, perKey: number, eventType = 'order.created'): Promise<void> {
  // Interleaved, as a real producer's keys are: k0#1, k1#1, …, k0#2, …
  for (let round = 0; round < perKey; round += 1) {
    await Promise.all(Array.from({ length: keys }, (_unused, key) => h.herald.events.publish(scope, { eventType, aggregateType: 'order', aggregateId: `k${key}`, data: { round } })));
  }
}

test('each key arrives in order, one at a time, none lost, while the receiver fails at random', async () => {
  const { handler, log } = orderedHandler(() => (Math.random() < 0.3 ? 503 : 200));
  sink = await startSink(handler);
  harness = await startHarness({ delivery: { retrySchedule: [30, 60], maxAttempts: 30 } });
  await harness.herald.subscribers.create(scope, { displayName: 'ordered', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
  const keys = 12;
  const perKey = 8;
  await publishKeys(harness, keys, perKey);
  const h = harness;
  await eventually(() => queued(h), (rows) => rows.length === 0, 90_000);
  expect(outOfOrder(log.arrivals)).toEqual([]);
  expect(log.overlaps).toEqual([]);
  for (let key = 0; key < keys; key += 1) expect(log.delivered.get(`k${key}`)).toEqual(Array.from({ length: perKey }, (_unused, index) => index + 1));
  // Retries really happened, so the order was kept through them.
  expect([...log.arrivals.values()].flat().length).toBeGreaterThan(keys * perKey);
}, 120_000);

test('a delivery that ends FAILED lets the next one of its key go, and herald.delivery_exhausted says so', async () => {
  // The second event of key k0 is answered 410 (FAILED at once); everything else is accepted.
  const { handler, log } = orderedHandler((key, sequence) => (key === 'k0' && sequence === 2 ? 410 : 200));
  sink = await startSink(handler);
  harness = await startHarness();
  await harness.herald.subscribers.create(scope, { id: 'ordered', displayName: 'ordered', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
  await publishKeys(harness, 1, 4);
  const h = harness;
  await eventually(() => queued(h), (rows) => rows.length === 0, 30_000);
  expect(log.arrivals.get('k0')).toEqual([1, 2, 3, 4]);
  expect(log.delivered.get('k0')).toEqual([1, 3, 4]);
  const notice = await eventually(
    () => h.database.db.collection<{ eventType: string; data: string }>('herald_events').findOne({ eventType: 'herald.delivery_exhausted' }),
    (found) => found !== null,
  );
  expect(JSON.parse(notice!.data)).toMatchObject({ subscriberId: 'ordered', ordering: { aggregateType: 'order', aggregateId: 'k0', sequence: 2, nextProceeds: true } });
}, 60_000);

test('a key waiting on retries holds back neither other keys nor other subscribers', async () => {
  let stuckFails = true;
  const { handler, log } = orderedHandler((key) => (key === 'stuck' && stuckFails ? 500 : 200));
  sink = await startSink(handler);
  const plain = await startSink();
  try {
    harness = await startHarness({ delivery: { retrySchedule: [400], maxAttempts: 100 } });
    await harness.herald.subscribers.create(scope, { displayName: 'ordered', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
    await harness.herald.subscribers.create(scope, { displayName: 'unordered', targetUrl: plain.url, events: ['order.*'] });
    for (let i = 0; i < 3; i += 1) await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'stuck', data: { i } });
    for (let i = 0; i < 20; i += 1) await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: `free${i % 5}`, data: { i } });
    // Every other key, and the other subscriber, get everything while the stuck key keeps failing.
    await eventually(async () => [...log.delivered].filter(([key]) => key.startsWith('free')).flatMap(([, numbers]) => numbers).length, (n) => n === 20, 20_000);
    await plain.waitFor(23, 20_000);
    expect(plain.received.every((request) => !('sequence' in (JSON.parse(request.body.toString()) as object)))).toBe(true);
    // The stuck key is retried meanwhile, its head only.
    await eventually(async () => log.arrivals.get('stuck') ?? [], (numbers) => numbers.length >= 2, 10_000);
    expect(new Set(log.arrivals.get('stuck'))).toEqual(new Set([1]));
    stuckFails = false;
    await eventually(async () => log.delivered.get('stuck') ?? [], (numbers) => numbers.length === 3, 20_000);
    expect(log.delivered.get('stuck')).toEqual([1, 2, 3]);
    expect(outOfOrder(log.arrivals)).toEqual([]);
  } finally {
    await plain.close();
  }
}, 60_000);

test('turning ordering off releases the rows held for their turn', async () => {
  let fail = true;
  const { handler, log } = orderedHandler(() => (fail ? 500 : 200));
  sink = await startSink(handler);
  harness = await startHarness({ delivery: { retrySchedule: [60_000], maxAttempts: 5 } });
  await harness.herald.subscribers.create(scope, { id: 'toggle', displayName: 'toggle', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
  const h = harness;
  for (let i = 0; i < 3; i += 1) await h.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'k', data: { i } });
  await eventually(async () => log.arrivals.get('k') ?? [], (numbers) => numbers.length === 1, 10_000);
  const rows = await queued(h);
  expect(rows.map((row) => row.orderSeq).sort()).toEqual([1, 2, 3]);
  expect(rows.filter((row) => row.nextAttemptAt === null).map((row) => row.orderSeq).sort()).toEqual([2, 3]);
  fail = false;
  const updated = await h.herald.subscribers.update(scope, 'toggle', { ordering: 'none' });
  expect(updated.ordering).toBeUndefined();
  await eventually(async () => log.delivered.get('k') ?? [], (numbers) => numbers.length === 2, 10_000);
  expect(log.delivered.get('k')!.sort()).toEqual([2, 3]);
}, 60_000);

test('a key whose head settled without passing its turn on (a crash) is freed by the next sweep', async () => {
  let fail = true;
  const { handler, log } = orderedHandler(() => (fail ? 500 : 200));
  sink = await startSink(handler);
  harness = await startHarness({ delivery: { retrySchedule: [60_000], maxAttempts: 5 } });
  await harness.herald.subscribers.create(scope, { displayName: 'sweep', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
  const h = harness;
  for (let i = 0; i < 2; i += 1) await h.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'k', data: { i } });
  await eventually(async () => log.arrivals.get('k') ?? [], (numbers) => numbers.length === 1, 10_000);
  // The head settles (its key's `done` written) and the process stops before it releases the next.
  await eventually(() => queued(h), (rows) => rows.some((row) => row.orderSeq === 1 && row.status === 'PENDING'));
  const head = await h.database.db.collection<{ orderKey: string }>('herald_delivery_queue').findOne({ orderSeq: 1 });
  await h.database.db.collection<{ _id: string; done: number }>('herald_order_keys').updateOne({ _id: doneId(head!.orderKey) }, { $max: { done: 1 } }, { upsert: true });
  await h.database.db.collection('herald_delivery_queue').deleteOne({ orderSeq: 1 });
  fail = false;
  await eventually(async () => log.delivered.get('k') ?? [], (numbers) => numbers.length === 1, 10_000);
  expect(log.delivered.get('k')).toEqual([2]);
}, 60_000);

test('a key missing the number before its lowest row (an erased row, a gap) is freed once that row can no longer come', async () => {
  harness = await startHarness({ start: false });
  await harness.herald.subscribers.create(scope, { displayName: 'gap', targetUrl: 'http://127.0.0.1:9/', events: ['order.*'], ordering: 'aggregate' });
  const h = harness;
  for (let i = 0; i < 3; i += 1) await h.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'k', data: { i } });
  // Number 1's row is gone before it settled: erased, or its publish has not written it yet.
  await h.database.db.collection('herald_delivery_queue').deleteOne({ orderSeq: 1 });
  const store = new DeliveryStore(h.database.db, 'herald_', await detectStoreCompat(h.database.db));
  expect(await store.recovery.releaseStalledKeys(new Date())).toBe(0);
  expect((await queued(h)).every((row) => row.nextAttemptAt === null)).toBe(true);
  expect(await store.recovery.releaseStalledKeys(new Date(Date.now() + GAP_GRACE_MS + 1_000))).toBe(1);
  expect((await queued(h)).filter((row) => row.nextAttemptAt !== null).map((row) => row.orderSeq)).toEqual([2]);
});
