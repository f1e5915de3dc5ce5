// Concurrent writers against invariants, on whichever store the run uses (FerretDB v1 by default,
// memory-mongo in scripts/test-memory-mongo.sh, or MONGODB_URI). Two Herald instances share one
// database through two clients — two connection pools, two caches, two lanes — as two processes
// would; each case runs ROUNDS times (HERALD_CONCURRENCY_ROUNDS raises it for a soak).
//
// Invariants: every enabled matching subscriber gets exactly one row per event; a subscriber's
// revision counts every update that answered; one event per idempotency key; per-key sequence
// numbers unique and gap-free.
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { masterKeys, recordingEngine } from './helpers.js';

const ROUNDS = Number(process.env.HERALD_CONCURRENCY_ROUNDS ?? 10);
const WRITERS = 8;

let database: TestDatabase;
let secondClient: MongoClient;
let heralds: [Herald, Herald];
let collections: Collections;

beforeAll(async () => {
  database = await openTestDatabase('concurrency');
  secondClient = new MongoClient(database.uri);
  await secondClient.connect();
  const keys = masterKeys();
  const open = (db: typeof database.db) => createHerald({ mongo: { db }, masterKeys: keys, engineFactory: () => recordingEngine() });
  heralds = [await open(database.db), await open(secondClient.db(database.dbName))];
  collections = collectionsFor(database.db, 'herald_');
});

afterAll(async () => {
  await Promise.all(heralds.map((herald) => herald.close()));
  await secondClient.close();
  await database.close();
});

/** Alternates the two instances, so every round mixes them. */
const instance = (index: number): Herald => heralds[index % 2]!;

async function rowsOf(eventId: string): Promise<string[]> {
  const rows = await collections.queue.find({ eventId }, { projection: { subscriberHandle: 1 } }).toArray();
  return rows.map((row) => row.subscriberHandle).sort();
}

describe('matching under concurrent subscriber writes', () => {
  test(`${WRITERS} subscribers created at once all receive the next publish, from either instance (${ROUNDS} rounds)`, async () => {
    let short = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `create-${round}` };
      // A publish first, so both instances hold cached matches that the creates must invalidate.
      await Promise.all(heralds.map((herald) => herald.events.publish(scope, { eventType: 'invoice.paid', aggregateId: 'warm', data: {} })));
      const handles = Array.from({ length: WRITERS }, (_, index) => `sub-${index}`);
      await Promise.all(
        handles.map((id, index) =>
          instance(index).subscribers.create(scope, { id, displayName: id, targetUrl: `https://example.com/${id}`, events: index % 2 ? ['invoice.*'] : ['*.paid'] }),
        ),
      );
      for (const herald of heralds) {
        const { event } = await herald.events.publish(scope, { eventType: 'invoice.paid', aggregateId: `after-${round}`, data: {} });
        const rows = await rowsOf(event.eventId);
        if (rows.length !== WRITERS) short += 1;
        expect(rows, `round ${round}`).toEqual([...handles].sort());
      }
    }
    expect(short).toBe(0);
  });

  test(`enabling, disabling and re-filtering at once: the next publish matches exactly the stored subscribers (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `toggle-${round}` };
      const handles = Array.from({ length: WRITERS }, (_, index) => `sub-${index}`);
      await Promise.all(handles.map((id) => heralds[0].subscribers.create(scope, { id, displayName: id, targetUrl: `https://example.com/${id}`, events: ['invoice.paid'] })));
      await heralds[1].events.publish(scope, { eventType: 'invoice.paid', aggregateId: 'warm', data: {} });
      // Each subscriber gets two conflicting changes at once, from different instances.
      await Promise.all(
        handles.flatMap((id, index) => [
          instance(index).subscribers.update(scope, id, { enabled: index % 3 !== 0 }),
          instance(index + 1).subscribers.update(scope, id, { events: index % 2 ? ['invoice.*'] : ['other.thing'] }),
        ]),
      );
      const stored = await collections.subscribers.find({ orgId: scope.orgId }).toArray();
      const expected = stored
        .filter((document) => document.enabled && (document.events.includes('invoice.*') || document.events.includes('invoice.paid')))
        .map((document) => document.handle)
        .sort();
      for (const herald of heralds) {
        const { event } = await herald.events.publish(scope, { eventType: 'invoice.paid', aggregateId: `after-${round}`, data: {} });
        expect(await rowsOf(event.eventId), `round ${round}`).toEqual(expected);
      }
    }
  });
});

describe('subscriber updates', () => {
  test(`concurrent updates of one subscriber: none is lost — each that answered is one revision (${ROUNDS} rounds)`, async () => {
    let conflicts = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `update-${round}` };
      await heralds[0].subscribers.create(scope, { id: 'one', displayName: 'one', targetUrl: 'https://example.com/one', events: ['invoice.paid'] });
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, index) => instance(index).subscribers.update(scope, 'one', { displayName: `name-${index}` })),
      );
      const answered = results.filter((result) => result.status === 'fulfilled').length;
      const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as { code?: string }] : []));
      // A writer that kept losing the race is told so (409), never silently dropped.
      for (const error of refused) expect(error.code).toBe('CONFLICT');
      conflicts += refused.length;
      const stored = await collections.subscribers.findOne({ orgId: scope.orgId, handle: 'one' });
      expect(stored!.revision, `round ${round}`).toBe(answered);
      const names = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.displayName] : []));
      expect(names).toContain(stored!.displayName);
    }
    console.log(`concurrent updates: ${ROUNDS * WRITERS} sent, ${conflicts} answered 409 (retry)`);
  });
});

describe('listeners', () => {
  test(`a listener's renewal and a concurrent update both stay (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `listener-${round}` };
      const created = await heralds[0].subscribers.create(
        scope,
        { displayName: 'listen', targetUrl: 'https://example.com/listen', events: ['invoice.paid'] },
        { listener: { expiresAt: new Date(Date.now() + 1_000) } },
      );
      const renewedTo = new Date(Date.now() + 600_000);
      const [, renewed] = await Promise.all([
        heralds[1].subscribers.update(scope, created.id, { displayName: `renamed-${round}` }),
        heralds[0].subscribers.renewListener(scope, created.id, renewedTo),
      ]);
      expect(renewed).toBe(true);
      const stored = await collections.subscribers.findOne({ orgId: scope.orgId, handle: created.id });
      expect(stored).toMatchObject({ displayName: `renamed-${round}`, listener: { expiresAt: renewedTo }, revision: 2 });
    }
  });
});

describe('publishing', () => {
  test(`one event per idempotency key, however many publish it at once (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `idempotent-${round}` };
      await heralds[0].subscribers.create(scope, { id: 'one', displayName: 'one', targetUrl: 'https://example.com/one', events: ['invoice.paid'] });
      const results = await Promise.all(
        Array.from({ length: WRITERS }, (_, index) =>
          instance(index).events.publish(scope, { eventType: 'invoice.paid', aggregateId: 'a', data: { n: 1 } }, { idempotencyKey: `key-${round}` }),
        ),
      );
      expect(new Set(results.map((result) => result.event.eventId)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(await collections.events.countDocuments({ orgId: scope.orgId, aggregateId: 'a' })).toBe(1);
      expect(await rowsOf(results[0]!.event.eventId)).toEqual(['one']);
    }
  });

  test(`per-key sequence numbers are unique and gap-free across publishers (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { orgId: `sequence-${round}` };
      await heralds[0].subscribers.create(scope, { id: 'ordered', displayName: 'o', targetUrl: 'https://example.com/o', events: ['invoice.paid'], ordering: 'aggregate' });
      await Promise.all(
        Array.from({ length: WRITERS * 2 }, (_, index) => instance(index).events.publish(scope, { eventType: 'invoice.paid', aggregateId: `key-${index % 2}`, data: {} })),
      );
      const rows = await collections.queue.find({ orgId: scope.orgId }, { projection: { orderKey: 1, orderSeq: 1 } }).toArray();
      expect(rows).toHaveLength(WRITERS * 2);
      const byKey = new Map<string, number[]>();
      for (const row of rows) byKey.set(row.orderKey!, [...(byKey.get(row.orderKey!) ?? []), row.orderSeq!]);
      expect(byKey.size).toBe(2);
      for (const sequence of byKey.values()) expect(sequence.sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS }, (_, index) => index + 1));
    }
  });
});
