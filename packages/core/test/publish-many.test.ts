// herald.events.publishMany against a real MongoDB-wire server: one result per item in order, an
// invalid item failing alone, idempotency keys inside one call and across calls, and the group
// commit that makes a batch cost a few commands rather than three per event.
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConflictError, createHerald, HeraldError, ValidationError, type PublishManyResult, type Scope } from '../src/index.js';
import { idempotentEventId } from '../src/events/ids.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { openTestHerald, recordingEngine, type TestHerald } from './helpers.js';

let t: TestHerald;
let collections: Collections;
const scope: Scope = { orgId: 'org-many', actor: 'alice' };

beforeAll(async () => {
  t = await openTestHerald('core_publish_many', {
    eventTypes: [{ type: 'payment.captured', dataSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' } } } }],
  });
  collections = collectionsFor(t.database.db, 'herald_');
  await t.herald.subscribers.create(scope, { id: 'orders', displayName: 'Orders', targetUrl: 'https://example.com/orders', events: ['order.*', 'payment.*'] });
  await t.herald.subscribers.create(scope, { id: 'audit', displayName: 'Audit', targetUrl: 'https://example.com/audit', events: ['*'] });
});
afterAll(async () => {
  await t.close();
});

function accepted(result: PublishManyResult | undefined) {
  if (!result?.ok) throw new Error(`expected an accepted item, got ${JSON.stringify(result)}`);
  return result;
}
function refused(result: PublishManyResult | undefined) {
  if (result === undefined || result.ok) throw new Error(`expected a refused item, got ${JSON.stringify(result)}`);
  return result.error;
}
const rowsOf = (eventId: string) => collections.queue.countDocuments({ eventId });

describe('publishMany', () => {
  test('one result per item in order; invalid items fail alone with ValidationError, the others are stored with their rows', async () => {
    const results = await t.herald.events.publishMany(scope, [
      { eventType: 'order.created', aggregateId: 'o-1', data: { n: 1 } },
      { eventType: 'Not A Type', aggregateId: 'o-2', data: {} },
      { eventType: 'payment.captured', aggregateId: 'p-1', data: { amount: 'twelve' } },
      'not an object' as never,
      { eventType: 'order.created', aggregateId: 'o-3', data: { n: 3 }, surprise: true } as never,
      { eventType: 'order.created', aggregateId: 'o-4', data: { n: 4 }, sensitive: ['n'] },
    ]);
    expect(results).toHaveLength(6);
    const first = accepted(results[0]);
    const last = accepted(results[5]);
    expect(first).toMatchObject({ created: true, event: { eventType: 'order.created', aggregateId: 'o-1', status: 'DISPATCHED' } });
    expect(first.event.deliveries.map((delivery) => delivery.subscriberId).sort()).toEqual(['audit', 'orders']);
    expect(last.event.aggregateId).toBe('o-4');

    const invalidType = refused(results[1]);
    expect(invalidType).toBeInstanceOf(ValidationError);
    expect((invalidType as ValidationError).errors).toEqual([{ field: 'eventType', message: expect.any(String) }]);
    expect((refused(results[2]) as ValidationError).errors).toEqual([{ field: 'data.amount', message: expect.any(String) }]);
    expect((refused(results[3]) as ValidationError).errors).toEqual([{ field: 'event', message: 'must be a JSON object' }]);
    expect((refused(results[4]) as ValidationError).errors).toEqual([{ field: 'surprise', message: 'is not a known property' }]);
    for (const index of [1, 2, 3, 4]) expect(refused(results[index]).code).toBe('MISSING_REQUIRED_PARAMETER');

    // Stored (durable before the answer) with every row; nothing of the refused ones.
    for (const result of [first, last]) {
      expect(await collections.events.findOne({ _id: result.event.eventId })).toMatchObject({ deliveryCount: 2 });
      expect(await rowsOf(result.event.eventId)).toBe(2);
    }
    expect(await collections.events.countDocuments({ orgId: scope.orgId, aggregateId: { $in: ['o-2', 'p-1', 'o-3'] } })).toBe(0);
  });

  test('an empty list answers an empty list', async () => {
    expect(await t.herald.events.publishMany(scope, [])).toEqual([]);
  });

  test('each item has its own idempotency key: a repeat inside one call answers the first event, with no second fan-out', async () => {
    const item = { eventType: 'order.paid', aggregateId: 'o-10', data: { total: 10 }, idempotencyKey: 'inside-1' };
    const results = await t.herald.events.publishMany(scope, [item, { eventType: 'order.paid', aggregateId: 'o-11', data: {} }, item, item]);
    const [first, other, second, third] = results.map(accepted);
    expect(first!.created).toBe(true);
    expect(second!.created).toBe(false);
    expect(third!.created).toBe(false);
    expect(second!.event.eventId).toBe(first!.event.eventId);
    expect(third!.event.eventId).toBe(first!.event.eventId);
    expect(other!.event.eventId).not.toBe(first!.event.eventId);
    expect(first!.event.eventId).toBe(idempotentEventId(scope.orgId, 'inside-1'));
    expect(await collections.events.countDocuments({ orgId: scope.orgId, aggregateId: 'o-10' })).toBe(1);
    expect(await rowsOf(first!.event.eventId)).toBe(2);
  });

  test('a repeated key with a different event inside one call: CONFLICT for the later one, the first stands', async () => {
    const results = await t.herald.events.publishMany(scope, [
      { eventType: 'order.paid', aggregateId: 'o-20', data: { total: 20 }, idempotencyKey: 'inside-2' },
      { eventType: 'order.paid', aggregateId: 'o-20', data: { total: 21 }, idempotencyKey: 'inside-2' },
    ]);
    expect(accepted(results[0]).created).toBe(true);
    expect(refused(results[1])).toBeInstanceOf(ConflictError);
    const stored = await collections.events.findOne({ _id: idempotentEventId(scope.orgId, 'inside-2') });
    expect(JSON.parse(stored!.data)).toEqual({ total: 20 });
  });

  test('a key whose first item was invalid is published by its next item, as a repeated single publish would be', async () => {
    const results = await t.herald.events.publishMany(scope, [
      { eventType: 'order.paid', aggregateId: '', data: {}, idempotencyKey: 'inside-3' },
      { eventType: 'order.paid', aggregateId: 'o-30', data: {}, idempotencyKey: 'inside-3' },
    ]);
    expect(refused(results[0])).toBeInstanceOf(ValidationError);
    expect(accepted(results[1])).toMatchObject({ created: true, event: { eventId: idempotentEventId(scope.orgId, 'inside-3') } });
  });

  test('keys across calls and with single publishes are one namespace', async () => {
    const batch = accepted((await t.herald.events.publishMany(scope, [{ eventType: 'order.shipped', aggregateId: 'o-40', data: { via: 'post' }, idempotencyKey: 'across-1' }]))[0]);
    expect(batch.created).toBe(true);
    const again = accepted((await t.herald.events.publishMany(scope, [{ eventType: 'order.shipped', aggregateId: 'o-40', data: { via: 'post' }, idempotencyKey: 'across-1' }]))[0]);
    expect(again).toMatchObject({ created: false, event: { eventId: batch.event.eventId } });
    const single = await t.herald.events.publish(scope, { eventType: 'order.shipped', aggregateId: 'o-40', data: { via: 'post' } }, { idempotencyKey: 'across-1' });
    expect(single).toMatchObject({ created: false, event: { eventId: batch.event.eventId } });

    const published = await t.herald.events.publish(scope, { eventType: 'order.shipped', aggregateId: 'o-41', data: {} }, { idempotencyKey: 'across-2' });
    const [repeat, conflict] = await t.herald.events.publishMany(scope, [
      { eventType: 'order.shipped', aggregateId: 'o-41', data: {}, idempotencyKey: 'across-2' },
      { eventType: 'order.shipped', aggregateId: 'o-42', data: {}, idempotencyKey: 'across-2' },
    ]);
    expect(accepted(repeat)).toMatchObject({ created: false, event: { eventId: published.event.eventId } });
    expect(refused(conflict)).toBeInstanceOf(ConflictError);
    expect(await rowsOf(published.event.eventId)).toBe(2);
  });

  test('a malformed idempotency key refuses its item, naming the field with the item\'s other problems', async () => {
    const results = await t.herald.events.publishMany(scope, [
      { eventType: 'order.paid', aggregateId: 'o-50', data: {}, idempotencyKey: '' },
      { eventType: 'order.paid', aggregateId: 'o-51', data: {}, idempotencyKey: 'k'.repeat(256) },
      { eventType: 'order.paid', aggregateId: 'o-52', data: 'x', idempotencyKey: 7 } as never,
    ]);
    expect((refused(results[0]) as ValidationError).errors).toEqual([{ field: 'idempotencyKey', message: 'must be 1–255 characters' }]);
    expect((refused(results[1]) as ValidationError).errors).toEqual([{ field: 'idempotencyKey', message: 'must be 1–255 characters' }]);
    expect((refused(results[2]) as ValidationError).errors).toEqual([
      { field: 'idempotencyKey', message: 'must be a string' },
      { field: 'data', message: 'must be a JSON object' },
    ]);
    expect(await collections.events.countDocuments({ orgId: scope.orgId, aggregateId: { $in: ['o-50', 'o-51', 'o-52'] } })).toBe(0);
  });

  test('a store that fails answers each item with a typed error (SERVICE_UNAVAILABLE), not a rejection of the call', async () => {
    const client = new MongoClient(t.database.uri);
    await client.connect();
    const herald = await createHerald({ mongo: { client, dbName: t.database.dbName }, masterKeys: t.options.masterKeys, engineFactory: () => recordingEngine() });
    await client.close();
    try {
      const results = await herald.events.publishMany(scope, [
        { eventType: 'order.paid', aggregateId: 'o-60', data: {} },
        { eventType: 'order.paid', aggregateId: '', data: {} },
      ]);
      const down = refused(results[0]);
      expect(down).toBeInstanceOf(HeraldError);
      expect(down.code).toBe('SERVICE_UNAVAILABLE');
      expect(refused(results[1]).code).toBe('MISSING_REQUIRED_PARAMETER');
    } finally {
      await herald.close();
    }
  });
});

describe('publishMany cost', () => {
  test('a batch shares the group commit: per 100 events one insert of events and one of rows, not three commands per event', async () => {
    const client = new MongoClient(t.database.uri, { monitorCommands: true });
    await client.connect();
    const started: CommandStartedEvent[] = [];
    client.on('commandStarted', (command) => started.push(command));
    const herald = await createHerald({ mongo: { client, dbName: t.database.dbName }, masterKeys: t.options.masterKeys, engineFactory: () => recordingEngine() });
    try {
      await herald.events.publish(scope, { eventType: 'order.counted', aggregateId: 'warm', data: {} });
      started.length = 0;
      const items = Array.from({ length: 250 }, (_, i) => ({ eventType: 'order.counted', aggregateId: `c-${i}`, data: { i } }));
      const results = await herald.events.publishMany(scope, items);
      expect(results.every((result) => result.ok)).toBe(true);
      const inserts = (collection: string) => started.filter((command) => command.commandName === 'insert' && command.command.insert === collection);
      expect(inserts('herald_events').map((command) => (command.command.documents as unknown[]).length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
      expect(inserts('herald_delivery_queue').map((command) => (command.command.documents as unknown[]).length).sort((a, b) => b - a)).toEqual([200, 200, 100]);
      expect(started.length).toBeLessThanOrEqual(9); // plus at most one revision read per group
    } finally {
      await herald.close();
      await client.close();
    }
  });

  test('on the store lane (FerretDB v1), a batch whose matches are held takes one read turn, its org\'s revision, not one per event', async () => {
    // While deliveries are behind, a read on the lane waits until no engine operation runs
    // (storage/store-lane.ts); a turn per event made a batch of 100 wait 100 times.
    const lane = await openTestHerald('core_publish_many_lane', { storeCompat: 'ferretdb-v1' });
    try {
      await lane.herald.subscribers.create(scope, { id: 'all', displayName: 'All', targetUrl: 'https://example.com/all', events: ['*'] });
      await lane.herald.events.publish(scope, { eventType: 'order.laned', aggregateId: 'warm', data: {} });
      const compat = lane.engine.deps!.compat;
      const retry = compat.retry.bind(compat);
      let readTurns = 0;
      compat.retry = (operation, urgent) => {
        readTurns += 1;
        return retry(operation, urgent);
      };
      const items = Array.from({ length: 100 }, (_, i) => ({ eventType: 'order.laned', aggregateId: `l-${i}`, data: { i } }));
      const results = await lane.herald.events.publishMany(scope, items);
      expect(results.every((result) => result.ok)).toBe(true);
      expect(readTurns).toBe(1);
      // A type not held yet is read once, on its own turn.
      readTurns = 0;
      await lane.herald.events.publishMany(scope, [{ eventType: 'order.fresh', aggregateId: 'f-1', data: {} }, { eventType: 'order.laned', aggregateId: 'f-2', data: {} }]);
      expect(readTurns).toBe(2);
    } finally {
      await lane.close();
    }
  });
});
