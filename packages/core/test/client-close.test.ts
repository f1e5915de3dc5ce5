// Operations caught by their client's close (the client keeper reopens the client after an outage,
// storage/client-keeper.ts) end with errors that read as "store unavailable": the host answers 503
// and the engine retries, never 500 or a failed delivery.
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { isStoreUnavailable } from '../src/storage/availability.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase('client_close');
  await database.db.collection('rows').insertMany(Array.from({ length: 500 }, (_, index) => ({ index, pad: 'x'.repeat(200) })));
});
afterAll(async () => {
  await database.close();
});

test('every error of reads, updates and bulk inserts in flight when their client closes is "store unavailable"', async () => {
  const seen = new Map<string, number>();
  const misread: string[] = [];
  for (let round = 0; round < 10; round++) {
    const client = new MongoClient(database.uri);
    await client.connect();
    const rows = client.db(database.dbName).collection('rows');
    const operations: Promise<unknown>[] = [];
    for (let index = 0; index < 20; index++) {
      operations.push(rows.find({}, { batchSize: 20 }).toArray());
      operations.push(rows.updateOne({ index }, { $set: { round } }));
      operations.push(rows.insertMany([{ round }, { round }]));
    }
    await new Promise((resolve) => setTimeout(resolve, round % 4));
    const closing = client.close();
    for (const outcome of await Promise.allSettled(operations)) {
      if (outcome.status === 'fulfilled') continue;
      const error = outcome.reason as Error;
      seen.set(error.name, (seen.get(error.name) ?? 0) + 1);
      if (!isStoreUnavailable(error)) misread.push(`${error.name}: ${error.message}`);
    }
    await closing;
  }
  // The close must have caught operations, or this test proves nothing.
  expect([...seen.values()].reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
  expect(misread).toEqual([]);
});
