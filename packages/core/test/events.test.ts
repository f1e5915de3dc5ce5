// herald.events and herald.deliveries against a real MongoDB-wire server.
import { decryptFields } from '@herald/receiver';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Collection, MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { startTcpProxy } from '../../../test/support/tcp-proxy.js';
import { ConflictError, createHerald, NotFoundError, ValidationError, type Scope } from '../src/index.js';
import { createKeyCache } from '../src/engine/keys.js';
import { completeFanOut, payloadOf, sealSensitive } from '../src/events/fan-out.js';
import { completeInterruptedFanOuts } from '../src/events/fan-out-recovery.js';
import { buildSubscriberBody } from '../src/model/payload.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import type { DeliveryDocument, EventDocument } from '../src/storage/documents.js';
import { findRows } from '../src/model/delivery-rows.js';
import { cancelPendingDeliveries } from '../src/model/event-status.js';
import { applyEventDeltas, EventDeltas, rowDelta } from '../src/model/event-counters.js';
import { DeliveryStore } from '../src/engine/store/index.js';
import { detectStoreCompat } from '../src/storage/compat.js';
import { expectMatchesSchema } from './schema-check.js';
import { schemas } from '../src/index.js';
import { coreContextFor, openTestHerald, recordingEngine, rawDatabaseText, type TestHerald } from './helpers.js';

let t: TestHerald;
let collections: Collections;
const scope: Scope = { orgId: 'org-events', actor: 'alice' };
const SECRET = 'subscriber-secret-0123456789';
const CARD = '4111-1111-1111-1111';

beforeAll(async () => {
  t = await openTestHerald('core_events', {
    eventTypes: [
      {
        type: 'payment.captured',
        sensitive: ['cardNumber'],
        dataSchema: {
          type: 'object',
          required: ['amount'],
          properties: { amount: { type: 'integer', minimum: 0 }, at: { type: 'string', format: 'date-time' } },
        },
      },
    ],
  });
  collections = collectionsFor(t.database.db, 'herald_');
});
afterAll(async () => {
  await t.close();
});

/**
 * The body each subscriber's next attempt would carry, built as the engine builds it at send time:
 * from the stored event (sensitive values opened) and the subscriber's current secret.
 */
async function bodiesOf(target: TestHerald, eventId: string): Promise<Map<string, { body: string; encryptedFields: string[] }>> {
  const context = coreContextFor(target);
  const event = (await context.collections.events.findOne({ _id: eventId })) as EventDocument;
  const keys = createKeyCache(context.signingProfile, (sealed) => context.secretBox.open(sealed));
  const subscribers = await context.collections.subscribers.find({ _id: { $in: event.subscriberIds } }).toArray();
  return new Map(
    subscribers.map((subscriber) => [
      subscriber.handle,
      buildSubscriberBody(payloadOf(context, event), subscriber.secret ? keys.keysOf(subscriber.secret).field : undefined, context.signingProfile),
    ]),
  );
}

async function rowsOf(eventId: string): Promise<DeliveryDocument[]> {
  return findRows(collections, { eventId });
}

/** Settles a queued row as the engine would: into the history with `fields`, out of the queue. */
async function settleRow(id: string, fields: Partial<DeliveryDocument>): Promise<void> {
  const row = await collections.queue.findOne({ _id: id });
  await collections.deliveries.insertOne({ ...row!, leaseOwner: null, leaseUntil: null, ...fields });
  await collections.queue.deleteOne({ _id: id });
}

async function subscribe(orgScope: Scope, id: string, events: string[], extra: Record<string, unknown> = {}) {
  return t.herald.subscribers.create(orgScope, {
    id,
    displayName: id,
    targetUrl: `https://example.com/${id}`,
    events,
    ...extra,
  });
}

describe('matching', () => {
  const org: Scope = { orgId: 'org-match' };
  beforeAll(async () => {
    await subscribe(org, 'exact', ['apikey.generated']);
    await subscribe(org, 'family', ['apikey.*']);
    await subscribe(org, 'action', ['*.generated']);
    await subscribe(org, 'star', ['*']);
    // Events omitted: every event (an empty list is refused).
    await t.herald.subscribers.create(org, { id: 'empty', displayName: 'empty', targetUrl: 'https://example.com/empty' });
    await subscribe(org, 'other-family', ['subscription.*']);
    await subscribe(org, 'other-exact', ['apikey.revoked']);
    await subscribe(org, 'disabled', ['apikey.*'], { enabled: false });
    await subscribe({ orgId: 'org-elsewhere' }, 'foreign', ['*']);
  });

  test('exact, family, action and catch-all filters match; others, disabled and other orgs do not', async () => {
    const { event, created } = await t.herald.events.publish(org, { eventType: 'apikey.generated', aggregateId: 'k1', data: {} });
    expect(created).toBe(true);
    expect(event.status).toBe('DISPATCHED');
    expect(event.deliveries.map((row) => row.subscriberId).sort()).toEqual(['action', 'empty', 'exact', 'family', 'star']);
    expect(event.deliveries.every((row) => row.status === 'PENDING')).toBe(true);
    expect(event.aggregateType).toBe('apikey');
    const rows = await rowsOf(event.eventId);
    expect(rows).toHaveLength(5);
    // The recording engine takes no row itself: they are PENDING, and the engine was told to poll.
    expect(rows.every((row) => row.status === 'PENDING')).toBe(true);
    expect(t.engine.notified).toBeGreaterThan(0);
  });

  test('an event nobody subscribes to is ALL_DELIVERED with no rows', async () => {
    const { event } = await t.herald.events.publish({ orgId: 'org-nobody' }, { eventType: 'x.y', aggregateId: '1', data: {} });
    expect(event).toMatchObject({ status: 'ALL_DELIVERED', deliveries: [] });
  });

  test('changing a filter, disabling and re-enabling move the subscriber in and out of matching', async () => {
    await subscribe(org, 'mover', ['billing.paid']);
    const publishTypes = async () =>
      (await t.herald.events.publish(org, { eventType: 'billing.paid', aggregateId: '1', data: {} })).event.deliveries
        .map((row) => row.subscriberId)
        .filter((id) => id === 'mover');
    expect(await publishTypes()).toEqual(['mover']);
    await t.herald.subscribers.update(org, 'mover', { events: ['billing.refunded'] });
    expect(await publishTypes()).toEqual([]);
    await t.herald.subscribers.update(org, 'mover', { events: ['billing.*'], enabled: false });
    expect(await publishTypes()).toEqual([]);
    await t.herald.subscribers.update(org, 'mover', { enabled: true });
    expect(await publishTypes()).toEqual(['mover']);
    await t.herald.subscribers.delete(org, 'mover');
    expect(await publishTypes()).toEqual([]);
  });
});

describe('publish validation', () => {
  test.each([
    [{ eventType: 'Bad.Type', aggregateId: '1', data: {} }, 'eventType'],
    [{ eventType: 'nodot', aggregateId: '1', data: {} }, 'eventType'],
    [{ eventType: 'a.b', data: {} }, 'aggregateId'],
    [{ eventType: 'a.b', aggregateId: '1' }, 'data'],
    [{ eventType: 'a.b', aggregateId: '1', data: [] }, 'data'],
    [{ eventType: 'a.b', aggregateId: '1', data: {}, occurredAt: 'yesterday' }, 'occurredAt'],
    [{ eventType: 'a.b', aggregateId: '1', data: {}, sensitive: [''] }, 'sensitive[0]'],
    [{ eventType: 'a.b', aggregateId: '1', data: {}, extra: true }, 'extra'],
    [{ eventType: 'payment.captured', aggregateId: '1', data: { amount: -1 } }, 'data.amount'],
    [{ eventType: 'payment.captured', aggregateId: '1', data: { amount: 1, at: 'noon' } }, 'data.at'],
  ])('rejects %j and writes nothing', async (input, field) => {
    const before = await collections.events.countDocuments();
    const error = await t.herald.events.publish(scope, input as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.map((issue) => issue.field)).toContain(field);
    expect(await collections.events.countDocuments()).toBe(before);
  });
});

describe('catalog at runtime', () => {
  test('a type registered after start validates data and declares sensitive fields', async () => {
    const org: Scope = { orgId: 'org-runtime-catalog' };
    await subscribe(org, 'runtime', ['profile.*'], { secret: SECRET });
    t.herald.catalog.register({
      type: 'profile.updated',
      sensitive: ['phone'],
      dataSchema: { type: 'object', properties: { phone: { type: 'string', pattern: '^[+0-9 ]+$' } } },
    });
    await expect(
      t.herald.events.publish(org, { eventType: 'profile.updated', aggregateId: 'p', data: { phone: 'call me' } }),
    ).rejects.toBeInstanceOf(ValidationError);
    const { event } = await t.herald.events.publish(org, { eventType: 'profile.updated', aggregateId: 'p', data: { phone: '+49 30 1234' } });
    expect((await bodiesOf(t, event.eventId)).get('runtime')?.encryptedFields).toEqual(['phone']);
    expect(await rawDatabaseText(t.database)).not.toContain('+49 30 1234');
  });
});

describe('sensitive fields', () => {
  const org: Scope = { orgId: 'org-sensitive' };
  beforeAll(async () => {
    await subscribe(org, 'with-secret', ['payment.*'], { secret: SECRET });
    await subscribe(org, 'with-other-secret', ['payment.*'], { secret: 'another-secret-9876543210' });
    await subscribe(org, 'no-secret', ['payment.*']);
  });

  test('are encrypted per subscriber at send time, left out for secret-less subscribers, and never stored in plaintext', async () => {
    const { event } = await t.herald.events.publish(org, {
      eventType: 'payment.captured',
      aggregateType: 'payment',
      aggregateId: 'pay_1',
      data: { amount: 1200, cardNumber: CARD, holder: 'Jane Q' },
      sensitive: ['holder'],
      occurredAt: '2030-05-01T10:00:00.000Z',
    });
    const bySubscriber = await bodiesOf(t, event.eventId);

    const withSecret = bySubscriber.get('with-secret')!;
    expect(withSecret.encryptedFields).toEqual(['cardNumber', 'holder']);
    const body = JSON.parse(withSecret.body) as { data: Record<string, unknown>; id: string; type: string; timestamp: string };
    expect(body).toMatchObject({ id: event.eventId, type: 'payment.captured', timestamp: '2030-05-01T10:00:00.000Z' });
    expect(body.data.amount).toBe(1200);
    expect(body.data.cardNumber).toEqual({ iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String) });
    expect(decryptFields(body.data, SECRET, 'standard', withSecret.encryptedFields)).toEqual({
      amount: 1200,
      cardNumber: CARD,
      holder: 'Jane Q',
    });

    const otherBody = JSON.parse(bySubscriber.get('with-other-secret')!.body) as { data: Record<string, { iv: string }> };
    // A fresh IV per subscriber and field.
    expect(otherBody.data.cardNumber!.iv).not.toBe((body.data.cardNumber as { iv: string }).iv);
    expect(() => decryptFields(otherBody.data, SECRET, 'standard', ['cardNumber'])).toThrow();

    const noSecret = bySubscriber.get('no-secret')!;
    expect(noSecret.encryptedFields).toEqual([]);
    expect(JSON.parse(noSecret.body).data).toEqual({ amount: 1200 });

    const stored = await collections.events.findOne({ _id: event.eventId });
    expect(stored).toMatchObject({ data: '{"amount":1200}', sensitiveFields: ['cardNumber', 'holder'], status: 'DISPATCHED' });
    expect(stored?.sealedSensitive).toMatchObject({ keyId: 'k1' });

    const text = await rawDatabaseText(t.database);
    expect(text).not.toContain(CARD);
    expect(text).not.toContain('Jane Q');
    expect(text).not.toContain(SECRET);
  });

  test('an interrupted fan-out is completed from the recorded subscribers, once, with the sensitive values', async () => {
    const context = coreContextFor(t);
    // The state a crash right after the event insert leaves: the event and its plan, no rows.
    const old = new Date(Date.now() - 60_000);
    const eventId = 'crashed-event-1';
    const planned = await collections.subscribers.find({ orgId: org.orgId }).toArray();
    const crashed: EventDocument = {
      _id: eventId,
      orgId: org.orgId,
      eventType: 'payment.captured',
      aggregateType: 'payment',
      aggregateId: 'pay_9',
      status: 'DISPATCHED',
      occurredAt: old,
      createdAt: old,
      updatedAt: old,
      data: JSON.stringify({ amount: 7 }),
      sensitiveFields: ['cardNumber'],
      sealedSensitive: sealSensitive(context, { order: ['amount', 'cardNumber'], values: { cardNumber: CARD } }),
      subscriberIds: planned.map((subscriber) => subscriber._id),
      deliveryCount: planned.length,
      openDeliveries: planned.length,
      failedDeliveries: 0,
    };
    await collections.events.insertOne(crashed);
    expect(await rawDatabaseText(t.database)).not.toContain(CARD);
    // A fresh event (a publish in progress elsewhere) is left alone by the periodic sweep.
    await collections.events.insertOne({ ...crashed, _id: 'in-progress-event', createdAt: new Date(), occurredAt: new Date() });

    await t.herald.start(); // completes interrupted fan-outs before the engine starts
    await t.herald.stop();
    expect(await completeInterruptedFanOuts(context, new Date(Date.now() - 30_000))).toBe(0);
    expect(await rowsOf('in-progress-event')).toHaveLength(0);

    const rows = await rowsOf(eventId);
    expect(rows.map((row) => row.subscriberHandle).sort()).toEqual(['no-secret', 'with-other-secret', 'with-secret']);
    expect(rows.every((row) => row.status === 'PENDING')).toBe(true);
    const data = JSON.parse((await bodiesOf(t, eventId)).get('with-secret')!.body).data as Record<string, unknown>;
    expect(decryptFields(data, SECRET, 'standard')).toEqual({ amount: 7, cardNumber: CARD });
    // Running it again does nothing: every planned row exists.
    expect(await completeFanOut(context, crashed)).toBe(0);
    expect(await rowsOf(eventId)).toHaveLength(3);
  });

  test('the sweep leaves settled events alone: their open counter reached zero, so every planned row exists', async () => {
    const context = coreContextFor(t);
    const created = new Date(Date.now() - 45_000);
    const planned = await collections.subscribers.find({ orgId: org.orgId }).toArray();
    // Not a state Herald leaves; if the sweep looked at settled events it would write rows for it.
    await collections.events.insertOne({
      _id: 'settled-without-rows',
      orgId: org.orgId,
      eventType: 'payment.captured',
      aggregateType: 'payment',
      aggregateId: 'pay_settled',
      status: 'ALL_DELIVERED',
      occurredAt: created,
      createdAt: created,
      updatedAt: created,
      data: '{}',
      sensitiveFields: [],
      subscriberIds: planned.map((subscriber) => subscriber._id),
      deliveryCount: planned.length,
      openDeliveries: 0,
      failedDeliveries: 0,
    });
    await collections.engineState.updateOne({ _id: 'fan-out-recovery-cursor' }, { $set: { createdAt: new Date(created.getTime() - 1), eventId: '' } }, { upsert: true });
    await completeInterruptedFanOuts(context, new Date(Date.now() - 30_000));
    expect(await rowsOf('settled-without-rows')).toHaveLength(0);
  });

  test('completing a fan-out that already wrote some rows keeps them and adds only the missing ones', async () => {
    const context = coreContextFor(t);
    const { event } = await t.herald.events.publish(org, { eventType: 'payment.refunded', aggregateId: 'r1', data: { amount: 1 } });
    const rows = await rowsOf(event.eventId);
    expect(rows).toHaveLength(3);
    // As a crash part-way through the rows insert leaves it, with another row already delivered.
    await collections.queue.deleteOne({ _id: rows[0]!._id });
    const stored = (await collections.events.findOne({ _id: event.eventId }))!;
    expect(await completeFanOut(context, stored)).toBe(1);
    const after = await rowsOf(event.eventId);
    expect(after).toHaveLength(3);
    expect(after.filter((row) => rows.some((before) => before._id === row._id))).toHaveLength(2);
    expect((await collections.events.findOne({ _id: event.eventId }))).toMatchObject({ status: 'DISPATCHED', openDeliveries: 3 });
  });

  test('a subscriber deleted before its row was written gets its row queued all the same, for the engine to cancel', async () => {
    const context = coreContextFor(t);
    const gone = await subscribe({ orgId: 'org-crash-deleted' }, 'gone', ['crash.*']);
    const { event } = await t.herald.events.publish({ orgId: 'org-crash-deleted' }, { eventType: 'crash.late', aggregateId: 'c', data: {} });
    await collections.queue.deleteMany({ eventId: event.eventId });
    await t.herald.subscribers.delete({ orgId: 'org-crash-deleted' }, gone.id);
    expect(await completeFanOut(context, (await collections.events.findOne({ _id: event.eventId }))!)).toBe(1);
    expect(await rowsOf(event.eventId)).toMatchObject([{ status: 'PENDING', nextAttemptAt: expect.any(Date) }]);
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'DISPATCHED', openDeliveries: 1, failedDeliveries: 0 });
  });

  test('two replicas completing one fan-out at once write each row once', async () => {
    const orgScope = { orgId: 'org-crash-twice' };
    await subscribe(orgScope, 'staying', ['twice.*']);
    const leaving = await subscribe(orgScope, 'leaving', ['twice.*']);
    const { event } = await t.herald.events.publish(orgScope, { eventType: 'twice.done', aggregateId: 't', data: {} });
    await collections.queue.deleteMany({ eventId: event.eventId });
    await t.herald.subscribers.update(orgScope, leaving.id, { enabled: false });
    const stored = (await collections.events.findOne({ _id: event.eventId }))!;
    const written = await Promise.all([completeFanOut(coreContextFor(t), stored), completeFanOut(coreContextFor(t), stored)]);
    expect(written[0]! + written[1]!).toBe(2);
    expect(await collections.queue.countDocuments({ eventId: event.eventId })).toBe(2);
    expect(await collections.deliveries.countDocuments({ eventId: event.eventId })).toBe(0);
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'DISPATCHED', openDeliveries: 2, failedDeliveries: 0 });
  });
});

describe('publish cost', () => {
  test('three commands per event, whatever the number of matching subscribers, and nothing read back', async () => {
    const client = new MongoClient(t.database.uri, { monitorCommands: true });
    await client.connect();
    const started: CommandStartedEvent[] = [];
    client.on('commandStarted', (command) => started.push(command));
    const engine = recordingEngine();
    const herald = await createHerald({ mongo: { client, dbName: t.database.dbName }, masterKeys: t.options.masterKeys, engineFactory: () => engine });
    try {
      for (let i = 0; i < 10; i++) await herald.subscribers.create({ orgId: 'org-cost' }, { displayName: `s${i}`, targetUrl: `https://example.com/${i}` });
      await herald.events.publish({ orgId: 'org-cost' }, { eventType: 'order.checked', aggregateId: 'warm', data: {} });
      started.length = 0;
      const { event } = await herald.events.publish({ orgId: 'org-cost' }, { eventType: 'order.checked', aggregateId: 'o', data: {} });
      expect(event.deliveries).toHaveLength(10);
      expect(started.map((command) => `${command.commandName}:${String(command.command[command.commandName])}`)).toEqual([
        'find:herald_subscriber_revisions',
        'insert:herald_events',
        'insert:herald_delivery_queue',
      ]);
      expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'DISPATCHED', deliveryCount: 10, openDeliveries: 10 });

      // Publishes made together (a batch's callers publishing again, a burst of requests) share
      // one batch: the same three commands for all five.
      started.length = 0;
      const together = await Promise.all(Array.from({ length: 5 }, (_, i) => herald.events.publish({ orgId: 'org-cost' }, { eventType: 'order.checked', aggregateId: `t${i}`, data: {} })));
      expect(together.every(({ event: published }) => published.deliveries.length === 10)).toBe(true);
      expect(started.map((command) => command.commandName)).toEqual(['find', 'insert', 'insert']);
      expect(started[1]!.command.documents).toHaveLength(5);
    } finally {
      await herald.close();
      await client.close();
    }
  });
});

describe('publish round trips', () => {
  /** A Herald with no engine on its own monitored client; `uri` may lead through a proxy. */
  async function monitoredPublisher(uri = t.database.uri) {
    const client = new MongoClient(uri, { monitorCommands: true });
    await client.connect();
    const log: Array<{ kind: 'started' | 'answered'; name: string; at: number }> = [];
    const name = (event: { commandName: string; requestId: number }, command?: Document) => `${event.commandName}:${String(command?.[event.commandName] ?? '')}`;
    const started = new Map<number, string>();
    client.on('commandStarted', (event) => {
      started.set(event.requestId, name(event, event.command));
      log.push({ kind: 'started', name: started.get(event.requestId)!, at: performance.now() });
    });
    client.on('commandSucceeded', (event) => log.push({ kind: 'answered', name: started.get(event.requestId) ?? event.commandName, at: performance.now() }));
    const engine = recordingEngine();
    const herald = await createHerald({
      mongo: { client, dbName: t.database.dbName },
      masterKeys: t.options.masterKeys,
      engineFactory: (deps) => {
        engine.deps = deps;
        return engine;
      },
    });
    return {
      herald,
      log,
      engine,
      async close() {
        await herald.close();
        await client.close();
      },
    };
  }

  test('with the matches cached, the events are written while the revision is read: two round trips in series on MongoDB; read first on FerretDB v1\'s lane', async () => {
    await subscribe({ orgId: 'org-trips' }, 'trips', ['trip.*']);
    const proxy = await startTcpProxy(t.database.uri, { delayMs: 40 });
    const publisher = await monitoredPublisher(proxy.uri);
    try {
      await publisher.herald.events.publish({ orgId: 'org-trips' }, { eventType: 'trip.booked', aggregateId: 'warm', data: {} });
      publisher.log.length = 0;
      const { event } = await publisher.herald.events.publish({ orgId: 'org-trips' }, { eventType: 'trip.booked', aggregateId: 't1', data: {} });
      expect(event.deliveries).toHaveLength(1);
      const at = (kind: 'started' | 'answered', command: string) => publisher.log.find((entry) => entry.kind === kind && entry.name === command)!.at;
      const eventsSent = at('started', 'insert:herald_events');
      const revisionRead = at('answered', 'find:herald_subscriber_revisions');
      const rowsSent = at('started', 'insert:herald_delivery_queue');
      expect(publisher.log.filter((entry) => entry.kind === 'started').map((entry) => entry.name)).toEqual(['find:herald_subscriber_revisions', 'insert:herald_events', 'insert:herald_delivery_queue']);
      // The rows wait for both answers: a row never exists without its event and a current plan.
      expect(rowsSent).toBeGreaterThanOrEqual(Math.max(revisionRead, at('answered', 'insert:herald_events')));
      if (publisher.engine.deps?.compat.name === 'ferretdb-v1') {
        // The compatibility seam runs one operation at a time (storage/compat.ts).
        expect(eventsSent).toBeGreaterThanOrEqual(revisionRead);
      } else {
        expect(eventsSent).toBeLessThan(revisionRead);
      }
    } finally {
      await publisher.close();
      await proxy.close();
    }
  });

  test('a subscriber changed by another instance after the matches were cached: the event is planned again and corrected before its rows are written', async () => {
    const stale: Scope = { orgId: 'org-stale-cache' };
    const first = await subscribe(stale, 'first', ['stale.*']);
    const publisher = await monitoredPublisher();
    try {
      const warm = await publisher.herald.events.publish(stale, { eventType: 'stale.one', aggregateId: 'warm', data: {} });
      expect(warm.event.deliveries.map((delivery) => delivery.subscriberId)).toEqual([first.id]);

      // t.herald is another instance: the publisher's cache still holds the old matches.
      const second = await subscribe(stale, 'second', ['stale.*']);
      publisher.log.length = 0;
      const { event } = await publisher.herald.events.publish(stale, { eventType: 'stale.one', aggregateId: 'a', data: {} });
      expect(event.deliveries.map((delivery) => delivery.subscriberId).sort()).toEqual([first.id, second.id].sort());
      // Corrected after the insert where the revision was read beside it; planned after the read
      // on the serial lane (FerretDB v1), where nothing runs side by side.
      const corrected = publisher.log.some((entry) => entry.kind === 'started' && entry.name === 'update:herald_events');
      expect(corrected).toBe(publisher.engine.deps!.compat.concurrentOperations);
      const stored = (await collections.events.findOne({ _id: event.eventId }))!;
      expect(stored).toMatchObject({ status: 'DISPATCHED', deliveryCount: 2, openDeliveries: 2, failedDeliveries: 0 });
      expect(stored.subscriberIds).toHaveLength(2);
      expect((await rowsOf(event.eventId)).map((row) => row.subscriberHandle).sort()).toEqual([first.id, second.id].sort());

      // The same the other way: no subscriber matches any more, so the event is settled at once.
      await t.herald.subscribers.delete(stale, first.id);
      await t.herald.subscribers.delete(stale, second.id);
      const none = await publisher.herald.events.publish(stale, { eventType: 'stale.one', aggregateId: 'b', data: {} });
      expect(none.event.deliveries).toEqual([]);
      expect(await collections.events.findOne({ _id: none.event.eventId })).toMatchObject({ status: 'ALL_DELIVERED', deliveryCount: 0, openDeliveries: 0, subscriberIds: [] });
      expect(await rowsOf(none.event.eventId)).toEqual([]);

      // Once planned again under the new revision, a publish costs the usual three commands.
      publisher.log.length = 0;
      await publisher.herald.events.publish(stale, { eventType: 'stale.one', aggregateId: 'c', data: {} });
      expect(publisher.log.filter((entry) => entry.kind === 'started').map((entry) => entry.name)).toEqual(['find:herald_subscriber_revisions', 'insert:herald_events']);
    } finally {
      await publisher.close();
    }
  });
});

describe('idempotency', () => {
  const org: Scope = { orgId: 'org-idem' };
  test('the same key returns the stored event with created=false and no second fan-out', async () => {
    await subscribe(org, 'idem-sub', ['order.*']);
    const input = { eventType: 'order.placed', aggregateId: 'o1', data: { total: 3 } };
    const first = await t.herald.events.publish(org, input, { idempotencyKey: 'key-1' });
    const notifications = t.engine.notified;
    const second = await t.herald.events.publish(org, { ...input }, { idempotencyKey: 'key-1' });
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.event).toEqual(first.event);
    expect(await rowsOf(first.event.eventId)).toHaveLength(1);
    expect(t.engine.notified).toBe(notifications);
    expect(await collections.events.countDocuments({ orgId: org.orgId })).toBe(1);
    // The key is per organization; another key is another event.
    const otherOrg = await t.herald.events.publish({ orgId: 'org-idem-2' }, input, { idempotencyKey: 'key-1' });
    expect(otherOrg.created).toBe(true);
    expect(otherOrg.event.eventId).not.toBe(first.event.eventId);
    expect((await t.herald.events.publish(org, input, { idempotencyKey: 'key-2' })).created).toBe(true);
  });

  test('the same key with a different request is a conflict, and nothing is written', async () => {
    const input = { eventType: 'order.placed', aggregateId: 'o2', data: { total: 3 } };
    await t.herald.events.publish(org, input, { idempotencyKey: 'key-3' });
    const before = await collections.events.countDocuments({ orgId: org.orgId });
    await expect(t.herald.events.publish(org, { ...input, data: { total: 999 } }, { idempotencyKey: 'key-3' })).rejects.toBeInstanceOf(ConflictError);
    await expect(t.herald.events.publish(org, { ...input, aggregateId: 'o3' }, { idempotencyKey: 'key-3' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await collections.events.countDocuments({ orgId: org.orgId })).toBe(before);
  });

  test('keys belong to the organization: a retry under another principal (a rotated token) gets the original event', async () => {
    const input = { eventType: 'order.placed', aggregateId: 'o4', data: { total: 3 } };
    const before = await collections.events.countDocuments({ orgId: org.orgId });
    const first = await t.herald.events.publish({ ...org, actor: 'token-old' }, input, { idempotencyKey: 'shared-key' });
    const retry = await t.herald.events.publish({ ...org, actor: 'token-new' }, input, { idempotencyKey: 'shared-key' });
    expect(first.created).toBe(true);
    expect(retry.created).toBe(false);
    expect(retry.event.eventId).toBe(first.event.eventId);
    expect(await rowsOf(first.event.eventId)).toHaveLength(1);
    expect(await collections.events.countDocuments({ orgId: org.orgId })).toBe(before + 1);
    // Another principal of the same org sending another request under that key is a conflict.
    await expect(t.herald.events.publish({ ...org, actor: 'someone-else' }, { ...input, data: { total: 4 } }, { idempotencyKey: 'shared-key' })).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

describe('concurrent idempotent publishes', () => {
  test('one event, one set of rows, exactly one created=true', async () => {
    const org: Scope = { orgId: 'org-idem-race' };
    await subscribe(org, 'race-sub', ['*']);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.herald.events.publish(org, { eventType: 'race.won', aggregateId: 'r', data: {} }, { idempotencyKey: 'same-key' }),
      ),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.event.eventId)).size).toBe(1);
    expect(await collections.events.countDocuments({ orgId: org.orgId })).toBe(1);
    expect(await rowsOf(results[0]!.event.eventId)).toHaveLength(1);
  });
});

describe('reads', () => {
  const org: Scope = { orgId: 'org-reads' };
  const published: string[] = [];
  beforeAll(async () => {
    await subscribe(org, 'reader', ['*']);
    for (let index = 0; index < 3; index++) {
      const { event } = await t.herald.events.publish(org, {
        eventType: 'doc.saved',
        aggregateId: `d${index}`,
        data: { index },
        occurredAt: new Date(Date.UTC(2030, 0, 1 + index)).toISOString(),
      });
      published.push(event.eventId);
    }
    await t.herald.events.publish({ orgId: 'org-nobody-reads' }, { eventType: 'doc.saved', aggregateId: 'x', data: {} });
  });

  test('events are listed newest first by occurredAt, paginated, with delivery summaries', async () => {
    const page = await t.herald.events.list(org, { limit: 2 });
    expect(page.pagination).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(page.list.map((event) => event.eventId)).toEqual([published[2], published[1]]);
    expect(page.list[0]!.deliveries).toEqual([
      {
        deliveryId: expect.any(String),
        subscriberId: 'reader',
        targetUrl: 'https://example.com/reader',
        status: 'PENDING',
        lastHttpStatus: null,
        lastError: null,
        lastAttemptAt: null,
        deliveredAt: null,
      },
    ]);
    expectMatchesSchema(schemas.WebhookEventList, page);
    const next = await t.herald.events.list(org, { limit: 2, offset: 2 });
    expect(next.list.map((event) => event.eventId)).toEqual([published[0]]);
  });

  test('the status filter selects events; a bad status or limit is a ValidationError', async () => {
    expect((await t.herald.events.list(org, { status: 'DISPATCHED' })).pagination.total).toBe(3);
    expect((await t.herald.events.list(org, { status: 'FAILED' })).list).toEqual([]);
    await expect(t.herald.events.list(org, { status: 'DONE' as never })).rejects.toBeInstanceOf(ValidationError);
    await expect(t.herald.events.list(org, { limit: 1000 })).rejects.toBeInstanceOf(ValidationError);
  });

  test('get returns full rows with attempt history; another org or an unknown id is not found', async () => {
    const eventId = published[0]!;
    const [row] = await rowsOf(eventId);
    const startedAt = new Date('2030-01-01T00:00:01.000Z');
    await settleRow(row!._id, { status: 'FAILED', attempts: 1, lastHttpStatus: 500, lastError: 'HTTP 500', lastAttemptAt: startedAt });
    await collections.attempts.insertOne({
      _id: `${row!._id}:1`,
      deliveryId: row!._id,
      eventId,
      subscriberId: row!.subscriberId,
      orgId: org.orgId,
      attempt: 1,
      startedAt,
      durationMs: 12,
      httpStatus: 500,
      errorClass: 'http_status',
      errorMessage: 'HTTP 500',
      responseBodySnippet: 'oops',
    });
    const detail = await t.herald.events.get(org, eventId);
    expect(detail.deliveries[0]).toMatchObject({
      deliveryId: row!._id,
      status: 'FAILED',
      attempts: 1,
      encryptedFields: [],
      attemptHistory: [
        {
          attempt: 1,
          startedAt: '2030-01-01T00:00:01.000Z',
          durationMs: 12,
          httpStatus: 500,
          errorClass: 'http_status',
          errorMessage: 'HTTP 500',
          responseBodySnippet: 'oops',
        },
      ],
    });
    expectMatchesSchema(schemas.WebhookEventDetail, detail);
    await expect(t.herald.events.get({ orgId: 'org-other' }, eventId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.herald.events.get(org, 'no-such-event')).rejects.toMatchObject({ code: 'ORG_NOT_FOUND' });
  });

  test('subscriber deliveries: newest attempt first, never-attempted rows by creation, at most 50', async () => {
    const rows = await findRows(collections, { subscriberHandle: 'reader' });
    const attemptedId = rows.find((row) => row.lastAttemptAt !== null)!._id;
    const list = await t.herald.subscribers.deliveries(org, 'reader');
    expect(list).toHaveLength(3);
    expect(list[0]!.deliveryId).toBe(attemptedId);
    expect(list[0]).toMatchObject({ eventType: 'doc.saved', status: 'FAILED', lastHttpStatus: 500 });
    expectMatchesSchema(schemas.WebhookSubscriberDeliveryList, { list });
    const neverAttempted = rows
      .filter((row) => row._id !== attemptedId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1))
      .map((row) => row._id);
    expect(list.slice(1).map((item) => item.deliveryId)).toEqual(neverAttempted);
  });
});

describe('cancellation, redeliver and retry', () => {
  const org: Scope = { orgId: 'org-cancel' };

  test('disabling a subscriber fails its PENDING rows with a reason and re-aggregates the event', async () => {
    await subscribe(org, 'to-disable', ['job.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'job.done', aggregateId: 'j1', data: {} });
    await t.herald.subscribers.update(org, 'to-disable', { enabled: false });
    // Cancellation runs after the answer.
    await expect.poll(async () => (await t.herald.events.get(org, event.eventId)).status).toBe('FAILED');
    const [row] = await rowsOf(event.eventId);
    expect(row).toMatchObject({ status: 'FAILED', lastError: expect.stringMatching(/disabled/) });
  });

  test('disabling a subscriber with 1,000 pending rows answers at once; the rows are cancelled after', async () => {
    const big: Scope = { orgId: 'org-cancel-big' };
    await subscribe(big, 'backlogged', ['bulk.*']);
    for (let i = 0; i < 1_000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => t.herald.events.publish(big, { eventType: 'bulk.made', aggregateId: `b${i + j}`, data: {} })));
    }
    const started = performance.now();
    await t.herald.subscribers.update(big, 'backlogged', { enabled: false });
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect.poll(async () => (await t.herald.events.list(big, { status: 'FAILED', limit: 1 })).pagination.total, { timeout: 90_000, interval: 500 }).toBe(1_000);
    expect(await collections.queue.countDocuments({ orgId: big.orgId })).toBe(0);
  }, 150_000);

  test('deleting a subscriber fails its PENDING rows but keeps history', async () => {
    await subscribe(org, 'to-delete', ['job.*']);
    await subscribe(org, 'stays', ['job.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'job.started', aggregateId: 'j2', data: {} });
    const rows = await rowsOf(event.eventId);
    const staying = rows.find((row) => row.subscriberHandle === 'stays')!;
    await settleRow(staying._id, { status: 'DELIVERED', deliveredAt: new Date() });
    await collections.events.updateOne({ _id: event.eventId }, { $inc: { openDeliveries: -1 } });
    await t.herald.subscribers.delete(org, 'to-delete');
    await expect.poll(async () => (await t.herald.events.get(org, event.eventId)).status, { timeout: 10_000 }).toBe('FAILED'); // cancellation runs in the background
    const after = await t.herald.events.get(org, event.eventId);
    expect(after.deliveries.find((row) => row.subscriberId === 'to-delete')).toMatchObject({
      status: 'FAILED',
      lastError: expect.stringMatching(/deleted/),
    });
    expect(after.deliveries.find((row) => row.subscriberId === 'stays')?.status).toBe('DELIVERED');
  });

  test('redeliver puts rows of enabled subscribers back to PENDING and the event to DISPATCHED', async () => {
    await subscribe(org, 'redeliver-me', ['task.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'task.run', aggregateId: 't1', data: {} });
    const [row] = await rowsOf(event.eventId);
    await settleRow(row!._id, { status: 'FAILED', attempts: 10, nextAttemptAt: null });
    await collections.events.updateOne({ _id: event.eventId }, { $set: { status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 } });
    const before = t.engine.notified;
    const detail = await t.herald.events.redeliver(org, event.eventId);
    expect(detail.status).toBe('DISPATCHED');
    // Attempt numbers go on (the next is 11); the retry budget starts afresh from here.
    expect(detail.deliveries[0]).toMatchObject({ status: 'PENDING', attempts: 10 });
    expect(await collections.queue.findOne({ _id: row!._id })).toMatchObject({ attempts: 10, retryBudgetFrom: 10 });
    expect(detail.deliveries[0]!.nextAttemptAt).not.toBeNull();
    expect(t.engine.notified).toBeGreaterThan(before);
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ openDeliveries: 1, failedDeliveries: 0 });
    await expect(t.herald.events.redeliver(org, 'missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a redelivery that begins while retention removes its event keeps its queued row and its event', async () => {
    await subscribe(org, 'redeliver-old', ['archive.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'archive.made', aggregateId: 'a1', data: {} });
    const [row] = await rowsOf(event.eventId);
    await settleRow(row!._id, { status: 'DELIVERED', attempts: 1, nextAttemptAt: null });
    const longAgo = new Date(Date.now() - 60 * 86_400_000);
    await collections.events.updateOne({ _id: event.eventId }, { $set: { status: 'ALL_DELIVERED', openDeliveries: 0, createdAt: longAgo } });
    // The redelivery runs between the step's read of old settled events and its deletes.
    const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
    const find = store.collections.events.find.bind(store.collections.events);
    store.collections.events.find = ((...args: Parameters<typeof find>) => {
      const cursor = find(...args);
      const read = cursor.toArray.bind(cursor);
      cursor.toArray = async () => {
        const old = await read();
        if (old.some((found) => found._id === event.eventId)) await t.herald.events.redeliver(org, event.eventId);
        return old;
      };
      return cursor;
    }) as typeof find;
    expect(await store.purging.purgeFinishedBefore(new Date(Date.now() - 86_400_000), 10, { orgId: org.orgId, eventType: 'archive.made' })).toBe(0);
    expect(await collections.queue.findOne({ _id: row!._id })).toMatchObject({ status: 'PENDING', eventId: event.eventId });
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'DISPATCHED', openDeliveries: 1 });
  });

  test('a retry of a row the engine is settling leaves the engine its history copy', async () => {
    await subscribe(org, 'mid-settle', ['ledger.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'ledger.closed', aggregateId: 'l1', data: {} });
    const [row] = await rowsOf(event.eventId);
    // The engine has written its settled copy to the history; its queued copy goes next.
    await collections.queue.updateOne({ _id: row!._id }, { $set: { status: 'IN_FLIGHT', leaseOwner: 'engine' } });
    await collections.deliveries.insertOne({ ...row!, status: 'DELIVERED', attempts: 1, leaseOwner: null, settledBy: 'engine-batch', updatedAt: new Date() });
    await t.herald.deliveries.retry(org, row!._id);
    await collections.queue.deleteOne({ _id: row!._id, leaseOwner: 'engine' });
    expect(await collections.deliveries.findOne({ _id: row!._id })).toMatchObject({ status: 'DELIVERED', settledBy: 'engine-batch' });
  });

  test('a retry colliding with a settle whose counter change is still to come leaves the counters exact', async () => {
    await subscribe(org, 'mid-count', ['till.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'till.closed', aggregateId: 't1', data: {} });
    const [row] = await rowsOf(event.eventId);
    const context = coreContextFor(t);
    // The engine has written its settled copy; as the retry's queue insert collides with its queued
    // copy, the engine deletes that copy, and its counter change comes after the retry returns.
    await collections.queue.updateOne({ _id: row!._id }, { $set: { status: 'IN_FLIGHT', leaseOwner: 'engine' } });
    await collections.deliveries.insertOne({ ...row!, status: 'DELIVERED', attempts: 1, leaseOwner: null, settledBy: 'engine-batch', updatedAt: new Date() });
    const insertMany = Collection.prototype.insertMany;
    Collection.prototype.insertMany = async function (this: Collection, ...args: Parameters<typeof insertMany>) {
      try {
        return await insertMany.apply(this, args);
      } finally {
        if (this.collectionName.endsWith('delivery_queue')) await collections.queue.deleteOne({ _id: row!._id, leaseOwner: 'engine' });
      }
    } as typeof insertMany;
    try {
      await t.herald.deliveries.retry(org, row!._id);
    } finally {
      Collection.prototype.insertMany = insertMany;
    }
    expect(await collections.queue.findOne({ _id: row!._id })).toBeNull();
    const deltas = new EventDeltas();
    deltas.add(event.eventId, rowDelta('IN_FLIGHT', 'DELIVERED'));
    await applyEventDeltas(collections, context.compat, deltas, new Date());
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'ALL_DELIVERED', openDeliveries: 0, failedDeliveries: 0 });
  });

  /**
   * Retries a FAILED row, with other writers acting as the retry queues its copy: `before` just
   * before that insert, `after` once the copy is in. Whatever they do, the row must end delivered
   * once: its newer history copy (attempt + 1) standing, nothing queued, and the event's counters
   * counting it once.
   */
  async function retryDeliveredMeanwhile(
    handle: string,
    family: string,
    around: { before?: (read: DeliveryDocument, eventId: string) => Promise<void>; after?: (read: DeliveryDocument, eventId: string) => Promise<void> },
  ) {
    await subscribe(org, handle, [`${family}.*`]);
    const { event } = await t.herald.events.publish(org, { eventType: `${family}.counted`, aggregateId: 'x1', data: {} });
    const [row] = await rowsOf(event.eventId);
    await settleRow(row!._id, { status: 'FAILED', lastError: 'HTTP 500' });
    await collections.events.updateOne({ _id: event.eventId }, { $set: { status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 } });
    const read = (await collections.deliveries.findOne({ _id: row!._id }))!;
    const insertMany = Collection.prototype.insertMany;
    let hooked = false;
    Collection.prototype.insertMany = async function (this: Collection, ...args: Parameters<typeof insertMany>) {
      if (!this.collectionName.endsWith('delivery_queue') || hooked) return insertMany.apply(this, args);
      hooked = true;
      await around.before?.(read, event.eventId);
      const result = await insertMany.apply(this, args);
      await around.after?.(read, event.eventId);
      return result;
    } as typeof insertMany;
    try {
      await t.herald.deliveries.retry(org, row!._id);
    } finally {
      Collection.prototype.insertMany = insertMany;
    }
    expect(hooked).toBe(true);
    expect(await collections.queue.findOne({ _id: row!._id })).toBeNull();
    expect(await collections.deliveries.findOne({ _id: row!._id })).toMatchObject({ status: 'DELIVERED', attempts: read.attempts + 1 });
    expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ status: 'ALL_DELIVERED', openDeliveries: 0, failedDeliveries: 0 });
  }

  /**
   * Another retry of the row has been sent and settled as this one queues its copy: the history
   * holds a newer copy, and the counters that retry and its settle changed. `whileQueued` runs once
   * this retry's copy is in the queue.
   */
  async function retryOvertaken(handle: string, family: string, whileQueued: (row: DeliveryDocument) => Promise<void> = async () => {}) {
    await retryDeliveredMeanwhile(handle, family, {
      before: async (read, eventId) => {
        await collections.deliveries.replaceOne({ _id: read._id }, { ...read, status: 'DELIVERED', attempts: read.attempts + 1, lastError: null, updatedAt: new Date(read.updatedAt.getTime() + 1_000), takenAt: new Date() });
        // Directly, not through the store seam: on FerretDB this insert holds its write lane.
        await collections.events.updateOne({ _id: eventId }, { $inc: { failedDeliveries: -1 }, $set: { status: 'ALL_DELIVERED' } });
      },
      after: whileQueued,
    });
  }

  test('a retry whose read of the history is stale when it queues (the row was retried, sent and settled meanwhile) sends nothing and counts nothing', async () => {
    await retryOvertaken('stale-retry', 'stock');
  });

  test('a cancellation of the subscriber between a stale retry\'s queueing and its check of the history leaves the newer settled copy', async () => {
    // Its own lane: the cancellation runs while this retry's insert holds the seam's.
    const cancelCompat = await detectStoreCompat(t.database.db);
    let cancelled: number | undefined;
    await retryOvertaken('stale-cancel', 'crate', async (row) => {
      // The subscriber is disabled now: its pending rows are cancelled while the retry's copy is queued.
      cancelled = await cancelPendingDeliveries(collections, cancelCompat, row.subscriberId, 'Subscriber disabled', new Date());
    });
    expect(cancelled).toBe(0);
  });

  test('a stale retry whose hold runs out before its check of the history (it stalled) is withdrawn by lease recovery, not let go', async () => {
    // Its own lane: recovery runs while this retry's insert holds the seam's.
    const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
    await retryOvertaken('stale-stalled', 'parcel', async (row) => {
      await collections.queue.updateOne({ _id: row._id }, { $set: { leaseUntil: new Date(Date.now() - 1_000) } });
      await store.recovery.recoverExpiredLeases(new Date());
    });
  });

  test('a retry whose hold runs out mid-move, whose copy lease recovery lets go and the engine sends, counts that send once', async () => {
    // Its own lane: recovery runs while this retry's insert holds the seam's.
    const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
    await retryDeliveredMeanwhile('stalled-current', 'tray', {
      // The retry stalls here past its hold: recovery finishes the move and lets the copy go, and an
      // engine sends and settles it (written directly, as its settle would be), all before the retry
      // goes on.
      after: async (read, eventId) => {
        await collections.queue.updateOne({ _id: read._id }, { $set: { leaseUntil: new Date(Date.now() - 1_000) } });
        await store.recovery.recoverExpiredLeases(new Date());
        const letGo = (await collections.queue.findOne({ _id: read._id }))!;
        expect(letGo).toMatchObject({ status: 'PENDING', leaseOwner: null });
        await collections.queue.deleteOne({ _id: read._id });
        await collections.deliveries.insertOne({ ...letGo, status: 'DELIVERED', attempts: read.attempts + 1, lastError: null, settledBy: 'engine-batch', takenAt: new Date(), updatedAt: new Date() });
        await collections.events.updateOne({ _id: eventId }, { $inc: { openDeliveries: -1 }, $set: { status: 'ALL_DELIVERED' } });
      },
    });
  });

  test('redeliver leaves rows of disabled subscribers alone', async () => {
    await subscribe(org, 'redeliver-on', ['sync.*']);
    await subscribe(org, 'redeliver-off', ['sync.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'sync.done', aggregateId: 's1', data: {} });
    for (const row of await rowsOf(event.eventId)) await settleRow(row._id, { status: 'FAILED', lastError: 'HTTP 500' });
    await collections.events.updateOne({ _id: event.eventId }, { $set: { status: 'FAILED', openDeliveries: 0, failedDeliveries: 2 } });
    await t.herald.subscribers.update(org, 'redeliver-off', { enabled: false });
    const detail = await t.herald.events.redeliver(org, event.eventId);
    const bySubscriber = new Map(detail.deliveries.map((row) => [row.subscriberId, row]));
    expect(bySubscriber.get('redeliver-on')?.status).toBe('PENDING');
    expect(bySubscriber.get('redeliver-off')).toMatchObject({ status: 'FAILED', lastError: 'HTTP 500' });
    expect(detail.status).toBe('DISPATCHED');
  });

  test('retry requeues one row; unknown or foreign rows are not found', async () => {
    await subscribe(org, 'retry-me', ['mail.*']);
    const { event } = await t.herald.events.publish(org, { eventType: 'mail.sent', aggregateId: 'm1', data: {} });
    const [row] = await rowsOf(event.eventId);
    await settleRow(row!._id, { status: 'FAILED', lastError: 'HTTP 410' });
    await collections.events.updateOne({ _id: event.eventId }, { $set: { status: 'FAILED', openDeliveries: 0, failedDeliveries: 1 } });
    const retried = await t.herald.deliveries.retry(org, row!._id);
    expect(retried).toMatchObject({ deliveryId: row!._id, status: 'PENDING', subscriberId: 'retry-me' });
    expectMatchesSchema(schemas.WebhookEventDelivery, retried);
    expect((await collections.events.findOne({ _id: event.eventId }))?.status).toBe('DISPATCHED');
    await expect(t.herald.deliveries.retry({ orgId: 'org-x' }, row!._id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.herald.deliveries.retry(org, 'nope')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('api-portal profile', () => {
  test('bodies use the api-portal envelope and verify with the receiver', async () => {
    const portal = await openTestHerald('core_events_portal', {
      signingProfile: 'api-portal',
      eventTypes: [{ type: 'apikey.generated', sensitive: ['key'] }],
    });
    try {
      await portal.herald.subscribers.create({ orgId: 'acme' }, {
        id: 'portal-sub',
        displayName: 'p',
        targetUrl: 'https://example.com/p',
        secret: 'shared-secret-for-portal',
      });
      const { event } = await portal.herald.events.publish({ orgId: 'acme' }, {
        eventType: 'apikey.generated',
        aggregateId: 'k',
        data: { name: 'ci', key: 'sk_live_abc' },
        occurredAt: '2030-01-01T00:00:00Z',
      });
      const body = JSON.parse((await bodiesOf(portal, event.eventId)).get('portal-sub')!.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['event_id', 'event_type', 'occurred_at', 'org', 'encrypted_fields', 'data']);
      expect(body).toMatchObject({
        event_id: event.eventId,
        event_type: 'apikey.generated',
        occurred_at: '2030-01-01T00:00:00.000Z',
        org: { ref_id: 'acme' },
        encrypted_fields: ['key'],
      });
      const data = decryptFields(body.data as Record<string, unknown>, 'shared-secret-for-portal', 'api-portal');
      expect(data).toEqual({ name: 'ci', key: 'sk_live_abc' });
    } finally {
      await portal.close();
    }
  });
});
