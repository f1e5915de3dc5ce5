// Herald's auto-disable write (subscribers/auto-disable.ts) against concurrent updates of the same
// subscriber, on the run's store: both changes survive, and a subscriber enabled again after its
// failures began is left enabled. Updates go through a second Herald on its own connection pool.
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHerald, type Herald } from '../src/index.js';
import type { CoreContext } from '../src/context.js';
import { silentLogger } from '../src/shared/logger.js';
import { collectionsFor } from '../src/storage/collections.js';
import { detectStoreCompat } from '../src/storage/compat.js';
import { autoDisableSubscriber } from '../src/subscribers/auto-disable.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { masterKeys, recordingEngine } from './helpers.js';

const ROUNDS = Number(process.env.HERALD_CONCURRENCY_ROUNDS ?? 10);
const scope = { orgId: 'acme', actor: 'alice' };
let database: TestDatabase;
let otherClient: MongoClient;
let herald: Herald;
let context: CoreContext;

beforeAll(async () => {
  database = await openTestDatabase('auto-disable-write');
  otherClient = new MongoClient(database.uri);
  await otherClient.connect();
  herald = await createHerald({ mongo: { db: otherClient.db(database.dbName) }, masterKeys: masterKeys(), engineFactory: () => recordingEngine() });
  // What autoDisableSubscriber reads of the context: the store, its seam, a logger, the background set.
  context = { collections: collectionsFor(database.db, 'herald_'), compat: await detectStoreCompat(database.db), logger: silentLogger, background: new Set() } as unknown as CoreContext;
});
afterAll(async () => {
  await herald?.close();
  await Promise.all(context?.background ?? []);
  await otherClient?.close();
  await database?.close();
});

const idOf = async (handle: string) => (await context.collections.subscribers.findOne({ handle }))!._id;

test('an auto-disable racing a rename: both survive, every round', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const handle = `racing-${round}`;
    await herald.subscribers.create(scope, { id: handle, displayName: 'before', targetUrl: 'https://example.com/hook', events: ['order.*'] });
    const subscriberId = await idOf(handle);
    const now = new Date();
    const [disabled] = await Promise.all([
      autoDisableSubscriber(context, { subscriberId, failingFrom: new Date(now.getTime() - 1_000), message: 'failing for days', now }),
      herald.subscribers.update(scope, handle, { displayName: 'after' }),
    ]);
    expect(disabled).toEqual({ orgId: 'acme', handle });
    const stored = await herald.subscribers.get(scope, handle);
    expect(stored).toMatchObject({ displayName: 'after', enabled: false, disabledReason: { code: 'AUTO_DISABLED', message: 'failing for days' } });
  }
});

test('nothing is written for a subscriber already disabled, or enabled again after its failures began', async () => {
  await herald.subscribers.create(scope, { id: 'by-hand', displayName: 'x', targetUrl: 'https://example.com/hook', enabled: false });
  const failingFrom = new Date(Date.now() - 60_000);
  expect(await autoDisableSubscriber(context, { subscriberId: await idOf('by-hand'), failingFrom, message: 'm', now: new Date() })).toBeUndefined();
  expect((await herald.subscribers.get(scope, 'by-hand')).disabledReason).toBeUndefined();

  await herald.subscribers.update(scope, 'by-hand', { enabled: true });
  expect(await autoDisableSubscriber(context, { subscriberId: await idOf('by-hand'), failingFrom, message: 'm', now: new Date() })).toBeUndefined();
  expect((await herald.subscribers.get(scope, 'by-hand')).enabled).toBe(true);
  // Failures that began after it was enabled again do count.
  const later = new Date(Date.now() + 1_000);
  expect(await autoDisableSubscriber(context, { subscriberId: await idOf('by-hand'), failingFrom: later, message: 'm', now: later })).toEqual({ orgId: 'acme', handle: 'by-hand' });
  expect(await autoDisableSubscriber(context, { subscriberId: 'gone', failingFrom, message: 'm', now: new Date() })).toBeUndefined();
});
