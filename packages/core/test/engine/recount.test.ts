// Recounting many events at once (the reconciliation's page of 200) on the test store: written in
// chunks, since FerretDB v1 never finishes a command with more statements than its connection pool.
// And the reconciliation never recounts an event whose counters a writer may still be changing.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { chunks, recountEvents } from '../../src/model/event-counters.js';
import { collectionsFor, type Collections } from '../../src/storage/collections.js';
import { detectStoreCompat } from '../../src/storage/compat.js';
import type { EventDocument } from '../../src/storage/documents.js';
import { DeliveryStore } from '../../src/engine/store/index.js';
import { deliveryRow } from '../support/delivery-row.js';

let database: TestDatabase;
let collections: Collections;

beforeAll(async () => {
  database = await openTestDatabase('recount');
  collections = collectionsFor(database.db, 'herald_');
});
afterAll(async () => {
  await database.close();
});

test('chunks splits in order and copes with an unbounded size', () => {
  expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunks([1, 2], Number.POSITIVE_INFINITY)).toEqual([[1, 2]]);
  expect(chunks([], 3)).toEqual([]);
});

test('200 events are recounted from their rows', async () => {
  const now = new Date();
  const ids = Array.from({ length: 200 }, (_, i) => `recount-${i}`);
  await collections.events.insertMany(
    ids.map((_id): EventDocument => ({
      _id, orgId: 'acme', eventType: 'a.b', aggregateType: 'a', aggregateId: 'x', status: 'DISPATCHED', occurredAt: now, createdAt: now,
      data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 0, openDeliveries: 5, failedDeliveries: 0, updatedAt: now,
    })),
  );
  await recountEvents(collections, await detectStoreCompat(database.db), ids, new Date());
  expect(await collections.events.countDocuments({ _id: { $in: ids }, status: 'ALL_DELIVERED', openDeliveries: 0 })).toBe(200);
}, 60_000);

test("the reconciliation leaves an event whose row just changed to that change's writer, and recounts it once quiet", async () => {
  const compat = await detectStoreCompat(database.db);
  const store = new DeliveryStore(database.db, 'herald_', compat);
  const now = new Date();
  const longAgo = new Date(now.getTime() - 3_600_000);
  await collections.events.insertOne({
    _id: 'settling', orgId: 'acme', eventType: 'a.b', aggregateType: 'a', aggregateId: 'x', status: 'DISPATCHED', occurredAt: longAgo, createdAt: longAgo,
    data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 1, openDeliveries: 1, failedDeliveries: 0, updatedAt: longAgo,
  });
  // The row has settled; the engine that settled it has not added that to the counters yet.
  await collections.deliveries.insertOne(deliveryRow('settling-row', { eventId: 'settling', status: 'DELIVERED', nextAttemptAt: null, updatedAt: now }));
  await store.recovery.reconcileEvents(now, 10_000, new Date(0));
  expect(await collections.events.findOne({ _id: 'settling' })).toMatchObject({ status: 'DISPATCHED', openDeliveries: 1 });
  // That engine never wrote it (it stopped): once the rows are quiet, the recount settles the event.
  await store.recovery.reconcileEvents(new Date(now.getTime() + 20_000), 10_000, new Date(0));
  expect(await collections.events.findOne({ _id: 'settling' })).toMatchObject({ status: 'ALL_DELIVERED', openDeliveries: 0 });
});
