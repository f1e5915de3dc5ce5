// Per-key ordering across engine processes (real child processes on one store): two engines racing
// for every claim keep each key in order and one at a time, and a SIGKILL of one mid-run loses no
// delivery and reorders nothing — the killed engine's in-flight head is sent again after lease
// recovery, before anything after it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { eventually, scope, startHarness, type Harness } from './support/harness.js';
import { orderedHandler, outOfOrder, type OrderLog } from './support/ordered-sink.js';
import { spawnEngine, type EngineChild } from './support/processes.js';
import { startSink, type Sink } from './support/sink.js';

let database: TestDatabase;
let control: Harness; // publishes; its engine is not started
let sink: Sink;
let log: OrderLog;

beforeAll(async () => {
  database = await openTestDatabase('ordering_processes');
  control = await startHarness({ database, start: false });
  // Slow enough that heads are in flight when a process is killed. A fifth of the answers fail, but
  // no delivery's more than twice: with 5 attempts (one may be the killed engine's) none runs out,
  // since a delivery that ends FAILED is missing by design and this test is about order and loss.
  const failures = new Map<string, number>();
  const ordered = orderedHandler((aggregateId, sequence) => {
    const id = `${aggregateId}#${sequence}`;
    const failed = failures.get(id) ?? 0;
    if (failed >= 2 || Math.random() >= 0.2) return 200;
    failures.set(id, failed + 1);
    return 503;
  }, 15);
  log = ordered.log;
  sink = await startSink(ordered.handler);
  await control.herald.subscribers.create(scope, { displayName: 'ordered', targetUrl: sink.url, events: ['order.*'], ordering: 'aggregate' });
});
afterAll(async () => {
  await control.close();
  await sink.close();
  await database.close();
});

function engine(): EngineChild {
  return spawnEngine({ MONGO_URI: database.uri, DB_NAME: database.dbName, MASTER_KEY: control.masterKey, LEASE_MARGIN_MS: '1000', CONCURRENCY: '8' });
}

async function queueSize(): Promise<number> {
  return database.db.collection('herald_delivery_queue').countDocuments({});
}

async function publish(keys: number, perKey: number, prefix: string): Promise<void> {
  for (let round = 0; round < perKey; round += 1) {
    await Promise.all(Array.from({ length: keys }, (_unused, key) => control.herald.events.publish(scope, { eventType: 'order.created', aggregateType: 'order', aggregateId: `${prefix}${key}`, data: { round } })));
  }
}

async function expectComplete(prefix: string, keys: number, perKey: number): Promise<void> {
  for (let key = 0; key < keys; key += 1) {
    const delivered = log.delivered.get(`${prefix}${key}`) ?? [];
    if (new Set(delivered).size !== perKey) {
      const rows = await database.db.collection('herald_deliveries').find({ orderKey: { $regex: `"${prefix}${key}"` } }, { projection: { orderSeq: 1, status: 1, attempts: 1, lastError: 1 } }).toArray();
      console.log(JSON.stringify({ key: `${prefix}${key}`, arrivals: log.arrivals.get(`${prefix}${key}`), rows }));
    }
    // A head whose engine died after the receiver answered may be delivered twice, never out of turn.
    expect([...new Set(delivered)], `${prefix}${key}`).toEqual(Array.from({ length: perKey }, (_unused, index) => index + 1));
  }
}

test('two engine processes keep every key in order and one at a time', async () => {
  const engines = [engine(), engine()];
  try {
    await Promise.all(engines.map((child) => child.ready));
    await publish(10, 8, 'pair');
    await eventually(queueSize, (n) => n === 0, 120_000);
    expect(outOfOrder(log.arrivals)).toEqual([]);
    expect(log.overlaps).toEqual([]);
    await expectComplete('pair', 10, 8);
  } finally {
    for (const child of engines) child.child.kill('SIGTERM');
    await Promise.all(engines.map((child) => child.exited));
  }
}, 180_000);

test('SIGKILL of one engine mid-run: nothing lost, nothing reordered after lease recovery', async () => {
  const first = engine();
  const second = engine();
  try {
    await Promise.all([first.ready, second.ready]);
    const publishing = publish(10, 10, 'crash');
    await eventually(async () => [...log.delivered].filter(([key]) => key.startsWith('crash')).flatMap(([, numbers]) => numbers).length, (n) => n >= 20, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    await publishing;
    await eventually(queueSize, (n) => n === 0, 120_000);
    const arrivals = new Map([...log.arrivals].filter(([key]) => key.startsWith('crash')));
    expect(outOfOrder(arrivals)).toEqual([]);
    await expectComplete('crash', 10, 10);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}, 240_000);
