// A subscriber's cancellation (disabled or deleted) racing the engine for the same row, and a
// settle whose stored copy vanishes before its replace: the row must end in one collection or the
// other, never in neither. The races are played in order, on the test store, through the
// collections the code is given.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { claimIncarnations } from '../src/storage/claims.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { detectStoreCompat, storeCompat, type StoreCompatName } from '../src/storage/compat.js';
import { DeliveryStore } from '../src/engine/store/index.js';
import type { DeliveryDocument } from '../src/storage/documents.js';
import { insertOrReplace } from '../src/model/delivery-rows.js';
import { cancelPendingDeliveries } from '../src/model/event-status.js';
import { holdingLease } from '../src/model/holding-leases.js';
import { deliveryRow } from './support/delivery-row.js';
import { withInsertHooks } from './support/insert-hook.js';

let database: TestDatabase;
let collections: Collections;

beforeAll(async () => {
  database = await openTestDatabase('cancel-race');
  collections = collectionsFor(database.db, 'herald_');
});
afterAll(async () => {
  await database.close();
});

/** The queue, with `afterRead` run after each of its reads returns (a writer acting at that moment). */
function queueWithHook(afterRead: (found: DeliveryDocument[]) => Promise<void>): Collections['queue'] {
  return new Proxy(collections.queue, {
    get(real, property, receiver) {
      if (property !== 'find') return Reflect.get(real, property, receiver);
      return (...args: Parameters<typeof real.find>) => {
        const cursor = real.find(...args);
        const toArray = cursor.toArray.bind(cursor);
        return Object.assign(cursor, {
          toArray: async () => {
            const found = await toArray();
            await afterRead(found);
            return found;
          },
        });
      };
    },
  });
}

for (const store of ['mongodb', 'ferretdb-v1'] as StoreCompatName[]) {
  test(`${store} path: a settle whose stored copy is removed between its insert and its replace still stores the row`, async () => {
    const compat = storeCompat(store);
    const id = `vanishing-${store}`;
    await collections.deliveries.insertOne(deliveryRow(id, { status: 'FAILED', settledBy: 'cancel:theirs' }));
    // Another writer takes its copy back right after this insert found it there.
    const target = withInsertHooks(collections.deliveries, { after: async () => void (await collections.deliveries.deleteOne({ _id: id })) });
    await insertOrReplace(target, [{ ...deliveryRow(id, { status: 'FAILED', lastError: 'the engine settled it', settledBy: 'engine-batch' }), takenAt: new Date() }], compat);
    expect(await collections.deliveries.findOne({ _id: id })).toMatchObject({ lastError: 'the engine settled it', settledBy: 'engine-batch' });
  });
}

test('ferretdb-v1 path: while a cancellation moves a row, the engine cannot claim it; a row the engine claimed first is left to it', async () => {
  const compat = storeCompat('ferretdb-v1');
  const engine = storeCompat('ferretdb-v1'); // the engine's own lane, as in another process
  const subscriberId = 'subscriber-cancelled';
  const [mine, theirs] = [deliveryRow('cancel-mine', { subscriberId }), deliveryRow('cancel-theirs', { subscriberId })];
  await collections.queue.insertMany([mine, theirs]);
  // The engine claims `theirs` as the cancellation reads; then, as the cancellation writes its
  // copies, tries to claim `mine` too.
  let engineWonMine: DeliveryDocument[] | undefined;
  const raced: Collections = {
    ...collections,
    queue: queueWithHook(async (found) => {
      if (found.some((doc) => doc._id === theirs._id && doc.status === 'PENDING')) {
        await claimIncarnations(collections, engine, [theirs], 'engine', new Date());
        await collections.queue.updateOne({ _id: theirs._id }, { $set: { status: 'IN_FLIGHT', leaseOwner: 'engine' } });
      }
    }),
    deliveries: withInsertHooks(collections.deliveries, {
      before: async () => {
        engineWonMine ??= await claimIncarnations(collections, engine, [mine], 'engine', new Date());
      },
    }),
  };
  expect(await cancelPendingDeliveries(raced, compat, subscriberId, 'Cancelled', new Date())).toBe(1);
  expect(engineWonMine).toEqual([]);
  expect(await collections.queue.findOne({ _id: mine._id })).toBeNull();
  expect(await collections.deliveries.findOne({ _id: mine._id })).toMatchObject({ status: 'FAILED', lastError: 'Cancelled' });
  // The engine's row: still queued and in flight, with no cancelled copy of it in the history.
  expect(await collections.queue.findOne({ _id: theirs._id })).toMatchObject({ status: 'IN_FLIGHT', leaseOwner: 'engine' });
  expect(await collections.deliveries.findOne({ _id: theirs._id })).toBeNull();
});

for (const store of ['mongodb', 'ferretdb-v1'] as StoreCompatName[]) {
  test(`${store} path: a row the engine claims and settles while a cancellation reads it is counted once, by the engine`, async () => {
    const compat = storeCompat(store);
    const engine = storeCompat(store);
    const subscriberId = `subscriber-settled-${store}`;
    const row = deliveryRow(`settled-by-engine-${store}`, { subscriberId });
    await collections.events.insertOne({ _id: row.eventId, orgId: 'acme', status: 'DISPATCHED', openDeliveries: 1, failedDeliveries: 0, createdAt: new Date(), updatedAt: new Date() } as never);
    await collections.queue.insertOne(row);
    // Right after the cancellation's read, the engine (which read the subscriber as disabled too)
    // claims the row and settles it as cancelled: history copy, out of the queue, counters.
    const raced: Collections = {
      ...collections,
      queue: queueWithHook(async (found) => {
        if (!found.some((doc) => doc._id === row._id && doc.status === 'PENDING')) return;
        if (engine.uniqueKeyClaims) expect(await claimIncarnations(collections, engine, [row], 'engine', new Date())).toHaveLength(1);
        await collections.queue.updateOne({ _id: row._id, status: 'PENDING' }, { $set: { status: 'IN_FLIGHT', leaseOwner: 'engine' } });
        await collections.deliveries.insertOne({ ...row, status: 'FAILED', lastError: 'Cancelled by the engine', settledBy: 'engine-batch' });
        await collections.queue.deleteOne({ _id: row._id, leaseOwner: 'engine' });
        await collections.events.updateOne({ _id: row.eventId }, { $inc: { openDeliveries: -1, failedDeliveries: 1 }, $set: { status: 'FAILED' } });
      }),
    };
    expect(await cancelPendingDeliveries(raced, compat, subscriberId, 'Cancelled', new Date())).toBe(0);
    expect(await collections.events.findOne({ _id: row.eventId })).toMatchObject({ status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 });
    expect(await collections.queue.findOne({ _id: row._id })).toBeNull();
    expect(await collections.deliveries.findOne({ _id: row._id })).toMatchObject({ status: 'FAILED', settledBy: 'engine-batch' });
  });
}

test('rows a cancellation or a redelivery held and never let go (it stopped) go back to PENDING with no attempt counted', async () => {
  const store = new DeliveryStore(database.db, 'herald_', await detectStoreCompat(database.db));
  const past = new Date(Date.now() - 1_000);
  const cancelling = deliveryRow('leased-by-cancel', { status: 'IN_FLIGHT', attempts: 2, leaseOwner: holdingLease('cancel'), leaseUntil: past });
  const requeueing = deliveryRow('leased-by-requeue', { status: 'IN_FLIGHT', attempts: 2, leaseOwner: holdingLease('requeue'), leaseUntil: past });
  const attempted = deliveryRow('leased-by-attempt', { status: 'IN_FLIGHT', attempts: 2, leaseOwner: 'engine/1/x', leaseUntil: past });
  await collections.queue.insertMany([cancelling, requeueing, attempted]);
  expect(await store.recovery.recoverExpiredLeases(new Date())).toBe(3);
  for (const row of [cancelling, requeueing]) {
    expect(await collections.queue.findOne({ _id: row._id })).toMatchObject({ status: 'PENDING', attempts: 2, leaseOwner: null });
    expect(await collections.attempts.countDocuments({ deliveryId: row._id })).toBe(0);
  }
  // An attempt's expired lease is an interrupted attempt: counted and recorded.
  expect(await collections.queue.findOne({ _id: attempted._id })).toMatchObject({ status: 'PENDING', attempts: 3 });
  expect(await collections.attempts.countDocuments({ deliveryId: attempted._id })).toBe(1);
});

test('a redelivery that stopped holding the copies it moved back: lease recovery finishes each move, and withdraws a copy whose history copy was overtaken', async () => {
  const store = new DeliveryStore(database.db, 'herald_', await detectStoreCompat(database.db));
  const past = new Date(Date.now() - 1_000);
  const readAt = new Date(Date.now() - 60_000);
  const token = holdingLease('requeue');
  const held = { status: 'IN_FLIGHT' as const, attempts: 2, leaseOwner: token, leaseUntil: past, movedBack: { by: token, attempts: 2, updatedAt: readAt } };
  await collections.deliveries.insertMany([
    deliveryRow('moved-as-read', { status: 'FAILED', attempts: 2, updatedAt: readAt }),
    // Another redelivery of this row was sent and settled after this one read its copy.
    deliveryRow('moved-overtaken', { status: 'DELIVERED', attempts: 3, updatedAt: new Date(readAt.getTime() + 1_000) }),
  ]);
  await collections.queue.insertMany([deliveryRow('moved-as-read', held), deliveryRow('moved-overtaken', held)]);
  expect(await store.recovery.recoverExpiredLeases(new Date())).toBe(1);
  const letGo = await collections.queue.findOne({ _id: 'moved-as-read' });
  expect(letGo).toMatchObject({ status: 'PENDING', attempts: 2, leaseOwner: null, movedBack: { by: token } });
  expect(await collections.deliveries.findOne({ _id: 'moved-as-read' })).toBeNull();
  expect(await collections.queue.findOne({ _id: 'moved-overtaken' })).toBeNull();
  expect(await collections.deliveries.findOne({ _id: 'moved-overtaken' })).toMatchObject({ status: 'DELIVERED', attempts: 3 });
  expect(await collections.attempts.countDocuments({ deliveryId: { $in: ['moved-as-read', 'moved-overtaken'] } })).toBe(0);
});

test('mongodb path: a cancellation whose lease ran out while it stalled leaves the row to the engine that took it over and settled it', async () => {
  const compat = storeCompat('mongodb');
  const store = new DeliveryStore(database.db, 'herald_', compat);
  const subscriberId = 'subscriber-stalled-cancel';
  const row = deliveryRow('stalled-cancel', { subscriberId, attempts: 1 });
  await collections.events.insertOne({ _id: row.eventId, orgId: 'acme', status: 'DISPATCHED', deliveryCount: 1, openDeliveries: 1, failedDeliveries: 0, createdAt: new Date(), updatedAt: new Date() } as never);
  await collections.queue.insertOne(row);
  // Once the cancellation has leased the row and before it writes its copy, its lease runs out:
  // recovery returns the row, and the engine claims, delivers and settles it.
  const raced: Collections = {
    ...collections,
    deliveries: withInsertHooks(collections.deliveries, {
      before: async () => {
        await collections.queue.updateOne({ _id: row._id }, { $set: { leaseUntil: new Date(Date.now() - 1_000) } });
        expect(await store.recovery.recoverExpiredLeases(new Date())).toBe(1);
        const now = new Date();
        const due = (await collections.queue.findOne({ _id: row._id }))!;
        const [claimed] = await store.claims.claim([due], 'engine/took-over', now, new Date(now.getTime() + 60_000));
        expect(claimed).toMatchObject({ _id: row._id, status: 'IN_FLIGHT', attempts: 1 });
        await store.outcomes.writeOutcomes([{ row: claimed!, fields: { status: 'DELIVERED', attempts: 2, lastHttpStatus: 200, deliveredAt: now, lastAttemptAt: now, updatedAt: now } }], now);
      },
    }),
  };
  expect(await cancelPendingDeliveries(raced, compat, subscriberId, 'Cancelled', new Date())).toBe(0);
  expect(await collections.deliveries.findOne({ _id: row._id })).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  expect(await collections.events.findOne({ _id: row.eventId })).toMatchObject({ status: 'ALL_DELIVERED', openDeliveries: 0, failedDeliveries: 0 });
});
