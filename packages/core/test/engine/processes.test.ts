// Crash safety and multi-process exclusivity, with engines in real child processes.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { eventually, scope, startHarness, type Harness } from './support/harness.js';
import { spawnEngine } from './support/processes.js';
import { startSink, type Sink, type SinkHandler } from './support/sink.js';

let database: TestDatabase;
let control: Harness; // publishes and reads; its engine is not started
let sink: Sink;

// Slow enough that attempts are in flight when a process is killed.
const slowOk: SinkHandler = (_request, response) => { setTimeout(() => response.writeHead(200).end(), 20); };

beforeAll(async () => {
  database = await openTestDatabase('processes');
  control = await startHarness({ database, start: false });
  sink = await startSink(slowOk);
});
afterAll(async () => {
  await control.close();
  await sink.close();
  await database.close();
});

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { MONGO_URI: database.uri, DB_NAME: database.dbName, MASTER_KEY: control.masterKey, ...extra };
}

function receivedDeliveryIds(from = 0): string[] {
  return sink.received.slice(from).map((request) => String(request.headers['herald-delivery-id']));
}

async function rowStatuses(eventType: string): Promise<Map<string, string>> {
  // Queued rows (PENDING, IN_FLIGHT) and settled ones; a row in both for a moment counts as queued.
  const read = (name: string) =>
    database.db.collection<{ _id: string; status: string }>(name).find({ eventType }, { projection: { status: 1 } }).toArray();
  const [queued, settled] = await Promise.all([read('herald_delivery_queue'), read('herald_deliveries')]);
  return new Map([...settled, ...queued].map((row) => [row._id, row.status]));
}

test('SIGKILL mid-run: after a restart every accepted event is delivered, duplicates bounded by what was in flight', async () => {
  await control.herald.subscribers.create(scope, { displayName: 'crash sink', targetUrl: sink.url, events: ['crash.*'] });
  const before = sink.received.length;
  const concurrency = 4;
  const first = spawnEngine(childEnv({ PUBLISH: '400', EVENT_TYPE: 'crash.happened', CONCURRENCY: String(concurrency), LEASE_MARGIN_MS: '1000' }));
  await first.ready;
  // Kill while it is both publishing and delivering.
  await eventually(async () => first.accepted.length, (n) => n >= 40, 60_000);
  await eventually(async () => sink.received.length - before, (n) => n >= 10, 60_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const accepted = [...first.accepted];
  expect(accepted.length).toBeLessThan(400); // it really died mid-run

  const second = spawnEngine(childEnv({ CONCURRENCY: String(concurrency), LEASE_MARGIN_MS: '1000' }));
  try {
    await second.ready;
    for (const eventId of accepted) {
      const event = await eventually(() => control.herald.events.get(scope, eventId), (e) => e.status === 'ALL_DELIVERED', 60_000);
      expect(event.deliveries).toHaveLength(1);
    }
    const statuses = await rowStatuses('crash.happened');
    // Nothing lost: every row of the run (accepted or not) ends delivered, none stuck or failed.
    await eventually(() => rowStatuses('crash.happened'), (s) => [...s.values()].every((status) => status === 'DELIVERED'), 60_000);
    const ids = receivedDeliveryIds(before);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const rowId of statuses.keys()) expect(counts.get(rowId), `row ${rowId} never received`).toBeGreaterThanOrEqual(1);
    const duplicates = ids.length - counts.size;
    // Only attempts in flight at the kill can be repeated: at most the process's concurrency.
    expect(duplicates).toBeLessThanOrEqual(concurrency);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}, 180_000);

test('two engine processes on one database deliver a batch exactly once', async () => {
  await control.herald.subscribers.create(scope, { displayName: 'pair sink A', targetUrl: sink.url, events: ['pair.*'] });
  await control.herald.subscribers.create(scope, { displayName: 'pair sink B', targetUrl: sink.url, events: ['pair.*'] });
  sink.setHandler((_request, response) => { response.writeHead(200).end(); });
  const before = sink.received.length;
  const engines = [spawnEngine(childEnv()), spawnEngine(childEnv())];
  try {
    await Promise.all(engines.map((engine) => engine.ready));
    // The control Herald does not run an engine: both children find the rows by polling, race
    // for every claim, and must not both win one.
    const events = [];
    for (let i = 0; i < 40; i += 1) {
      events.push((await control.herald.events.publish(scope, { eventType: 'pair.made', aggregateId: `p-${i}`, data: { i } })).event);
    }
    await eventually(() => rowStatuses('pair.made'), (s) => s.size === 80 && [...s.values()].every((status) => status === 'DELIVERED'), 90_000);
    const ids = receivedDeliveryIds(before);
    expect(ids).toHaveLength(80);
    expect(new Set(ids).size).toBe(80);
    // On MongoDB the counters' $inc is atomic; FerretDB v1 may lose an increment made by two
    // processes at once, which the reconciliation job repairs from the rows.
    for (const event of events.slice(0, 5)) {
      await eventually(() => control.herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED', 30_000);
    }
  } finally {
    for (const engine of engines) engine.child.kill('SIGTERM');
    await Promise.all(engines.map((engine) => engine.exited));
  }
}, 180_000);

test('an application that closes Herald ends by itself: nothing Herald started keeps its process alive', async () => {
  const since = new Date();
  const engine = spawnEngine(childEnv());
  try {
    await engine.ready;
    // Each maintenance job has run, and Agenda arms a timer beside every run that it never clears.
    await eventually(() => database.db.collection('herald_jobs').countDocuments({ lastFinishedAt: { $gt: since } }), (n) => n >= 4, 30_000);
    engine.child.kill('SIGINT');
    await engine.closed;
    // Half a job lock (3 s) at most; Agenda's default lock would hold it for 5 minutes.
    const ended = await Promise.race([engine.exited, new Promise((done) => setTimeout(() => done('still running'), 10_000))]);
    expect(ended).toBe(0);
  } finally {
    engine.child.kill('SIGKILL');
  }
}, 60_000);
