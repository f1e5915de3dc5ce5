// The dev stack's store (`make up`): a FerretDB wedged for good is noticed and restarted, and what
// it had accepted is still there. The wedge is the one FerretDB v1 is known for: a command with
// more statements than its connection pool (300) holds every connection and never ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MongoClient } from 'mongodb';
import { startFerretDb, watchFerretDb, type DevFerretDb } from './support/ferretdb.js';

let store: DevFerretDb;

beforeAll(async () => {
  store = await startFerretDb();
}, 120_000);

afterAll(async () => {
  await store?.stop();
});

test('a FerretDB that answers nothing is restarted within seconds, its data kept', async () => {
  const client = await new MongoClient(store.uri, { serverSelectionTimeoutMS: 5_000 }).connect();
  const docs = client.db('herald_dev').collection<{ _id: string; n: number }>('accepted');
  await docs.insertMany(Array.from({ length: 400 }, (_, i) => ({ _id: `d${i}`, n: i })));

  const lines: string[] = [];
  const watch = watchFerretDb(store, { intervalMs: 500, timeoutMs: 1_000, failures: 2, log: (line) => lines.push(line) });
  try {
    // 400 statements in one command: FerretDB's pool of 300 runs dry and the command never ends.
    const wedging = new MongoClient(store.uri, { socketTimeoutMS: 0 });
    void wedging
      .db('herald_dev')
      .collection<{ _id: string; n: number }>('accepted')
      .bulkWrite(Array.from({ length: 400 }, (_, i) => ({ updateOne: { filter: { _id: `d${i}` }, update: { $set: { n: -i } } } })), { ordered: false })
      .catch(() => undefined);

    const deadline = Date.now() + 30_000;
    while (!lines.includes('[store] FerretDB restarted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(lines[0]).toMatch(/^\[store\] FerretDB answered no query for \d+ s: restarting it/);
    expect(lines).toContain('[store] FerretDB restarted');
    await wedging.close(true).catch(() => undefined);

    const after = await new MongoClient(store.uri, { serverSelectionTimeoutMS: 5_000 }).connect();
    expect(await after.db('herald_dev').collection('accepted').countDocuments()).toBe(400);
    await after.close();
  } finally {
    await watch.stop();
    await client.close(true).catch(() => undefined);
  }
}, 90_000);

test('a FerretDB that answers is left alone', async () => {
  const lines: string[] = [];
  const watch = watchFerretDb(store, { intervalMs: 200, timeoutMs: 1_000, failures: 2, log: (line) => lines.push(line) });
  await new Promise((r) => setTimeout(r, 2_000));
  await watch.stop();
  expect(lines).toEqual([]);
});
