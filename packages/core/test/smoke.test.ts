import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';

let database: TestDatabase;
beforeAll(async () => { database = await openTestDatabase('smoke'); });
afterAll(async () => { await database.close(); });

test('the MongoDB-wire test server accepts writes and reads', async () => {
  const items = database.db.collection<{ _id: string; n: number }>('items');
  await items.insertOne({ _id: 'a', n: 1 });
  await items.createIndex({ n: 1 });
  expect(await items.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
});
