// bench/history-copy.ts, which the volume and console benchmarks seed their history with: copies of
// a sample Herald really delivered must read back through Herald's own API as that org's and those
// subscribers' settled events, each copy with ids of its own and its links to its rows and attempts.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHerald, type Herald, type Scope } from '@herald/core';
import { copyHistory } from '../bench/history-copy.js';
import { openTestDatabase, type TestDatabase } from './support/mongo.js';

const scope: Scope = { orgId: 'org-history', actor: 'bench' };
const SAMPLE = 4;
const TARGET = 14; // three copies of the sample, the last one cut short
const DAY = 24 * 60 * 60 * 1000;

let database: TestDatabase;
let herald: Herald;
let receiver: Server;
let subscriberId: string;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function settled(eventType: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const open = await database.db.collection('herald_events').countDocuments({ eventType, status: { $ne: 'ALL_DELIVERED' } });
    const queued = await database.db.collection('herald_delivery_queue').countDocuments({ eventType });
    if (open === 0 && queued === 0) return;
    await sleep(100);
  }
  throw new Error(`${eventType} events did not settle`);
}

beforeAll(async () => {
  database = await openTestDatabase('history_copy');
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  herald = await createHerald({
    mongo: { db: database.db },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    eventTypes: [{ type: 'history.recorded', sensitive: ['card'] }, { type: 'history.open' }],
    delivery: { ssrfAllowList: ['127.0.0.0/8'], pollIntervalMs: 100, retentionMs: 0 },
  });
  const subscriber = await herald.subscribers.create(scope, {
    displayName: 'history',
    targetUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    secret: 'history-copy-secret-0123456789',
    events: ['history.recorded'],
  });
  subscriberId = subscriber.id;
  await herald.start();
  for (let i = 0; i < SAMPLE; i++) {
    await herald.events.publish(scope, { eventType: 'history.recorded', aggregateId: `order-${i}`, data: { n: i, card: '4111111111111111' } });
  }
  await settled('history.recorded');
});

afterAll(async () => {
  await herald?.close();
  receiver?.close();
  await database?.close();
});

describe('copyHistory', () => {
  it('fills the events collection to the target with copies that read back as settled history', async () => {
    const sampleIds = (await database.db.collection('herald_events').find({}, { projection: { _id: 1 } }).toArray()).map((event) => String(event._id));
    const oldestSample = (await database.db.collection('herald_events').find({}).sort({ createdAt: 1 }).limit(1).next())!.createdAt as Date;

    const result = await copyHistory(database.db, { sample: { orgId: scope.orgId, eventType: 'history.recorded' }, targetEvents: TARGET, spreadMs: DAY });

    expect(result).toMatchObject({ sampleEvents: SAMPLE, copiedEvents: TARGET - SAMPLE, copiedDeliveries: TARGET - SAMPLE, copiedAttempts: TARGET - SAMPLE });
    const events = await database.db.collection('herald_events').find({}).toArray();
    expect(events).toHaveLength(TARGET);
    expect(new Set(events.map((event) => String(event._id))).size).toBe(TARGET);
    const copies = events.filter((event) => !sampleIds.includes(String(event._id)));
    for (const copy of copies) {
      expect(copy.orgId).toBe(scope.orgId);
      expect(copy.status).toBe('ALL_DELIVERED');
      // Moved back, by at most the spread.
      expect((copy.createdAt as Date).getTime()).toBeLessThan(oldestSample.getTime());
      expect((copy.createdAt as Date).getTime()).toBeGreaterThan(oldestSample.getTime() - DAY - 60_000);
    }

    // Through Herald's API: the list holds them all, newest (the sample) first, and each copy's
    // detail finds its own row and attempt, still the same subscriber's.
    const listed = await herald.events.list(scope, { limit: 100 });
    expect(listed.pagination.total).toBe(TARGET);
    expect(listed.list.slice(0, SAMPLE).map((event) => event.eventId).sort()).toEqual([...sampleIds].sort());
    const sampleRowIds = new Set((await database.db.collection('herald_deliveries').find({ eventId: { $in: sampleIds } }).toArray()).map((row) => String(row._id)));
    for (const copy of copies) {
      const detail = await herald.events.get(scope, String(copy._id));
      expect(detail.deliveries).toHaveLength(1);
      const [row] = detail.deliveries;
      expect(row!.subscriberId).toBe(subscriberId);
      expect(sampleRowIds.has(row!.deliveryId)).toBe(false);
      expect(row!.attemptHistory).toHaveLength(1);
      expect(row!.attemptHistory[0]!.httpStatus).toBe(200);
    }
    const attempts = await database.db.collection('herald_delivery_attempts').find({}).toArray();
    expect(new Set(attempts.map((attempt) => String(attempt._id))).size).toBe(TARGET);
    for (const attempt of attempts) expect(String(attempt._id)).toContain(String(attempt.deliveryId));
  });

  it('copies nothing when the store already holds the target', async () => {
    const result = await copyHistory(database.db, { sample: { orgId: scope.orgId, eventType: 'history.recorded' }, targetEvents: TARGET, spreadMs: DAY });
    expect(result.copiedEvents).toBe(0);
    expect(await database.db.collection('herald_events').countDocuments({})).toBe(TARGET);
  });

  it('refuses a sample that matches nothing, or one still being delivered', async () => {
    await expect(copyHistory(database.db, { sample: { eventType: 'no.such.type' }, targetEvents: 100, spreadMs: DAY })).rejects.toThrow(/no sample events match/);
    // A subscriber whose receiver never answers keeps its row in the queue: not settled history.
    const hanging = createServer(() => undefined);
    await new Promise<void>((done) => hanging.listen(0, '127.0.0.1', done));
    try {
      await herald.subscribers.create(scope, { displayName: 'hanging', targetUrl: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`, timeoutMs: 10_000, events: ['history.open'] });
      await herald.events.publish(scope, { eventType: 'history.open', aggregateId: 'open-1', data: {} });
      await expect(copyHistory(database.db, { sample: { eventType: 'history.open' }, targetEvents: 100, spreadMs: DAY })).rejects.toThrow(/not settled: 1 rows/);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  });
});
