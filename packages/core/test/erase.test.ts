// herald.events.erase: the right to erasure, against a real MongoDB-wire server.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConflictError, NotFoundError, type Scope } from '../src/index.js';
import { attemptDocument } from '../src/engine/attempt.js';
import { resolveConfig } from '../src/engine/config.js';
import { createMaintenance } from '../src/engine/jobs.js';
import { DeliveryStore } from '../src/engine/store/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { collectionsFor, type Collections } from '../src/storage/collections.js';
import { detectStoreCompat } from '../src/storage/compat.js';
import { openTestHerald, type TestHerald } from './helpers.js';

let t: TestHerald;
let collections: Collections;
const org: Scope = { orgId: 'org-erase', actor: 'alice' };

beforeAll(async () => {
  t = await openTestHerald('core_erase');
  collections = collectionsFor(t.database.db, 'herald_');
  for (const id of ['a', 'b']) await t.herald.subscribers.create(org, { id, displayName: id, targetUrl: `https://example.com/${id}`, events: ['order.*'] });
});
afterAll(async () => {
  await t.close();
});

async function publish(aggregateId: string): Promise<string> {
  return (await t.herald.events.publish(org, { eventType: 'order.created', aggregateId, data: { email: 'someone@example.com' } })).event.eventId;
}

/** Everything stored under the event id, by collection. */
async function leftOf(eventId: string) {
  const [event, queued, settled, attempts] = await Promise.all([
    collections.events.countDocuments({ _id: eventId }),
    collections.queue.countDocuments({ eventId }),
    collections.deliveries.countDocuments({ eventId }),
    collections.attempts.countDocuments({ eventId }),
  ]);
  return { event, queued, settled, attempts };
}

/** Settles the event's rows as the engine would (history row, one attempt each, out of the queue). */
async function settle(eventId: string): Promise<void> {
  const rows = await collections.queue.find({ eventId }).toArray();
  const now = new Date();
  await collections.deliveries.insertMany(rows.map((row) => ({ ...row, status: 'DELIVERED' as const, leaseOwner: null, leaseUntil: null })));
  await collections.attempts.insertMany(
    rows.map((row) => ({ _id: `${row._id}:1`, deliveryId: row._id, eventId, subscriberId: row.subscriberId, orgId: row.orgId, attempt: 1, startedAt: now, durationMs: 3, httpStatus: 200 }) as never),
  );
  await collections.queue.deleteMany({ eventId });
  await collections.events.updateOne({ _id: eventId }, { $set: { status: 'ALL_DELIVERED', openDeliveries: 0 } });
}

/** The engine's store and its maintenance jobs on the test database, as an engine would run them. */
async function engineParts(owner: string) {
  const store = new DeliveryStore(t.database.db, 'herald_', await detectStoreCompat(t.database.db));
  const maintenance = createMaintenance({ db: t.database.db, prefix: 'herald_', owner, store, config: resolveConfig({}), logger: silentLogger, onRecovered: () => undefined });
  return { store, maintenance };
}

describe('erasing an event', () => {
  test('a settled event goes with its rows and attempts; other events stay', async () => {
    const [erased, kept] = [await publish('o1'), await publish('o2')];
    await settle(erased);
    await settle(kept);
    expect(await leftOf(erased)).toEqual({ event: 1, queued: 0, settled: 2, attempts: 2 });
    expect(await t.herald.events.erase(org, erased)).toEqual({ eventId: erased, cancelledDeliveries: 0, deliveries: 2, attempts: 2 });
    expect(await leftOf(erased)).toEqual({ event: 0, queued: 0, settled: 0, attempts: 0 });
    expect(await leftOf(kept)).toEqual({ event: 1, queued: 0, settled: 2, attempts: 2 });
    await expect(t.herald.events.get(org, erased)).rejects.toBeInstanceOf(NotFoundError);
    // Nothing left: a second erase is a 404.
    await expect(t.herald.events.erase(org, erased)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('is refused while deliveries are pending, and force removes them so they are never sent', async () => {
    const eventId = await publish('o3');
    const refused = await t.herald.events.erase(org, eventId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toContain('2 deliveries pending');
    expect(await leftOf(eventId)).toEqual({ event: 1, queued: 2, settled: 0, attempts: 0 });
    expect(await t.herald.events.erase(org, eventId, { force: true })).toMatchObject({ cancelledDeliveries: 2 });
    expect(await leftOf(eventId)).toEqual({ event: 0, queued: 0, settled: 0, attempts: 0 });
  });

  test('what an attempt on the wire writes after its event was erased is removed once no attempt can still be running', async () => {
    const eventId = await publish('o5');
    const { store, maintenance } = await engineParts('erase-test');
    // An engine has claimed one row and is sending it.
    const [claimed] = await collections.queue.find({ eventId }).limit(1).toArray();
    const lease = { status: 'IN_FLIGHT' as const, leaseOwner: 'engine/late', leaseUntil: new Date(Date.now() + 60_000), updatedAt: new Date() };
    await collections.queue.updateOne({ _id: claimed!._id }, { $set: lease });
    expect(await t.herald.events.erase(org, eventId, { force: true })).toMatchObject({ cancelledDeliveries: 2 });
    const note = await collections.engineState.findOne({ eventId });
    expect(note).toMatchObject({ orgId: org.orgId });

    // The attempt ends after the erase, and the engine records its outcome as it would any other.
    const row = { ...claimed!, ...lease };
    const attempt = attemptDocument(row, { attempt: 1, startedAt: new Date(), durationMs: 12, httpStatus: 200, errorClass: null, errorMessage: null, responseBodySnippet: '{"customer":"someone@example.com"}' });
    await store.outcomes.writeOutcomes([{ row, fields: { status: 'DELIVERED', attempts: 1, deliveredAt: new Date() }, attempt }], new Date());
    expect(await leftOf(eventId)).toEqual({ event: 0, queued: 0, settled: 1, attempts: 1 });

    // While an attempt of the event could still be running, its writes are left for later.
    await maintenance.recoverLeases();
    expect(await leftOf(eventId)).toEqual({ event: 0, queued: 0, settled: 1, attempts: 1 });
    // Past the longest lease (the attempt timeout's maximum and the lease margin), they go, and so does the note.
    await collections.engineState.updateOne({ _id: note!._id }, { $set: { createdAt: new Date(Date.now() - 10 * 60_000) } });
    await maintenance.recoverLeases();
    expect(await leftOf(eventId)).toEqual({ event: 0, queued: 0, settled: 0, attempts: 0 });
    expect(await collections.engineState.findOne({ _id: note!._id })).toBeNull();
    await expect(t.herald.events.erase(org, eventId)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a note whose erase did not complete (the event is still stored) is dropped, and the event keeps its rows', async () => {
    const eventId = await publish('o7');
    await settle(eventId);
    const { maintenance } = await engineParts('erase-test-2');
    await collections.engineState.insertOne({ _id: `erased:${eventId}`, eventId, orgId: org.orgId, createdAt: new Date(Date.now() - 10 * 60_000) });
    await maintenance.recoverLeases();
    expect(await leftOf(eventId)).toEqual({ event: 1, queued: 0, settled: 2, attempts: 2 });
    expect(await collections.engineState.findOne({ eventId })).toBeNull();
  });

  test('an erase that removes no row in flight leaves no note', async () => {
    const eventId = await publish('o6');
    await t.herald.events.erase(org, eventId, { force: true });
    expect(await collections.engineState.findOne({ eventId })).toBeNull();
  });

  test("another organization's event is not found and stays", async () => {
    const eventId = await publish('o4');
    await expect(t.herald.events.erase({ orgId: 'org-other' }, eventId, { force: true })).rejects.toBeInstanceOf(NotFoundError);
    expect((await leftOf(eventId)).event).toBe(1);
    await expect(t.herald.events.erase(org, 'no-such-event')).rejects.toBeInstanceOf(NotFoundError);
  });
});
