// Event counters held in memory on a store whose updates scan (storage/compat.ts): an event is
// written once, when its status changes, and whatever is still held is written at flush.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../../test/support/mongo.js';
import { DeferredEventCounters, mustWrite, REMEMBERED_LIMIT, statusForCounters } from '../../src/model/deferred-event-counters.js';
import { EventDeltas, rowDelta } from '../../src/model/event-counters.js';
import { collectionsFor, type Collections } from '../../src/storage/collections.js';
import { storeCompat } from '../../src/storage/compat.js';
import type { EventDocument } from '../../src/storage/documents.js';

let database: TestDatabase;
let collections: Collections;

function event(id: string, fields: Partial<EventDocument> = {}): EventDocument {
  const now = new Date(0);
  return {
    _id: id, orgId: 'acme', eventType: 'a.b', aggregateType: 'a', aggregateId: 'x', status: 'DISPATCHED', occurredAt: now, createdAt: now,
    data: '{}', sensitiveFields: [], subscriberIds: [], deliveryCount: 3, openDeliveries: 3, failedDeliveries: 0, updatedAt: now, ...fields,
  };
}

function settling(eventId: string, ...to: Array<'DELIVERED' | 'FAILED' | 'PENDING'>): EventDeltas {
  const deltas = new EventDeltas();
  for (const status of to) deltas.add(eventId, rowDelta('IN_FLIGHT', status));
  return deltas;
}

beforeAll(async () => {
  database = await openTestDatabase('deferred_counters');
  collections = collectionsFor(database.db, 'herald_');
});
afterAll(async () => {
  await database.close();
});

test('statusForCounters and mustWrite: only a status change is due', () => {
  expect(statusForCounters({ open: 1, failed: 0, status: 'FAILED' })).toBe('DISPATCHED');
  expect(statusForCounters({ open: 0, failed: 0, status: 'DISPATCHED' })).toBe('ALL_DELIVERED');
  expect(statusForCounters({ open: 0, failed: 2, status: 'DISPATCHED' })).toBe('FAILED');
  expect(statusForCounters({ open: 0, failed: 0, status: 'PENDING' })).toBe('PENDING');
  expect(mustWrite({ open: 3, failed: 0, status: 'DISPATCHED' }, { open: -2, failed: 0 })).toBe(false);
  expect(mustWrite({ open: 3, failed: 0, status: 'DISPATCHED' }, { open: -3, failed: 1 })).toBe(true);
  expect(mustWrite({ open: 0, failed: 1, status: 'FAILED' }, { open: 1, failed: -1 })).toBe(true);
});

test('changes are held until the last open row settles, then written once with the status', async () => {
  await collections.events.insertOne(event('e-held'));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  await counters.apply(settling('e-held', 'DELIVERED', 'PENDING'), new Date(1_000));
  expect(counters.holds('e-held')).toBe(true);
  expect(await collections.events.findOne({ _id: 'e-held' })).toMatchObject({ openDeliveries: 3, status: 'DISPATCHED', updatedAt: new Date(0) });

  await counters.apply(settling('e-held', 'FAILED', 'DELIVERED'), new Date(2_000));
  expect(counters.holds('e-held')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-held' })).toMatchObject({ openDeliveries: 0, failedDeliveries: 1, status: 'FAILED', updatedAt: new Date(2_000) });
});

test('a change written directly meanwhile (a cancel) is kept: writes increment, and the status follows the stored counters', async () => {
  await collections.events.insertOne(event('e-mixed'));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  await counters.apply(settling('e-mixed', 'DELIVERED'), new Date(1_000)); // reads the stored counters: 3 open
  await collections.events.updateOne({ _id: 'e-mixed' }, { $inc: { openDeliveries: -1, failedDeliveries: 1 } }); // a cancel
  await counters.apply(settling('e-mixed', 'DELIVERED'), new Date(2_000)); // 3 - 2 by what it read: not due
  expect(counters.holds('e-mixed')).toBe(true);
  await counters.flushHeldSince(new Date(1_000), new Date(3_000)); // held since 1,000: not before the cutoff
  expect(counters.holds('e-mixed')).toBe(true);
  await counters.flushHeldSince(new Date(1_001), new Date(3_000));
  expect(counters.holds('e-mixed')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-mixed' })).toMatchObject({ openDeliveries: 0, failedDeliveries: 1, status: 'FAILED' });
});

test('flush writes whatever is held', async () => {
  await collections.events.insertOne(event('e-stop'));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  await counters.apply(settling('e-stop', 'DELIVERED'), new Date(1_000));
  await counters.flush(new Date(2_000));
  expect(counters.holds('e-stop')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-stop' })).toMatchObject({ openDeliveries: 2, status: 'DISPATCHED', updatedAt: new Date(2_000) });
});

test('a redelivered row reopens a settled event at once', async () => {
  await collections.events.insertOne(event('e-reopen', { deliveryCount: 1, openDeliveries: 0, status: 'ALL_DELIVERED' }));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  const deltas = new EventDeltas();
  deltas.add('e-reopen', rowDelta('DELIVERED', 'PENDING'));
  await counters.apply(deltas, new Date(1_000));
  expect(await collections.events.findOne({ _id: 'e-reopen' })).toMatchObject({ openDeliveries: 1, status: 'DISPATCHED' });
});

test('counters the publisher just wrote are used instead of a read; the oldest are forgotten past the bound', async () => {
  // Stored: 3 open. Remembered: 2 open, so two settled rows are due only if no read happened;
  // the write then finds one still open and corrects the status it expected.
  await collections.events.insertOne(event('e-remembered'));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  counters.remember('e-remembered', { open: 2, failed: 0, status: 'DISPATCHED' });
  await counters.apply(settling('e-remembered', 'DELIVERED', 'DELIVERED'), new Date(1_000));
  expect(counters.holds('e-remembered')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-remembered' })).toMatchObject({ openDeliveries: 1, status: 'DISPATCHED' });

  await collections.events.insertOne(event('e-forgotten'));
  counters.remember('e-forgotten', { open: 2, failed: 0, status: 'DISPATCHED' });
  for (let index = 0; index < REMEMBERED_LIMIT; index++) counters.remember(`other-${index}`, { open: 1, failed: 0, status: 'DISPATCHED' });
  await counters.apply(settling('e-forgotten', 'DELIVERED', 'DELIVERED'), new Date(1_000)); // read: 3 open, not due
  expect(counters.holds('e-forgotten')).toBe(true);
});

test('counters read to send rows are used instead of a second read, unless this process wrote the event after the read was issued', async () => {
  await collections.events.insertOne(event('e-read'));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  // Read with 2 open (stored: 3), so two settled rows are due only if no second read happened.
  counters.rememberRead('e-read', { open: 2, failed: 0, status: 'DISPATCHED' }, counters.readMark());
  await counters.apply(settling('e-read', 'DELIVERED', 'DELIVERED'), new Date(1_000));
  expect(counters.holds('e-read')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-read' })).toMatchObject({ openDeliveries: 1, status: 'DISPATCHED' });

  // A read issued before this process's write of the event may predate it: not used.
  await collections.events.insertOne(event('e-stale'));
  const mark = counters.readMark();
  await counters.apply(settling('e-stale', 'DELIVERED'), new Date(1_000));
  await counters.flush(new Date(1_500)); // written: 2 open
  counters.rememberRead('e-stale', { open: 1, failed: 0, status: 'DISPATCHED' }, mark);
  await counters.apply(settling('e-stale', 'DELIVERED'), new Date(2_000)); // read: 2 open, 1 after this: not due
  expect(counters.holds('e-stale')).toBe(true);
  await counters.flush(new Date(2_500));
  expect(await collections.events.findOne({ _id: 'e-stale' })).toMatchObject({ openDeliveries: 1, status: 'DISPATCHED' });
});

test('a fresh read replaces the counters held changes are reckoned from: a redelivery written directly meanwhile is not overlooked', async () => {
  await collections.events.insertOne(event('e-redelivered', { openDeliveries: 0, status: 'ALL_DELIVERED' }));
  const counters = new DeferredEventCounters(collections, storeCompat('ferretdb-v1'));
  // Read when nothing was open; one requeued row settles: no status change, so held.
  counters.rememberRead('e-redelivered', { open: 0, failed: 0, status: 'ALL_DELIVERED' }, counters.readMark());
  await counters.apply(settling('e-redelivered', 'DELIVERED'), new Date(1_000));
  expect(counters.holds('e-redelivered')).toBe(true);
  // A redelivery of the other two rows is written directly (+2, DISPATCHED) and the engine reads the event to send them.
  await collections.events.updateOne({ _id: 'e-redelivered' }, { $set: { openDeliveries: 3, status: 'DISPATCHED' } });
  counters.rememberRead('e-redelivered', { open: 3, failed: 0, status: 'DISPATCHED' }, counters.readMark());
  // Their two settles make three with the held one: the event settles now, not at the next flush.
  await counters.apply(settling('e-redelivered', 'DELIVERED', 'DELIVERED'), new Date(2_000));
  expect(counters.holds('e-redelivered')).toBe(false);
  expect(await collections.events.findOne({ _id: 'e-redelivered' })).toMatchObject({ openDeliveries: 0, status: 'ALL_DELIVERED' });
});

test('a read issued while this process writes the event is not trusted: it may have run before the write', async () => {
  await collections.events.insertOne(event('e-overlap', { openDeliveries: 2 }));
  const compat = storeCompat('ferretdb-v1');
  let releaseWrite!: () => void;
  const writeMayRun = new Promise<void>((resolve) => { releaseWrite = resolve; });
  // The store's lane runs a read beside a write; here the write waits until the read has come back.
  const gated = { ...compat, write: <T>(operation: () => Promise<T>, urgent?: boolean) => writeMayRun.then(() => compat.write(operation, urgent)) };
  const counters = new DeferredEventCounters(collections, gated);
  const settled = counters.apply(settling('e-overlap', 'DELIVERED', 'DELIVERED'), new Date(1_000));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const mark = counters.readMark();
  const stale = await collections.events.findOne({ _id: 'e-overlap' });
  counters.rememberRead('e-overlap', { open: stale!.openDeliveries, failed: stale!.failedDeliveries, status: stale!.status }, mark);
  releaseWrite();
  await settled;
  expect(await collections.events.findOne({ _id: 'e-overlap' })).toMatchObject({ openDeliveries: 0, status: 'ALL_DELIVERED' });

  // A redelivery reopens the event directly for one of its rows, which then settles here again.
  await collections.events.updateOne({ _id: 'e-overlap' }, { $set: { openDeliveries: 1, status: 'DISPATCHED' } });
  await counters.apply(settling('e-overlap', 'DELIVERED'), new Date(2_000));
  expect(await collections.events.findOne({ _id: 'e-overlap' })).toMatchObject({ openDeliveries: 0, status: 'ALL_DELIVERED' });
});
