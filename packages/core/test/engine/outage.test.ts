// The store goes away and comes back: publishing fails fast with a typed "unavailable" error, the
// engine keeps polling without flooding the log, and delivery resumes by itself.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startFerretDb, type RunningFerretDb } from '../../../../test/support/ferretdb.js';
import { createHerald, isStoreUnavailable, type Herald } from '../../src/index.js';
import { eventSettles, FAST_DELIVERY, scope } from './support/harness.js';
import { startSink, type Sink } from './support/sink.js';

let ferret: RunningFerretDb;
let herald: Herald;
let sink: Sink;
const logs: Array<{ level: string; msg: string }> = [];
const record = (level: string) => (_fields: object, msg: string) => { logs.push({ level, msg }); };

beforeAll(async () => {
  ferret = await startFerretDb();
  sink = await startSink();
  herald = await createHerald({
    mongo: { uri: `${ferret.uri}?serverSelectionTimeoutMS=1000` },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: FAST_DELIVERY,
    logger: { debug: () => undefined, info: record('info'), warn: record('warn'), error: record('error') },
  });
  await herald.start();
  await herald.subscribers.create(scope, { displayName: 'sink', targetUrl: sink.url, events: ['order.*'] });
});
afterAll(async () => {
  await herald?.close();
  await sink?.close();
  await ferret?.stop();
});

test('publish fails fast while the store is down; the engine resumes by itself when it is back', async () => {
  const before = await herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o1', data: {} });
  expect((await eventSettles(herald, before.event.eventId)).status).toBe('ALL_DELIVERED');

  const port = Number(new URL(ferret.uri).port);
  await ferret.stop();
  const started = performance.now();
  const failures = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => herald.events.publish(scope, { eventType: 'order.created', aggregateId: `down${i}`, data: {} })));
  expect(performance.now() - started).toBeLessThan(4_000);
  for (const failure of failures) {
    expect(failure.status).toBe('rejected');
    expect(isStoreUnavailable((failure as PromiseRejectedResult).reason)).toBe(true);
  }
  expect(await herald.health()).toMatchObject({ mongo: false });
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // several polls fail meanwhile
  expect(logs.filter((line) => line.msg.startsWith('delivery poll failed'))).toHaveLength(1);

  ferret = await startFerretDb({ port });
  const after = await eventually(() => herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'back', data: {} }).catch(() => undefined));
  expect((await eventSettles(herald, after.event.eventId)).status).toBe('ALL_DELIVERED');
  // The event can settle by the fast path before the next poll has run (seen under load), so the
  // poll's own line is waited for, not assumed to be there already.
  const resumed = await eventually(async () => logs.find((line) => line.msg.startsWith('delivery poll succeeded again')), 10_000);
  expect(resumed.level).toBe('info');
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
