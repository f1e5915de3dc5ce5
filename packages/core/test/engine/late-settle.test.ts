// A worker that stalls past its lease settles late: lease recovery has returned the row, and another
// worker (or a cancellation) has taken it and settled it. The late settle must neither replace that
// writer's history copy nor count the row a second time, whichever of its writes comes first, and
// even when its own attempt ended after the row was taken from it (the process was paused).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { EngineCounters } from '../../src/engine/store/counters.js';
import { OutcomeStore, type Outcome } from '../../src/engine/store/outcomes.js';
import { RecoveryStore } from '../../src/engine/store/recovery.js';
import { collectionsFor, type Collections } from '../../src/storage/collections.js';
import { storeCompat, type StoreCompatName } from '../../src/storage/compat.js';
import type { DeliveryDocument } from '../../src/storage/documents.js';
import { cancelPendingDeliveries } from '../../src/model/event-status.js';
import { deliveryRow } from '../support/delivery-row.js';
import { withInsertHooks } from '../support/insert-hook.js';

let database: TestDatabase;
let collections: Collections;

beforeAll(async () => {
  database = await openTestDatabase('late-settle');
  collections = collectionsFor(database.db, 'herald_');
});
afterAll(async () => {
  await database.close();
});

/** Records the outcome as one engine does, with the event counter changes it holds written. */
async function settle(store: StoreCompatName, outcome: Outcome, over: Collections = collections): Promise<{ written: number }> {
  const compat = storeCompat(store);
  const counters = new EngineCounters(over, compat);
  const result = await new OutcomeStore(over, compat, counters).writeOutcomes([outcome], new Date());
  await counters.flushEventCounters(new Date());
  return result;
}

/** The row as a worker holds it once claimed, and what its attempt ended in. */
function delivered(row: DeliveryDocument, worker: string): Outcome {
  const now = new Date();
  const leased = { ...row, status: 'IN_FLIGHT' as const, leaseOwner: worker, leaseUntil: new Date(now.getTime() + 60_000), updatedAt: now };
  return { row: leased, fields: { status: 'DELIVERED', attempts: row.attempts + 1, lastHttpStatus: 200, lastError: null, lastAttemptAt: now, deliveredAt: now, updatedAt: now } };
}

/** Claims the queued row for `worker` as the engine does, and returns what its attempt ends in. */
async function claim(id: string, worker: string): Promise<Outcome> {
  const row = (await collections.queue.findOne({ _id: id }))!;
  const outcome = delivered(row, worker);
  await collections.queue.updateOne({ _id: id, status: 'PENDING' }, { $set: { status: 'IN_FLIGHT', leaseOwner: worker, leaseUntil: outcome.row.leaseUntil, updatedAt: outcome.row.updatedAt } });
  return outcome;
}

/** Puts a row in flight for `stalled` with its lease expired, and has lease recovery return it. */
async function expiredAndRecovered(id: string, store: StoreCompatName): Promise<Outcome> {
  const row = deliveryRow(id, { attempts: 1 });
  await collections.events.insertOne({ _id: row.eventId, orgId: 'acme', status: 'DISPATCHED', deliveryCount: 1, openDeliveries: 1, failedDeliveries: 0, createdAt: new Date(), updatedAt: new Date() } as never);
  const late = delivered(row, 'engine/stalled');
  await collections.queue.insertOne({ ...late.row, leaseUntil: new Date(Date.now() - 1_000) });
  const compat = storeCompat(store);
  await new RecoveryStore(collections, compat, new EngineCounters(collections, compat)).recoverExpiredLeases(new Date());
  expect(await collections.queue.findOne({ _id: id })).toMatchObject({ status: 'PENDING', attempts: 2 });
  return late;
}

/** The stalled worker resumes: its attempt ends now, after the row was taken from it. */
function resumed(late: Outcome): Outcome {
  return { ...late, fields: { ...late.fields, updatedAt: new Date(), lastAttemptAt: new Date(), deliveredAt: new Date() } };
}

async function expectSettledOnceBy(id: string, worker: string): Promise<void> {
  expect(await collections.queue.findOne({ _id: id })).toBeNull();
  expect(await collections.deliveries.findOne({ _id: id })).toMatchObject({ status: 'DELIVERED', attempts: 3, settledBy: expect.stringMatching(new RegExp(`^${worker}@`)) });
  expect(await collections.events.findOne({ _id: `event-${id}` })).toMatchObject({ status: 'ALL_DELIVERED', openDeliveries: 0, failedDeliveries: 0 });
}

for (const store of ['mongodb', 'ferretdb-v1'] as StoreCompatName[]) {
  test(`${store} path: a late settle after the row was taken over and settled changes nothing`, async () => {
    const id = `late-after-${store}`;
    const late = await expiredAndRecovered(id, store);
    const taken = await claim(id, 'engine/took-over');
    expect(await settle(store, taken)).toMatchObject({ written: 1 });
    expect(await settle(store, resumed(late))).toMatchObject({ written: 0 });
    await expectSettledOnceBy(id, 'engine/took-over');
  });

  test(`${store} path: a late settle while the row's new worker still holds it counts nothing, and that worker's settle stands`, async () => {
    const id = `late-during-${store}`;
    const late = await expiredAndRecovered(id, store);
    const taken = await claim(id, 'engine/took-over');
    expect(await settle(store, resumed(late))).toMatchObject({ written: 0 });
    // The late copy may stay in the history, under the queued row that readers take.
    expect(await collections.queue.findOne({ _id: id })).toMatchObject({ status: 'IN_FLIGHT', leaseOwner: 'engine/took-over' });
    expect(await collections.events.findOne({ _id: `event-${id}` })).toMatchObject({ status: 'DISPATCHED', openDeliveries: 1 });
    expect(await settle(store, taken)).toMatchObject({ written: 1 });
    await expectSettledOnceBy(id, 'engine/took-over');
  });

  test(`${store} path: a late settle whose copy is written before the row's new worker settles it is not counted`, async () => {
    const id = `late-between-${store}`;
    const late = await expiredAndRecovered(id, store);
    const taken = await claim(id, 'engine/took-over');
    // The late worker's history copy is written; the new worker then settles the row in full
    // before the late worker's delete from the queue runs.
    const raced: Collections = {
      ...collections,
      deliveries: withInsertHooks(collections.deliveries, {
        after: async () => {
          expect(await settle(store, taken)).toMatchObject({ written: 1 });
        },
      }),
    };
    expect(await settle(store, resumed(late), raced)).toMatchObject({ written: 0 });
    await expectSettledOnceBy(id, 'engine/took-over');
  });
}

for (const store of ['mongodb', 'ferretdb-v1'] as StoreCompatName[]) {
  test(`${store} path: a late settle after the row was cancelled (which counts no attempt) changes nothing`, async () => {
    const id = `late-cancelled-${store}`;
    const late = await expiredAndRecovered(id, store);
    // The subscriber is disabled now: its queued row is cancelled, with as many attempts as the late outcome.
    await collections.queue.updateOne({ _id: id }, { $set: { subscriberId: `subscriber-${id}` } });
    expect(await cancelPendingDeliveries(collections, storeCompat(store), `subscriber-${id}`, 'Cancelled', new Date())).toBe(1);
    expect(late.fields.attempts).toBe(2);
    expect(await settle(store, resumed(late))).toMatchObject({ written: 0 });
    expect(await collections.deliveries.findOne({ _id: id })).toMatchObject({ status: 'FAILED', lastError: 'Cancelled', attempts: 2 });
    expect(await collections.events.findOne({ _id: `event-${id}` })).toMatchObject({ status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 });
  });
}
