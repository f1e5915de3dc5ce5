// The store goes away and comes back — the network to it is cut, so the store keeps its data, and
// this runs on either store path: publishing fails fast with a typed "unavailable" error, the
// engine keeps polling without flooding the log, delivery resumes by itself, and what was
// accepted before the outage is delivered after it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy.js';
import { createHerald, isStoreUnavailable, type Herald } from '../../src/index.js';
import { eventSettles, FAST_DELIVERY, scope } from './support/harness.js';
import { answer, startSink, type Sink } from './support/sink.js';

let database: TestDatabase;
let network: TcpProxy;
let herald: Herald;
let sink: Sink;
const logs: Array<{ level: string; msg: string }> = [];
const record = (level: string) => (_fields: object, msg: string) => { logs.push({ level, msg }); };

beforeAll(async () => {
  database = await openTestDatabase('outage');
  network = await startTcpProxy(database.uri);
  sink = await startSink();
  const uri = new URL(network.uri);
  uri.searchParams.set('serverSelectionTimeoutMS', '1000');
  // Herald gives up an operation after the socket timeout even where the driver would wait on
  // (storage/availability.ts withinDeadline): the cut can catch the poll's command in that state.
  uri.searchParams.set('socketTimeoutMS', '5000');
  herald = await createHerald({
    mongo: { uri: uri.toString(), dbName: database.dbName },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: FAST_DELIVERY,
    logger: { debug: () => undefined, info: record('info'), warn: record('warn'), error: record('error') },
  });
  await herald.start();
  await herald.subscribers.create(scope, { displayName: 'sink', targetUrl: sink.url, events: ['order.*'] });
});
afterAll(async () => {
  await herald?.close();
  await network?.close();
  await sink?.close();
  await database?.close();
});

test('publish fails fast while the store is unreachable; delivery resumes by itself, and what was accepted before is delivered', async () => {
  const before = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o1', data: {} });
  expect((await eventSettles(herald, before.event.eventId)).status).toBe('ALL_DELIVERED');

  // Accepted just before the cut; its receiver fails until the store is back, so it is delivered
  // by a retry written and read after the outage.
  sink.setHandler(answer(503));
  const pending = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'accepted-before', data: {} });
  network.cut();
  const started = performance.now();
  const failures = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => herald.events.publish(scope, { eventType: 'order.created', aggregateId: `down${i}`, data: {} })));
  expect(performance.now() - started).toBeLessThan(4_000);
  for (const failure of failures) {
    expect(failure.status).toBe('rejected');
    expect(isStoreUnavailable((failure as PromiseRejectedResult).reason)).toBe(true);
  }
  expect(await herald.health()).toMatchObject({ mongo: false });
  // A poll fails once server selection gives up (1 s here), or its command is given up at the
  // socket timeout (5 s here); the next failures are not logged.
  await eventually(async () => logs.find((line) => line.msg.startsWith('delivery poll failed')), 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // several polls fail meanwhile
  expect(logs.filter((line) => line.msg.startsWith('delivery poll failed'))).toHaveLength(1);
  expect(logs.filter((line) => line.msg === 'job scheduler error' || line.msg === 'maintenance job failed').length).toBeLessThanOrEqual(1);

  sink.setHandler(answer(204));
  network.restore();
  const after = await eventually(() => herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'back', data: {} }).catch(() => undefined));
  for (const { event } of [after, pending]) {
    const settled = await eventSettles(herald, event.eventId, 20_000);
    expect(settled.status).toBe('ALL_DELIVERED');
    expect(settled.deliveries).toHaveLength(1);
  }
  const delivered = sink.received.filter((request) => request.headers['webhook-id'] === pending.event.eventId);
  expect(delivered.length).toBeGreaterThanOrEqual(1);
  // The event can settle by the fast path before the next poll has run (seen under load), so the
  // poll's own line is waited for, not assumed to be there already.
  const resumed = await eventually(async () => logs.find((line) => line.msg.startsWith('delivery poll succeeded again')), 10_000);
  expect(resumed.level).toBe('info');
  // The maintenance jobs run again too (lease recovery among them), and say so once.
  await eventually(async () => logs.find((line) => line.msg === 'maintenance jobs run again'), 10_000);
}, 60_000);

async function eventually<T>(attempt: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no success within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
