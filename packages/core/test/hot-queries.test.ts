// The hot queries of the read side (docs/ARCHITECTURE.md "Hot queries of the read side"): each is
// what the service really sends (captured on the wire), each is served by an index of the store
// that gives its order (MongoDB: no collection scan, no in-memory sort; judged from the shape and
// the indexes the store lists, so on every store), and on a store with `explain` its plan is read:
// FerretDB v1 must push the equality part down to PostgreSQL (`filterPushdown`) and, on the
// collections that grow with history, PostgreSQL must read it through an index; a MongoDB must
// scan the expected index with no SORT stage. mongo-java-server (memory-mongo) has no `explain`: the
// plan test is skipped there, saying so; the shape test runs. The engine's conditional writes to
// one row (a claim's, per-key ordering's release), its `done` read and the maintenance pass's lookups
// get the same plan check.
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHerald, type Herald, type Scope } from '../src/index.js';
import { eventListQuery } from '../src/events/list-query.js';
import { subscriberDeliveriesQueries } from '../src/subscribers/deliveries-query.js';
import { EVENT_LIST_ORDER, SUBSCRIBER_DELIVERIES_ORDER } from '../src/storage/indexes.js';
import { detectStoreCompat, storeCompat } from '../src/storage/compat.js';
import { claimKey, collectionsFor } from '../src/storage/collections.js';
import { DeliveryStore } from '../src/engine/store/index.js';
import { readDone, releaseRows } from '../src/ordering/sequences.js';
import { completeInterruptedFanOuts } from '../src/events/fan-out-recovery.js';
import { recountEvents } from '../src/model/event-counters.js';
import { silentLogger } from '../src/shared/logger.js';
import type { CoreContext } from '../src/context.js';
import type { DeliveryDocument, EventDocument } from '../src/storage/documents.js';
import { storeHasCommand, testMongoUri, uniqueDbName } from '../../../test/support/mongo.js';
import { recordingEngine } from './helpers.js';
import { servingIndexes, type IndexSpec } from './support/index-fit.js';

const org: Scope = { orgId: 'org-hot', actor: 'alice' };
let client: MongoClient;
let dbName: string;
let herald: Herald;
const started: CommandStartedEvent[] = [];

interface HotQuery {
  name: string;
  collection: string;
  filter: Document;
  sort: Record<string, number>;
  /** The index that must serve it. */
  index: string;
}

const position = { occurredAt: new Date(Date.UTC(2032, 0, 1)), id: 'evt-5' };
const attempted = { lastAttemptAt: new Date(Date.UTC(2032, 0, 2)), createdAt: new Date(Date.UTC(2032, 0, 1)), id: 'row-5' };
const neverAttempted = { lastAttemptAt: null, createdAt: new Date(Date.UTC(2032, 0, 1)), id: 'row-9' };

/** The read side's hot queries, as the services build them. */
const HOT: HotQuery[] = [
  { name: 'events: first page', collection: 'herald_events', ...eventListQuery(org.orgId, undefined), index: 'org_list_order' },
  { name: 'events: FAILED filter', collection: 'herald_events', ...eventListQuery(org.orgId, 'FAILED'), index: 'org_status_list_order' },
  { name: 'events: deep page by cursor', collection: 'herald_events', ...eventListQuery(org.orgId, undefined, position), index: 'org_list_order' },
  { name: 'events: FAILED, deep page by cursor', collection: 'herald_events', ...eventListQuery(org.orgId, 'FAILED', position), index: 'org_status_list_order' },
  { name: 'events: total', collection: 'herald_events', filter: { orgId: org.orgId }, sort: {}, index: 'org_list_order' },
  { name: 'events: FAILED total', collection: 'herald_events', filter: { orgId: org.orgId, status: 'FAILED' }, sort: {}, index: 'org_status_list_order' },
  { name: "a subscriber's deliveries: first page", collection: 'herald_deliveries', ...subscriberDeliveriesQueries('sub-1')[0]!, index: 'subscriber_recent_order' },
  ...subscriberDeliveriesQueries('sub-1', attempted).map((query, index) => ({
    name: `a subscriber's deliveries: by cursor, query ${index + 1} of 2`,
    collection: 'herald_deliveries',
    ...query,
    index: 'subscriber_recent_order',
  })),
  { name: "a subscriber's deliveries: by cursor, never attempted", collection: 'herald_deliveries', ...subscriberDeliveriesQueries('sub-1', neverAttempted)[0]!, index: 'subscriber_recent_order' },
  { name: 'subscribers: a page', collection: 'herald_subscribers', filter: { orgId: org.orgId }, sort: { createdAt: 1, handle: 1 }, index: 'org_list_order' },
  { name: "an event's rows (history)", collection: 'herald_deliveries', filter: { eventId: 'evt-1' }, sort: {}, index: 'event_subscriber' },
  { name: "an event's rows (queue)", collection: 'herald_delivery_queue', filter: { eventId: 'evt-1' }, sort: {}, index: 'event_subscriber_unique' },
  { name: 'an event by id (detail, the engine reading what it sends)', collection: 'herald_events', filter: { _id: 'evt-1' }, sort: {}, index: '_id_' },
  { name: 'a delivery row by id (settling it)', collection: 'herald_deliveries', filter: { _id: 'row-1' }, sort: {}, index: '_id_' },
];

/** The collections that grow with history: on FerretDB v1 their hot queries must be index scans in PostgreSQL. */
const HISTORY = new Set(['herald_events', 'herald_deliveries']);
const FILLER = 3_000;

beforeAll(async () => {
  client = new MongoClient(testMongoUri(), { monitorCommands: true });
  await client.connect();
  dbName = uniqueDbName('core_hot');
  herald = await createHerald({ mongo: { client, dbName }, engineFactory: () => recordingEngine() });
  await herald.subscribers.create(org, { id: 'hot', displayName: 'Hot', targetUrl: 'https://example.com/hot', events: ['doc.*'] });
  for (let index = 0; index < 5; index++) {
    await herald.events.publish(org, { eventType: 'doc.saved', aggregateId: `d${index}`, data: { index } });
  }
  // Another org's history, so that PostgreSQL's planner (which scans a tiny table whole, index or
  // not) has a table in which an index is the cheaper way to the queries' few rows.
  const db = client.db(dbName);
  const at = new Date(Date.UTC(2031, 0, 1));
  await db.collection<{ _id: string }>('herald_events').insertMany(
    Array.from({ length: FILLER }, (_, index) => ({ _id: `filler-${index}`, orgId: 'org-filler', status: 'ALL_DELIVERED', occurredAt: at, createdAt: at, eventType: 'doc.saved' })),
  );
  await db.collection<{ _id: string }>('herald_deliveries').insertMany(
    Array.from({ length: FILLER }, (_, index) => ({ _id: `filler-row-${index}`, eventId: `filler-${index}`, subscriberId: 'sub-filler', status: 'DELIVERED', createdAt: at, lastAttemptAt: at })),
  );
  client.on('commandStarted', (event) => started.push(event));
}, 60_000);

afterAll(async () => {
  await herald?.close();
  await client?.db(dbName).dropDatabase();
  await client?.close();
});

async function indexesOf(collection: string): Promise<IndexSpec[]> {
  return (await client.db(dbName).collection(collection).indexes()).map((index) => ({ name: index.name ?? '', key: index.key as Record<string, number> }));
}

/** The finds sent to `collection`, their sort as ordered pairs (the driver sends it as a Map). */
function findsOn(collection: string): Document[] {
  return started
    .filter((event) => event.commandName === 'find' && event.command.find === collection)
    .map((event) => ({ ...event.command, sort: [...((event.command.sort as Map<string, number> | undefined)?.entries() ?? [])] }));
}

describe('the services send the hot queries as declared', () => {
  test('the events list: first page, status filter, then by cursor', async () => {
    started.length = 0;
    const first = await herald.events.list(org, { limit: 2 });
    await herald.events.list(org, { limit: 2, status: 'FAILED' });
    await herald.events.list(org, { limit: 2, cursor: first.nextCursor! });
    const [firstFind, failedFind, cursorFind] = findsOn('herald_events');
    expect(firstFind).toMatchObject({ filter: eventListQuery(org.orgId, undefined).filter, sort: Object.entries(EVENT_LIST_ORDER) });
    expect(failedFind).toMatchObject({ filter: eventListQuery(org.orgId, 'FAILED').filter, sort: Object.entries(EVENT_LIST_ORDER) });
    const last = first.list.at(-1)!;
    expect(cursorFind).toMatchObject({
      filter: eventListQuery(org.orgId, undefined, { occurredAt: new Date(last.occurredAt), id: last.eventId }).filter,
      sort: Object.entries(EVENT_LIST_ORDER),
    });
    expect(cursorFind!.skip ?? 0).toBe(0); // a cursor page skips nothing
  });

  test("the list's delivery summaries: one $in (MongoDB), one equality per event (FerretDB v1, whose $in is not pushed down)", async () => {
    const info = await client.db(dbName).admin().command({ buildInfo: 1 });
    started.length = 0;
    const page = await herald.events.list(org, { limit: 2 });
    const ids = page.list.map((event) => event.eventId);
    expect(page.list.every((event) => event.deliveries.length === 1)).toBe(true);
    const filters = findsOn('herald_deliveries').map((command) => command.filter as Document);
    if (typeof info.ferretdbVersion === 'string') expect(filters.sort((a, b) => String(a.eventId).localeCompare(String(b.eventId)))).toEqual([...ids].sort().map((eventId) => ({ eventId })));
    else expect(filters).toEqual([{ eventId: { $in: ids } }]);
  });

  test("a subscriber's deliveries: the same shape in both row collections", async () => {
    started.length = 0;
    await herald.subscribers.deliveriesPage(org, 'hot');
    const internalId = (await client.db(dbName).collection('herald_subscribers').findOne({ handle: 'hot' }))!._id as unknown as string;
    for (const collection of ['herald_delivery_queue', 'herald_deliveries']) {
      expect(findsOn(collection).at(-1)).toMatchObject({ filter: subscriberDeliveriesQueries(internalId)[0]!.filter, sort: Object.entries(SUBSCRIBER_DELIVERIES_ORDER) });
    }
  });
});

describe('every hot query is served by an index that gives its order (MongoDB path)', () => {
  test.each(HOT.map((query) => [query.name, query] as const))('%s', async (_name, query) => {
    const serving = servingIndexes(query.filter, query.sort, await indexesOf(query.collection));
    expect(serving).toContain(query.index);
  });

  test('the judge refuses shapes no index serves (so a passing check means something)', async () => {
    const events = await indexesOf('herald_events');
    expect(servingIndexes({ orgId: 'o' }, { occurredAt: -1, eventType: 1 }, events)).toEqual([]);
    expect(servingIndexes({ eventType: 'x' }, { occurredAt: -1 }, events)).toEqual([]);
    expect(servingIndexes({ orgId: 'o', aggregateId: 'a' }, { occurredAt: -1 }, events)).toEqual([]);
    expect(servingIndexes({ orgId: 'o' }, { occurredAt: -1, _id: 1 }, events)).toEqual([]); // mixed directions
    // The index subscriber_recent had before: without _id it could not give the whole order.
    expect(servingIndexes({ subscriberId: 's' }, { lastAttemptAt: -1, createdAt: -1, _id: -1 }, [{ name: 'old', key: { subscriberId: 1, lastAttemptAt: -1, createdAt: -1 } }])).toEqual([]);
  });
});

describe('plans, where the store can show them', () => {
  test.for(HOT.map((query) => [query.name, query] as const))('%s', async ([, query], context) => {
    const db = client.db(dbName);
    context.skip(
      !(await storeHasCommand(db, { explain: { find: 'herald_events', filter: { _id: '' } }, verbosity: 'queryPlanner' })),
      'the store has no explain command (mongo-java-server lacks it), so its query plans cannot be asked',
    );
    const plan = await db.command({ explain: { find: query.collection, filter: query.filter, sort: query.sort, limit: 21 }, verbosity: 'queryPlanner' });
    if ('filterPushdown' in plan) {
      // FerretDB v1: the equalities run in PostgreSQL, through the GIN twin of the index
      // (scripts/store/postgresql-gin-twins.sql); ranges, `$or` and the sort run in Go.
      expect(plan.filterPushdown).toBe(true);
      const postgres = JSON.stringify(plan.queryPlanner);
      expect(postgres).toMatch(/@>/);
      if (HISTORY.has(query.collection)) {
        expect(postgres).toMatch(/"Index Name":"[^"]+_gin"/);
        expect(postgres).not.toMatch(/Seq Scan/);
      }
      return;
    }
    const winning = JSON.stringify(plan.queryPlanner?.winningPlan);
    expect(winning).toMatch(/IXSCAN/);
    expect(winning).toContain(query.index);
    expect(winning).not.toMatch(/"stage":"SORT"|COLLSCAN/);
  });
});

describe("a conditional write to one row is served by `_id` (the claim's)", () => {
  const due = new Date(Date.UTC(2032, 0, 3));

  beforeAll(async () => {
    // A burst: every row PENDING and due at the same instant, as one publish batch writes them.
    await client.db(dbName).collection<{ _id: string }>('herald_delivery_queue').insertMany(
      Array.from({ length: FILLER }, (_, index) => ({ _id: `burst-${index}`, eventId: `burst-event-${index}`, subscriberId: `sub-${index % 10}`, status: 'PENDING', attempts: 0, nextAttemptAt: due, createdAt: due })),
    );
  });

  test('the filter matches the row only in the expected state', async () => {
    const db = client.db(dbName);
    const compat = await detectStoreCompat(db);
    const queue = db.collection<DeliveryDocument>('herald_delivery_queue');
    const claim = (id: string, attempts: number) =>
      queue.updateOne(compat.byId<DeliveryDocument>(id, { status: 'PENDING', attempts, nextAttemptAt: due }), { $set: { status: 'IN_FLIGHT' } });
    expect((await claim('burst-1', 1)).modifiedCount).toBe(0); // another incarnation
    expect((await claim('burst-1', 0)).modifiedCount).toBe(1);
    expect((await claim('burst-1', 0)).modifiedCount).toBe(0); // no longer PENDING
    expect(await queue.countDocuments({ status: 'IN_FLIGHT' })).toBe(1);
  });

  test('PostgreSQL reads it by the `_id` index, not by an index on the state it expects (FerretDB v1)', async (context) => {
    const db = client.db(dbName);
    const compat = await detectStoreCompat(db);
    context.skip(compat.name !== 'ferretdb-v1', 'MongoDB plans an `_id` equality by the `_id` index whatever else the filter names');
    const filter = compat.byId<DeliveryDocument>('burst-7', { status: 'PENDING', attempts: 0, nextAttemptAt: due });
    const plan = await db.command({ explain: { find: 'herald_delivery_queue', filter }, verbosity: 'queryPlanner' });
    const postgres = JSON.stringify(plan.queryPlanner);
    expect(postgres).toMatch(/"Index Name":"[^"]*__id_[^"]*"/);
    expect(postgres).not.toMatch(/Seq Scan|"Index Name":"[^"]*(engine_due|subscriber_status|engine_lease)/);
  });
});

describe("a claim of a whole event is served by the event's index (FerretDB v1's path)", () => {
  const due = new Date(Date.UTC(2032, 0, 5));

  beforeAll(async () => {
    // Many events' rows due at one instant, as one publish batch writes them.
    await client.db(dbName).collection<{ _id: string }>('herald_delivery_queue').insertMany(
      Array.from({ length: FILLER }, (_, index) => ({ _id: `whole-${index}`, eventId: `whole-event-${Math.floor(index / 3)}`, subscriberId: `sub-${index % 3}`, status: 'PENDING', attempts: 0, nextAttemptAt: due, createdAt: due })),
    );
  });

  test('the filter takes the event\'s rows in the incarnation named, and no other row', async () => {
    const db = client.db(dbName);
    const compat = storeCompat('ferretdb-v1');
    const queue = db.collection<DeliveryDocument>('herald_delivery_queue');
    const claim = (eventId: string, attempts: number) =>
      queue.updateMany(compat.byKey<DeliveryDocument>({ eventId }, { status: 'PENDING', attempts, nextAttemptAt: due }), { $set: { status: 'IN_FLIGHT' } });
    expect((await claim('whole-event-4', 1)).modifiedCount).toBe(0); // another incarnation
    expect((await claim('whole-event-4', 0)).modifiedCount).toBe(3);
    expect((await claim('whole-event-4', 0)).modifiedCount).toBe(0); // no longer PENDING
    expect(await queue.countDocuments({ nextAttemptAt: due, status: 'IN_FLIGHT' })).toBe(3); // of this block's rows, only the event's
  });

  test('PostgreSQL reads it through `event_subscriber_unique`, not by the state it expects', async (context) => {
    const db = client.db(dbName);
    const compat = await detectStoreCompat(db);
    context.skip(compat.name !== 'ferretdb-v1', 'only FerretDB v1 claims by an event (on MongoDB a claim is one `$or` by `_id`); memory-mongo has no explain');
    const filter = compat.byKey<DeliveryDocument>({ eventId: 'whole-event-9' }, { status: 'PENDING', attempts: 0, nextAttemptAt: due });
    const plan = JSON.stringify((await db.command({ explain: { find: 'herald_delivery_queue', filter }, verbosity: 'queryPlanner' })).queryPlanner);
    expect(plan).toMatch(/"Index Name":"[^"]*event_subscriber_u[^"]*_gin"/); // PostgreSQL cuts long index names short
    expect(plan).not.toMatch(/Seq Scan|"Index Name":"[^"]*(engine_due|subscriber_status|engine_lease)/);
  });
});

describe("per-key ordering's release and `done` read are served by an index", () => {
  const now = new Date(Date.UTC(2032, 0, 4));
  const held = (orderKey: string, orderSeq: number) => ({ _id: `held-${orderKey}-${orderSeq}`, orderKey, orderSeq, eventId: `e-${orderKey}-${orderSeq}`, subscriberId: 'sub-ordered', status: 'PENDING', attempts: 0, nextAttemptAt: null, createdAt: now });
  const store = async () => {
    const db = client.db(dbName);
    return { collections: collectionsFor(db, 'herald_'), compat: await detectStoreCompat(db) };
  };

  beforeAll(async () => {
    const db = client.db(dbName);
    await new DeliveryStore(db, 'herald_', await detectStoreCompat(db)).ensureIndexes();
    // Many keys' held rows and markers, as a subscriber with many aggregates leaves them.
    await db.collection<{ _id: string }>('herald_delivery_queue').insertMany(Array.from({ length: FILLER }, (_, index) => held(`key-${index % 300}`, 2 + Math.floor(index / 300))));
    await db.collection<{ _id: string }>('herald_order_keys').insertMany(Array.from({ length: FILLER }, (_, index) => ({ _id: `done:key-${index}`, done: index })));
  });

  test('a release gives only the named held rows a due time, once; `done` is read per key', async () => {
    const { collections, compat } = await store();
    expect(await releaseRows({ collections, compat }, [{ orderKey: 'key-1', orderSeq: 2 }, { orderKey: 'key-2', orderSeq: 3 }, { orderKey: 'key-missing', orderSeq: 2 }], now)).toBe(2);
    expect(await releaseRows({ collections, compat }, [{ orderKey: 'key-1', orderSeq: 2 }], now)).toBe(0); // no longer held
    expect(await collections.queue.countDocuments({ nextAttemptAt: now })).toBe(2);
    expect(await readDone({ collections, compat }, ['key-7', 'key-2999', 'key-missing', 'key-7'])).toEqual(new Map([['key-7', 7], ['key-2999', 2999]]));
  });

  test('PostgreSQL reads a key\'s held row through `engine_order` and a key\'s `done` through `_id`, as sent (FerretDB v1)', async (context) => {
    const db = client.db(dbName);
    const { collections, compat } = await store();
    context.skip(compat.name !== 'ferretdb-v1', 'on MongoDB these are equalities on the leading keys of `engine_order` and `_id`; memory-mongo has no explain');
    const from = started.length;
    await releaseRows({ collections, compat }, [{ orderKey: 'key-5', orderSeq: 4 }], now);
    await readDone({ collections, compat }, ['key-5']);
    const sent = started.slice(from);
    const releases = sent.filter((event) => event.commandName === 'update' && event.command.update === 'herald_delivery_queue').flatMap((event) => (event.command.updates as { q: Document }[]).map((update) => update.q));
    const doneReads = sent.filter((event) => event.commandName === 'find' && event.command.find === 'herald_order_keys').map((event) => event.command.filter as Document);
    expect(releases.length).toBe(1);
    expect(doneReads.length).toBe(1);
    const plan = async (collection: string, filter: Document) => JSON.stringify((await db.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })).queryPlanner);
    const release = await plan('herald_delivery_queue', releases[0]!);
    expect(release).toMatch(/"Index Name":"[^"]*engine_order[^"]*_gin"/);
    expect(release).not.toMatch(/Seq Scan/);
    const done = await plan('herald_order_keys', doneReads[0]!);
    expect(done).toMatch(/"Index Name":"[^"]*__id_[^"]*"/);
    expect(done).not.toMatch(/Seq Scan/);
  });
});

describe("the maintenance pass looks claims and queued events up one by one where a `$in` decodes them all (FerretDB v1's path)", () => {
  const now = new Date(Date.UTC(2033, 0, 1));
  const staleMs = 60_000;
  const overdueAt = new Date(Date.UTC(2030, 0, 1));
  const row = (id: string) => ({ _id: id, eventId: `evt-${id}`, subscriberId: 'sub-maintained', status: 'PENDING', attempts: 1, nextAttemptAt: overdueAt, createdAt: overdueAt });
  const claim = (id: string, createdAt: Date) => ({ _id: claimKey({ _id: id, attempts: 1, nextAttemptAt: overdueAt }), deliveryId: id, owner: 'dead-worker', createdAt });
  // FerretDB v1's path on any store (the seam can be chosen by configuration), so the behaviour is checked on both.
  const engineStore = () => new DeliveryStore(client.db(dbName), 'herald_', storeCompat('ferretdb-v1'));

  beforeAll(async () => {
    const db = client.db(dbName);
    await db.collection<{ _id: string }>('herald_delivery_queue').insertMany([...['stranded-1', 'stranded-2', 'unclaimed', 'claimed-just-now'].map(row)]);
    await db.collection<{ _id: string }>('herald_delivery_claims').insertMany([
      claim('stranded-1', new Date(now.getTime() - 2 * staleMs)),
      claim('stranded-2', new Date(now.getTime() - 2 * staleMs)),
      claim('claimed-just-now', now),
      // A day of other rows' claims, which a `$in` would decode one by one.
      ...Array.from({ length: FILLER }, (_, index) => ({ _id: `other-${index}:0:0`, deliveryId: `other-${index}`, owner: 'w', createdAt: overdueAt })),
    ]);
  });

  test('a stranded claim is found by its incarnation and its row made due again, once; a fresh claim and an unclaimed row are left alone', async () => {
    const queue = client.db(dbName).collection<DeliveryDocument>('herald_delivery_queue');
    expect(await engineStore().recovery.recoverStrandedClaims(now, staleMs)).toBe(2);
    expect(await engineStore().recovery.recoverStrandedClaims(now, staleMs)).toBe(0); // a new incarnation: its claim is not taken
    const after = new Map((await queue.find({ subscriberId: 'sub-maintained' }).toArray()).map((stored) => [stored._id, stored.nextAttemptAt?.getTime()]));
    expect(after).toEqual(new Map([['stranded-1', now.getTime()], ['stranded-2', now.getTime()], ['unclaimed', overdueAt.getTime()], ['claimed-just-now', overdueAt.getTime()]]));
  });

  test('PostgreSQL reads each claim and each row it writes through `_id`, and an event\'s queued rows through `event_subscriber_unique` (FerretDB v1)', async (context) => {
    const db = client.db(dbName);
    context.skip((await detectStoreCompat(db)).name !== 'ferretdb-v1', 'on MongoDB these are one `$in` and one `$or` served by `_id`; memory-mongo has no explain');
    await db.collection<{ _id: string }>('herald_delivery_claims').insertOne(claim('unclaimed', new Date(now.getTime() - 2 * staleMs)));
    await db.collection<Pick<EventDocument, '_id' | 'orgId' | 'status' | 'updatedAt' | 'createdAt'>>('herald_events').insertOne({ _id: 'evt-unclaimed', orgId: 'org-maintained', status: 'DISPATCHED', updatedAt: overdueAt, createdAt: overdueAt });
    const from = started.length;
    expect(await engineStore().recovery.recoverStrandedClaims(now, staleMs)).toBe(1);
    await engineStore().recovery.reconcileEvents(now, staleMs, new Date(0));
    const sent = started.slice(from);
    const claimReads = sent.filter((event) => event.commandName === 'find' && event.command.find === 'herald_delivery_claims').map((event) => event.command.filter as Document);
    const rowWrites = sent.filter((event) => event.commandName === 'update' && event.command.update === 'herald_delivery_queue').flatMap((event) => (event.command.updates as { q: Document }[]).map((update) => update.q));
    const eventRowReads = sent.filter((event) => event.commandName === 'find' && event.command.find === 'herald_delivery_queue' && 'eventId' in (event.command.filter as Document)).map((event) => event.command.filter as Document);
    expect(claimReads.length).toBeGreaterThan(0);
    expect(rowWrites).toHaveLength(1);
    expect(eventRowReads.length).toBeGreaterThan(0);
    const plan = async (collection: string, filter: Document) => JSON.stringify((await db.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })).queryPlanner);
    for (const filter of claimReads) {
      expect(filter).not.toHaveProperty('_id.$in');
      expect(await plan('herald_delivery_claims', filter)).toMatch(/"Index Name":"[^"]*__id_[^"]*"/);
    }
    expect(await plan('herald_delivery_queue', rowWrites[0]!)).toMatch(/"Index Name":"[^"]*__id_[^"]*"/);
    for (const filter of eventRowReads) {
      expect(filter).not.toHaveProperty('eventId.$in');
      const read = await plan('herald_delivery_queue', filter);
      expect(read).toMatch(/"Index Name":"[^"]*event_subscriber_u[^"]*_gin"/); // PostgreSQL cuts long index names short
      expect(read).not.toMatch(/Seq Scan/);
    }
  });
});

describe("the maintenance's reads of open events and their rows are served by an index (FerretDB v1's path)", () => {
  test('the interrupted fan-outs pass and a recount read open events by status and rows by event, each an index scan', async (context) => {
    const db = client.db(dbName);
    const compat = await detectStoreCompat(db);
    context.skip(compat.name !== 'ferretdb-v1', 'on MongoDB each is one `$in`, served by `status_created` and `event_subscriber`; memory-mongo has no explain');
    const collections = collectionsFor(db, 'herald_');
    const from = started.length;
    // Only the reads are exercised: every open event here has all its rows, so no fan-out is completed
    // (which would need the rest of a context).
    const maintenance = { collections, compat, logger: silentLogger } as unknown as CoreContext;
    expect(await completeInterruptedFanOuts(maintenance, new Date(Date.now() + 60_000))).toBe(0);
    const open = await db.collection<EventDocument>('herald_events').find({ orgId: org.orgId }).toArray();
    await recountEvents(collections, compat, open.map((event) => event._id), new Date());
    const sent = started.slice(from).filter((event) => event.commandName === 'find');
    const reads = (collection: string) => sent.filter((event) => event.command.find === collection).map((event) => event.command.filter as Document);
    const eventReads = reads('herald_events');
    const rowReads = [...reads('herald_delivery_queue'), ...reads('herald_deliveries')];
    expect(eventReads.some((filter) => filter.status === 'PENDING') && eventReads.some((filter) => filter.status === 'DISPATCHED')).toBe(true);
    expect(rowReads.length).toBeGreaterThanOrEqual(2 * open.length);
    const plan = async (collection: string, filter: Document) => JSON.stringify((await db.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })).queryPlanner);
    for (const filter of eventReads) {
      expect(JSON.stringify(filter)).not.toContain('$in');
      expect(await plan('herald_events', filter)).not.toMatch(/Seq Scan/);
    }
    for (const filter of reads('herald_delivery_queue')) {
      expect(filter).toEqual({ eventId: expect.any(String) });
      expect(await plan('herald_delivery_queue', filter)).toMatch(/"Index Name":"[^"]*event_subscriber_u[^"]*_gin"/);
    }
    for (const filter of reads('herald_deliveries')) {
      expect(filter).toEqual({ eventId: expect.any(String) });
      const read = await plan('herald_deliveries', filter);
      expect(read).toMatch(/"Index Name":"[^"]*event_subscriber[^"]*_gin"/);
      expect(read).not.toMatch(/Seq Scan/);
    }
  });
});

describe("retention's step deletes an event's history rows, attempts and the event by equality where a `$in` decodes them all (FerretDB v1's path)", () => {
  const longAgo = new Date(Date.UTC(2001, 0, 1));
  const cutoff = new Date(Date.UTC(2002, 0, 1));
  const orgId = 'org-retained';
  // FerretDB v1's path on any store (the seam can be chosen by configuration), so the behaviour is checked on both.
  const engineStore = () => new DeliveryStore(client.db(dbName), 'herald_', storeCompat('ferretdb-v1'));
  const event = (id: string, status: EventDocument['status'], createdAt: Date) => ({ _id: id, orgId, status, eventType: 'doc.saved', occurredAt: createdAt, createdAt, updatedAt: createdAt });
  const children = (eventId: string) => ({ _id: `${eventId}-row`, eventId, subscriberId: 'sub-retained', status: 'DELIVERED', createdAt: longAgo });

  beforeAll(async () => {
    const db = client.db(dbName);
    const events = [event('old-1', 'ALL_DELIVERED', longAgo), event('old-2', 'FAILED', longAgo), event('old-open', 'DISPATCHED', longAgo), event('recent', 'ALL_DELIVERED', cutoff)];
    await db.collection<{ _id: string }>('herald_events').insertMany(events);
    await db.collection<{ _id: string }>('herald_deliveries').insertMany(events.map((stored) => children(stored._id)));
    await db.collection<{ _id: string }>('herald_delivery_attempts').insertMany(events.map((stored) => ({ ...children(stored._id), _id: `${stored._id}-row:1`, deliveryId: `${stored._id}-row`, startedAt: longAgo })));
  });

  test('only settled events older than the cutoff go, with their rows and attempts; what the store is sent names one event or one id per statement', async (context) => {
    const db = client.db(dbName);
    const from = started.length;
    expect(await engineStore().purging.purgeFinishedBefore(cutoff, 100, { orgId, eventType: 'doc.saved' })).toBe(2);
    expect(await engineStore().purging.purgeFinishedBefore(cutoff, 100, { orgId, eventType: 'doc.saved' })).toBe(0);
    const left = async (collection: string) => (await db.collection(collection).find({ eventId: { $in: ['old-1', 'old-2', 'old-open', 'recent'] } }).toArray()).map((stored) => stored.eventId as string).sort();
    expect((await db.collection<EventDocument>('herald_events').find({ orgId }).toArray()).map((stored) => stored._id).sort()).toEqual(['old-open', 'recent']);
    expect(await left('herald_deliveries')).toEqual(['old-open', 'recent']);
    expect(await left('herald_delivery_attempts')).toEqual(['old-open', 'recent']);

    const deletes = started.slice(from).filter((sent) => sent.commandName === 'delete');
    const filters = (collection: string) => deletes.filter((sent) => sent.command.delete === collection).flatMap((sent) => (sent.command.deletes as { q: Document }[]).map((statement) => statement.q));
    expect(filters('herald_delivery_queue')).toEqual([]); // a settled event has no queued rows (engine/store/purging.ts)
    for (const collection of ['herald_deliveries', 'herald_delivery_attempts']) {
      expect(filters(collection).map((filter) => filter.eventId).sort()).toEqual(['old-1', 'old-2']);
    }
    expect(filters('herald_events').map((filter) => filter._id).sort()).toEqual(['old-1', 'old-2']);

    context.skip((await detectStoreCompat(db)).name !== 'ferretdb-v1', 'on MongoDB each is one `$in`, served by the `eventId` indexes and `_id`; memory-mongo has no explain');
    const plan = async (collection: string, filter: Document) => JSON.stringify((await db.command({ explain: { find: collection, filter }, verbosity: 'queryPlanner' })).queryPlanner);
    const served = [
      ['herald_deliveries', /"Index Name":"[^"]*event_subscriber[^"]*_gin"/],
      ['herald_delivery_attempts', /"Index Name":"[^"]*_event_[^"]*_gin"/],
      // PostgreSQL may take `_id`'s twin or that of `created` ({createdAt, _id}): either serves the equality.
      ['herald_events', /"Index Cond":"\(\([^"]*_jsonb -> '_id'::text\) @>/],
    ] as const;
    for (const [collection, index] of served) {
      const read = await plan(collection, filters(collection)[0]!);
      expect(read).toMatch(index);
      expect(read).not.toMatch(/Seq Scan/);
    }
  });
});
