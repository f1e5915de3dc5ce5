// The cluster-wide jobs on Agenda over FerretDB: lease recovery, event reconciliation, retention.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { resolveConfig } from '../../src/engine/config.js';
import { createMaintenance, JOB_NAMES, MARKER_LIFETIME_MS, type Maintenance } from '../../src/engine/jobs.js';
import { DeliveryStore } from '../../src/engine/store/index.js';
import { claimKey } from '../../src/storage/collections.js';
import { storeCompat } from '../../src/storage/compat.js';
import { findRows } from '../../src/model/delivery-rows.js';
import type { DeliveryDocument, EventDocument } from '../../src/storage/documents.js';
import { silentLogger } from '../../src/shared/logger.js';
import { eventually } from './support/harness.js';
import { deliveryRow } from '../support/delivery-row.js';

let database: TestDatabase;
let store: DeliveryStore;
const config = resolveConfig({ maintenanceIntervalMs: 200, jobPollIntervalMs: 100, retentionMs: 60_000 });
const started: Maintenance[] = [];

function maintenance(): Maintenance {
  const created = createMaintenance({ db: database.db, prefix: 'herald_', owner: `test-${started.length}`, store, config, logger: silentLogger, onRecovered: () => undefined });
  started.push(created);
  return created;
}

const row = (id: string, eventId: string, fields: Partial<DeliveryDocument>): DeliveryDocument => deliveryRow(id, { eventId, ...fields });

function event(id: string, fields: Partial<EventDocument>): EventDocument {
  const now = new Date();
  return {
    _id: id, orgId: 'acme', eventType: 'a.b', aggregateType: 'a', aggregateId: 'x', status: 'DISPATCHED', occurredAt: now, createdAt: now,
    data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 1, openDeliveries: 1, failedDeliveries: 0, updatedAt: now, ...fields,
  };
}

beforeAll(async () => {
  database = await openTestDatabase('maintenance');
  // Unique-key claims and their stranded-claim recovery are exercised whatever the store is.
  store = new DeliveryStore(database.db, 'herald_', storeCompat('ferretdb-v1'));
  await store.ensureIndexes();
});
afterAll(async () => {
  await Promise.all(started.map((m) => m.stop()));
  await database.close();
});

test('Agenda runs lease recovery: an expired IN_FLIGHT row goes back to PENDING, never FAILED, with the interrupted attempt counted and recorded; a live lease is kept', async () => {
  const past = new Date(Date.now() - 1_000);
  const future = new Date(Date.now() + 60_000);
  await store.collections.queue.insertMany([
    row('expired', 'e-lease', { status: 'IN_FLIGHT', leaseOwner: 'dead-worker', leaseUntil: past, attempts: 2 }),
    row('live', 'e-lease', { status: 'IN_FLIGHT', leaseOwner: 'busy-worker', leaseUntil: future }),
  ]);
  // Two schedulers on one database, as two replicas would be. Started one after the other: on
  // FerretDB, two *simultaneous* first starts can both insert the job document (its upsert is
  // not atomic there), and then the job merely runs twice per interval — harmless, every job is
  // idempotent — which is why correctness never rests on Agenda's exclusivity.
  await maintenance().start();
  await maintenance().start();
  const recovered = await eventually(() => store.collections.queue.findOne({ _id: 'expired' }), (doc) => doc?.status !== 'IN_FLIGHT');
  expect(recovered).toMatchObject({ status: 'PENDING', leaseOwner: null, attempts: 3 });
  expect(recovered?.lastError).toMatch(/interrupted/);
  // The record is written right after the row: wait for it rather than race it.
  const attempts = await eventually(() => store.collections.attempts.find({ deliveryId: 'expired' }).toArray(), (list) => list.length > 0);
  expect(attempts).toMatchObject([{ attempt: 3, errorClass: 'INTERRUPTED', httpStatus: null }]);
  expect(recovered!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
  expect(await store.collections.queue.findOne({ _id: 'live' })).toMatchObject({ status: 'IN_FLIGHT', leaseOwner: 'busy-worker' });
  // `every` keeps one job document per name, however many replicas scheduled it.
  const jobs = database.db.collection<{ name: string }>('herald_jobs');
  expect(await jobs.countDocuments({ name: JOB_NAMES.recoverLeases })).toBe(1);
});

test('a row whose claimer died before marking it IN_FLIGHT is released, a fresh claim is left alone', async () => {
  const longAgo = new Date(Date.now() - 10 * 60_000);
  const stranded = row('stranded', 'e-claim', { nextAttemptAt: longAgo, attempts: 1 });
  const busy = row('busy', 'e-claim', { nextAttemptAt: longAgo });
  const backlogged = row('backlogged', 'e-claim', { nextAttemptAt: longAgo });
  await store.collections.queue.insertMany([stranded, busy, backlogged]);
  await store.collections.claims.insertMany([
    { _id: claimKey(stranded), deliveryId: 'stranded', owner: 'killed-worker', createdAt: longAgo },
    { _id: claimKey(busy), deliveryId: 'busy', owner: 'live-worker', createdAt: new Date() },
  ]);

  // The schedulers of the previous test may get there first; either way the row is released once.
  await maintenance().recoverLeases();
  const after = await eventually(() => store.collections.queue.findOne({ _id: 'stranded' }), (doc) => doc!.nextAttemptAt!.getTime() > longAgo.getTime());
  expect(after).toMatchObject({ status: 'PENDING', attempts: 1 });
  expect(after!.nextAttemptAt!.getTime()).toBeGreaterThan(longAgo.getTime());
  // Its new incarnation can be claimed again; the others keep theirs.
  expect(await store.claims.claim([after!], 'next-worker', new Date(), new Date(Date.now() + 60_000))).toHaveLength(1);
  expect((await store.collections.queue.findOne({ _id: 'busy' }))!.nextAttemptAt).toEqual(longAgo);
  expect((await store.collections.queue.findOne({ _id: 'backlogged' }))!.nextAttemptAt).toEqual(longAgo);
});

test('reconciliation recounts an event whose counters a dead worker left behind, and settles it', async () => {
  const longAgo = new Date(Date.now() - 10_000);
  await store.collections.events.insertOne(event('e-stale', { updatedAt: longAgo, deliveryCount: 2, openDeliveries: 2 }));
  await store.collections.deliveries.insertMany([
    row('r1', 'e-stale', { status: 'DELIVERED', nextAttemptAt: null }),
    row('r2', 'e-stale', { status: 'FAILED', nextAttemptAt: null }),
  ]);
  const settled = await eventually(() => store.collections.events.findOne({ _id: 'e-stale' }), (doc) => doc?.status !== 'DISPATCHED');
  expect(settled).toMatchObject({ status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 });
});

test('retention deletes finished events past the window with their rows, and nothing else', async () => {
  const old = new Date(Date.now() - 120_000);
  await store.collections.events.insertMany([
    event('old-done', { status: 'ALL_DELIVERED', createdAt: old }),
    event('old-running', { status: 'DISPATCHED', createdAt: old }),
    event('new-done', { status: 'ALL_DELIVERED' }),
  ]);
  await store.collections.deliveries.insertMany([row('old-done-row', 'old-done', { status: 'DELIVERED' }), row('new-done-row', 'new-done', { status: 'DELIVERED' })]);
  await store.collections.queue.insertOne(row('old-running-row', 'old-running', { status: 'PENDING', nextAttemptAt: new Date(Date.now() + 3_600_000) }));
  expect(await started[0]!.retention()).toBe(1);
  const remaining = await store.collections.events.find({ _id: { $in: ['old-done', 'old-running', 'new-done'] } }).toArray();
  expect(remaining.map((e) => e._id).sort()).toEqual(['new-done', 'old-running']);
  const rows = await findRows(store.collections, { eventId: { $in: ['old-done', 'old-running', 'new-done'] } });
  expect(rows.map((r) => r._id).sort()).toEqual(['new-done-row', 'old-running-row']);
});

test('retention per event type: an override has its own window, 0 keeps forever, unsettled events always stay', async () => {
  const custom = createMaintenance({
    db: database.db,
    prefix: 'herald_',
    owner: 'test-retention-types',
    store,
    config: resolveConfig({ retentionMs: 60_000, retentionByEventType: { 'keep.forever': 0, 'short.lived': 1_000 } }),
    logger: silentLogger,
    onRecovered: () => undefined,
  });
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  await store.collections.events.insertMany([
    event('rt-default-old', { eventType: 'x.y', status: 'FAILED', createdAt: minutesAgo(2) }),
    event('rt-default-new', { eventType: 'x.y', status: 'ALL_DELIVERED', createdAt: minutesAgo(0.5) }),
    event('rt-forever-old', { eventType: 'keep.forever', status: 'ALL_DELIVERED', createdAt: minutesAgo(60 * 24 * 400) }),
    event('rt-short', { eventType: 'short.lived', status: 'ALL_DELIVERED', createdAt: minutesAgo(0.5) }),
    event('rt-short-open', { eventType: 'short.lived', status: 'DISPATCHED', createdAt: minutesAgo(0.5) }),
  ]);
  await store.collections.deliveries.insertOne(row('rt-short-row', 'rt-short', { eventType: 'short.lived', status: 'DELIVERED' }));
  await store.collections.queue.insertOne(row('rt-short-open-row', 'rt-short-open', { eventType: 'short.lived', status: 'PENDING', nextAttemptAt: new Date(Date.now() + 3_600_000) }));
  expect(await custom.retention()).toBe(2);
  expect(custom.pruned).toBe(2);
  const ids = ['rt-default-old', 'rt-default-new', 'rt-forever-old', 'rt-short', 'rt-short-open'];
  const remaining = await store.collections.events.find({ _id: { $in: ids } }).toArray();
  expect(remaining.map((e) => e._id).sort()).toEqual(['rt-default-new', 'rt-forever-old', 'rt-short-open']);
  const rows = await findRows(store.collections, { eventId: { $in: ids } });
  expect(rows.map((r) => r._id)).toEqual(['rt-short-open-row']);
});

test('a run longer than its job lock keeps the lock while it lasts', async () => {
  const own = await openTestDatabase('maintenance-lock');
  // Auto-disable's check stands in for any long run (a retention pass over a big history).
  const run = { started: false, ended: false };
  const long = createMaintenance({
    db: own.db, prefix: 'herald_', owner: 'test-lock', store, config, logger: silentLogger, onRecovered: () => undefined,
    checkAutoDisable: async () => {
      if (run.started) return 0;
      run.started = true;
      await new Promise((done) => setTimeout(done, 10_000));
      run.ended = true;
      return 0;
    },
  });
  try {
    await long.start();
    const jobs = own.db.collection<{ name: string; lockedAt: Date | null; failReason: string | null }>('herald_jobs');
    await eventually(async () => run.started, Boolean, 30_000);
    // Agenda takes a lock older than 6 s as free (another replica would start the job) and gives
    // up on the run that held it.
    const lockAges: number[] = [];
    while (!run.ended) {
      const job = await jobs.findOne({ name: JOB_NAMES.autoDisable });
      if (!run.ended) lockAges.push(job?.lockedAt ? Date.now() - job.lockedAt.getTime() : Infinity);
      await new Promise((done) => setTimeout(done, 250));
    }
    expect(lockAges.length).toBeGreaterThan(20);
    expect(Math.max(...lockAges)).toBeLessThan(6_000);
    expect((await jobs.findOne({ name: JOB_NAMES.autoDisable }))?.failReason ?? null).toBeNull();
  } finally {
    await long.stop();
    await own.close();
  }
}, 90_000);

test('retention removes claims, sequence markers and write turns older than their lifetime, and keeps younger ones', async () => {
  const expired = new Date(Date.now() - MARKER_LIFETIME_MS - 60_000);
  const young = new Date(Date.now() - MARKER_LIFETIME_MS + 60_000);
  await store.collections.claims.insertMany([
    { _id: 'claim-old:0:0', deliveryId: 'claim-old', owner: 'w', createdAt: expired },
    { _id: 'claim-young:0:0', deliveryId: 'claim-young', owner: 'w', createdAt: young },
  ]);
  await store.collections.orderMarkers.insertMany([
    { _id: 'k-old:1', orderKey: 'k-old', createdAt: expired },
    { _id: 'k-young:1', orderKey: 'k-young', createdAt: young },
  ]);
  await store.collections.writeTurns.insertMany([
    { _id: 'turn:old:1', createdAt: expired },
    { _id: 'turn:young:1', createdAt: young },
  ]);
  await started[0]!.retention();
  expect((await store.collections.claims.find({ _id: { $in: ['claim-old:0:0', 'claim-young:0:0'] } }).toArray()).map((claim) => claim._id)).toEqual(['claim-young:0:0']);
  expect((await store.collections.orderMarkers.find({ _id: { $in: ['k-old:1', 'k-young:1'] } }).toArray()).map((marker) => marker._id)).toEqual(['k-young:1']);
  expect((await store.collections.writeTurns.find({ _id: { $in: ['turn:old:1', 'turn:young:1'] } }).toArray()).map((turn) => turn._id)).toEqual(['turn:young:1']);
});
