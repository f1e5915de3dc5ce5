// The events list's indexes against a real MongoDB-wire server: they end with the list's exact
// order, and the narrower ones of earlier versions are dropped when Herald starts.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { ensureIndexes, EVENT_LIST_ORDER } from '../src/storage/indexes.js';
import { openTestHerald, type TestHerald } from './helpers.js';

let t: TestHerald;
let collections: Collections;

beforeAll(async () => {
  t = await openTestHerald('core_indexes');
  collections = collectionsFor(t.database.db, 'herald_');
});
afterAll(async () => {
  await t.close();
});

async function eventIndexes(): Promise<Map<string, Record<string, unknown>>> {
  return new Map((await collections.events.indexes()).map((index) => [index.name ?? '', index.key]));
}

test('the events list has an index per filter whose keys end with the list order, _id included', async () => {
  const indexes = await eventIndexes();
  expect(EVENT_LIST_ORDER).toEqual({ occurredAt: -1, _id: -1 });
  expect(indexes.get('org_list_order')).toEqual({ orgId: 1, occurredAt: -1, _id: -1 });
  expect(indexes.get('org_status_list_order')).toEqual({ orgId: 1, status: 1, occurredAt: -1, _id: -1 });
});

test('indexes of earlier versions that end at occurredAt are dropped at start-up; a second start changes nothing', async () => {
  await collections.events.createIndex({ orgId: 1, occurredAt: -1 }, { name: 'org_occurred' });
  await collections.events.createIndex({ orgId: 1, status: 1, occurredAt: -1 }, { name: 'org_status_occurred' });
  expect([...(await eventIndexes()).keys()]).toEqual(expect.arrayContaining(['org_occurred', 'org_status_occurred']));

  await ensureIndexes(collections);
  const after = await eventIndexes();
  expect(after.has('org_occurred')).toBe(false);
  expect(after.has('org_status_occurred')).toBe(false);
  expect(after.has('org_list_order')).toBe(true);

  await ensureIndexes(collections);
  expect([...(await eventIndexes()).keys()].sort()).toEqual([...after.keys()].sort());
});
