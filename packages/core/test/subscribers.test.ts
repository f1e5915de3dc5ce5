// herald.subscribers against a real MongoDB-wire server.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, ConflictError, NotFoundError, ValidationError, createHerald, type Scope } from '../src/index.js';
import { collectionsFor } from '../src/storage/collections.js';
import { openTestDatabase } from '../../../test/support/mongo.js';
import { openTestHerald, rawDatabaseText, type TestHerald } from './helpers.js';
import { expectMatchesSchema } from './schema-check.js';
import { schemas } from '../src/index.js';

let t: TestHerald;
const deletedPrincipals = new Set<string>();
const scope: Scope = { orgId: 'org-a', actor: 'alice' };
const valid = { displayName: 'Billing hook', targetUrl: 'https://hooks.example.com/billing' };

beforeAll(async () => {
  t = await openTestHerald('core_subscribers', {
    principals: { existing: async (ids) => new Set(ids.filter((id) => !deletedPrincipals.has(id))) },
  });
});
afterAll(async () => {
  await t.close();
});

async function subscriberCount(): Promise<number> {
  return t.database.db.collection('herald_subscribers').countDocuments();
}

async function expectValidationError(call: Promise<unknown>, field: string): Promise<ValidationError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  const validation = error as ValidationError;
  expect(validation.code).toBe('MISSING_REQUIRED_PARAMETER');
  expect(validation.errors.map((issue) => issue.field)).toContain(field);
  return validation;
}

describe('create', () => {
  test('returns the full resource with defaults, a generated lowercase UUID v4 handle, and no secret', async () => {
    const created = await t.herald.subscribers.create(scope, { ...valid, secret: 'a-very-long-shared-secret' });
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created).toMatchObject({
      orgId: 'org-a',
      displayName: 'Billing hook',
      targetUrl: 'https://hooks.example.com/billing',
      enabled: true,
      events: ['*'],
      timeoutMs: 5000,
      hasSecret: true,
      createdBy: 'alice',
      updatedBy: 'alice',
    });
    expect(Date.parse(created.createdAt)).not.toBeNaN();
    expect(created.updatedAt).toBe(created.createdAt);
    expect(JSON.stringify(created)).not.toContain('a-very-long-shared-secret');
    expect(await t.herald.subscribers.get(scope, created.id)).toEqual(created);
    expectMatchesSchema(schemas.WebhookSubscriberResponse, created);
  });

  test('keeps a given handle; a second create with the same handle is a 409 CONFLICT', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'dup-handle' });
    const before = await subscriberCount();
    await expect(t.herald.subscribers.create(scope, { ...valid, id: 'dup-handle' })).rejects.toBeInstanceOf(ConflictError);
    expect(await subscriberCount()).toBe(before);
    // The same handle in another org is fine: handles are unique per organization.
    const other = await t.herald.subscribers.create({ orgId: 'org-b' }, { ...valid, id: 'dup-handle' });
    expect(other).toMatchObject({ id: 'dup-handle', orgId: 'org-b', createdBy: 'system' });
  });

  const invalidInputs: Array<[string, unknown, string]> = [
    ['body not an object', 'nope', 'body'],
    ['missing displayName', { targetUrl: valid.targetUrl }, 'displayName'],
    ['missing targetUrl', { displayName: 'x' }, 'targetUrl'],
    ['empty displayName', { ...valid, displayName: '' }, 'displayName'],
    ['blank displayName', { ...valid, displayName: '   ' }, 'displayName'],
    ['displayName > 255', { ...valid, displayName: 'x'.repeat(256) }, 'displayName'],
    ['displayName not a string', { ...valid, displayName: 12 }, 'displayName'],
    ['targetUrl relative', { ...valid, targetUrl: '/hooks' }, 'targetUrl'],
    ['targetUrl ftp', { ...valid, targetUrl: 'ftp://example.com/x' }, 'targetUrl'],
    ['targetUrl with userinfo', { ...valid, targetUrl: 'https://user:pw@example.com/x' }, 'targetUrl'],
    ['targetUrl > 2048', { ...valid, targetUrl: `https://example.com/${'a'.repeat(2040)}` }, 'targetUrl'],
    ['id with a slash', { ...valid, id: 'a/b' }, 'id'],
    ['id starting with a dot', { ...valid, id: '.hidden' }, 'id'],
    ['id > 128', { ...valid, id: 'a'.repeat(129) }, 'id'],
    ['secret < 16', { ...valid, secret: 'short' }, 'secret'],
    ['secret > 512', { ...valid, secret: 's'.repeat(513) }, 'secret'],
    ['secret empty on create', { ...valid, secret: '' }, 'secret'],
    ['events not an array', { ...valid, events: 'apikey.*' }, 'events'],
    ['event pattern upper case', { ...valid, events: ['ApiKey.generated'] }, 'events[0]'],
    ['event pattern without dot', { ...valid, events: ['apikey.generated', 'apikey'] }, 'events[1]'],
    ['event pattern with inner wildcard', { ...valid, events: ['api*.generated'] }, 'events[0]'],
    ['event pattern three segments', { ...valid, events: ['a.b.c'] }, 'events[0]'],
    ['more than 100 events', { ...valid, events: Array.from({ length: 101 }, (_, i) => `f.a${i}`) }, 'events'],
    ['enabled not boolean', { ...valid, enabled: 'yes' }, 'enabled'],
    ['timeoutMs < 100', { ...valid, timeoutMs: 99 }, 'timeoutMs'],
    ['timeoutMs > 30000', { ...valid, timeoutMs: 30001 }, 'timeoutMs'],
    ['timeoutMs fractional', { ...valid, timeoutMs: 1000.5 }, 'timeoutMs'],
    ['unknown property', { ...valid, colour: 'red' }, 'colour'],
  ];
  test.each(invalidInputs)('rejects %s with a field detail and writes nothing', async (_name, input, field) => {
    const before = await subscriberCount();
    await expectValidationError(t.herald.subscribers.create(scope, input as never), field);
    expect(await subscriberCount()).toBe(before);
  });

  test('validation errors never echo a secret', async () => {
    const error = await expectValidationError(t.herald.subscribers.create(scope, { ...valid, secret: 'tooShortSecret' }), 'secret');
    expect(JSON.stringify({ message: error.message, errors: error.errors })).not.toContain('tooShortSecret');
  });

  test('concurrent creates of one handle: exactly one wins, the others are 409', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, index) => t.herald.subscribers.create(scope, { ...valid, id: 'race', displayName: `racer ${index}` })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results.filter((candidate) => candidate.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    }
    expect(await t.database.db.collection('herald_subscribers').countDocuments({ orgId: scope.orgId, handle: 'race' })).toBe(1);
  });

  test('accepts every pattern form and the boundaries', async () => {
    const created = await t.herald.subscribers.create(scope, {
      id: 'A1._-z',
      displayName: 'x'.repeat(255),
      targetUrl: 'http://127.0.0.1:8080/hook?x=1',
      events: ['apikey.generated', 'subscription.*', '*.deleted', '*'],
      secret: 's'.repeat(16),
      timeoutMs: 100,
      enabled: false,
    });
    expect(created).toMatchObject({ id: 'A1._-z', enabled: false, timeoutMs: 100, hasSecret: true });
    expect(created.events).toEqual(['apikey.generated', 'subscription.*', '*.deleted', '*']);
  });

  test('stores one spelling when embedded too: the URL as a URL parser writes it, each pattern once', async () => {
    const created = await t.herald.subscribers.create(scope, { id: 'spelling', displayName: 's', targetUrl: 'HTTPS://Example.COM:443/hooks', events: ['a.*', 'b.c', 'a.*'] });
    expect(created).toMatchObject({ targetUrl: 'https://example.com/hooks', events: ['a.*', 'b.c'] });
    const updated = await t.herald.subscribers.update(scope, 'spelling', { targetUrl: 'http://Example.com:80/x' });
    expect(updated.targetUrl).toBe('http://example.com/x');
    await expect(t.herald.subscribers.update(scope, 'spelling', { targetUrl: 'http://:@127.0.0.1:1/' })).rejects.toMatchObject({ errors: [{ field: 'targetUrl' }] });
  });
});

describe('get, list', () => {
  test('get of an unknown or impossible handle is ORG_NOT_FOUND', async () => {
    await expect(t.herald.subscribers.get(scope, 'missing')).rejects.toMatchObject({ code: 'ORG_NOT_FOUND' });
    await expect(t.herald.subscribers.get(scope, '../etc')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('lists by createdAt then handle, paginated with total, without updatedBy', async () => {
    const orgScope: Scope = { orgId: 'org-list', actor: 'bob' };
    for (const id of ['c', 'a', 'b']) await t.herald.subscribers.create(orgScope, { ...valid, id });
    const page = await t.herald.subscribers.list(orgScope, { limit: 2, offset: 0 });
    expect(page.pagination).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(page.count).toBe(2);
    expect(page.list.map((item) => item.id)).toEqual(['c', 'a']);
    expect(page.list[0]).not.toHaveProperty('updatedBy');
    expect(page.list[0]).toHaveProperty('createdBy', 'bob');
    const rest = await t.herald.subscribers.list(orgScope, { limit: 2, offset: 2 });
    expect(rest.list.map((item) => item.id)).toEqual(['b']);
    expectMatchesSchema(schemas.WebhookSubscriberList, page);
    const defaults = await t.herald.subscribers.list(orgScope);
    expect(defaults.pagination).toEqual({ total: 3, limit: 20, offset: 0 });
  });

  test('ties on createdAt are ordered by handle', async () => {
    const fixed = new Date('2030-01-01T00:00:00.000Z');
    const tied = await openTestHerald('core_subscribers_tie', { now: () => fixed });
    try {
      for (const id of ['zeta', 'alpha', 'mid']) await tied.herald.subscribers.create(scope, { ...valid, id });
      const page = await tied.herald.subscribers.list(scope);
      expect(page.list.map((item) => item.id)).toEqual(['alpha', 'mid', 'zeta']);
    } finally {
      await tied.close();
    }
  });

  test.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ offset: -1 }, 'offset'],
  ])('rejects list query %j', async (query, field) => {
    await expectValidationError(t.herald.subscribers.list(scope, query), field);
  });

  test('createdBy/updatedBy show deleted_user once the principal no longer exists', async () => {
    await t.herald.subscribers.create({ orgId: 'org-people', actor: 'carol' }, { ...valid, id: 'by-carol' });
    await t.herald.subscribers.update({ orgId: 'org-people', actor: 'dave' }, 'by-carol', { displayName: 'Renamed' });
    deletedPrincipals.add('carol');
    const single = await t.herald.subscribers.get({ orgId: 'org-people' }, 'by-carol');
    expect(single).toMatchObject({ createdBy: 'deleted_user', updatedBy: 'dave' });
    const listed = await t.herald.subscribers.list({ orgId: 'org-people' });
    expect(listed.list[0]?.createdBy).toBe('deleted_user');
    deletedPrincipals.delete('carol');
  });
});

describe('update', () => {
  test('changes only supplied fields; PUT without enabled leaves a disabled subscriber disabled', async () => {
    const created = await t.herald.subscribers.create(scope, {
      ...valid,
      id: 'partial',
      enabled: false,
      events: ['apikey.*'],
      timeoutMs: 2000,
      secret: 'first-secret-0123456789',
    });
    const updated = await t.herald.subscribers.update({ ...scope, actor: 'erin' }, 'partial', { displayName: 'New name' });
    expect(updated).toMatchObject({
      id: 'partial',
      displayName: 'New name',
      enabled: false,
      events: ['apikey.*'],
      timeoutMs: 2000,
      hasSecret: true,
      targetUrl: valid.targetUrl,
      createdBy: 'alice',
      updatedBy: 'erin',
      createdAt: created.createdAt,
    });
    const empty = await t.herald.subscribers.update(scope, 'partial', {});
    expect(empty).toMatchObject({ enabled: false, displayName: 'New name', hasSecret: true });
  });

  test('secret "" removes the secret; a new secret keeps the old one for the rotation overlap', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'rotating', secret: 'old-secret-0123456789' });
    const collections = collectionsFor(t.database.db, 'herald_');
    const original = await collections.subscribers.findOne({ orgId: scope.orgId, handle: 'rotating' });
    await t.herald.subscribers.update(scope, 'rotating', { secret: 'new-secret-0123456789' });
    const rotated = await collections.subscribers.findOne({ orgId: scope.orgId, handle: 'rotating' });
    expect(rotated?.previousSecrets).toHaveLength(1);
    expect(rotated?.previousSecrets?.[0]?.secret).toEqual(original?.secret);
    const overlap = rotated!.previousSecrets![0]!.expiresAt.getTime() - rotated!.updatedAt.getTime();
    expect(overlap).toBe(24 * 60 * 60 * 1000);
    expect(t.engine.deps?.openSecret(rotated!.secret!)).toBe('new-secret-0123456789');

    const removed = await t.herald.subscribers.update(scope, 'rotating', { secret: '' });
    expect(removed.hasSecret).toBe(false);
    const stored = await collections.subscribers.findOne({ orgId: scope.orgId, handle: 'rotating' });
    expect(stored?.secret).toBeUndefined();
    expect(stored?.previousSecrets).toBeUndefined();
  });

  test('a new id renames; renaming into a taken handle is 409 and changes nothing', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'old-name' });
    await t.herald.subscribers.create(scope, { ...valid, id: 'taken' });
    const renamed = await t.herald.subscribers.update(scope, 'old-name', { id: 'new-name' });
    expect(renamed.id).toBe('new-name');
    await expect(t.herald.subscribers.get(scope, 'old-name')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.herald.subscribers.update(scope, 'new-name', { id: 'taken', displayName: 'clash' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect((await t.herald.subscribers.get(scope, 'new-name')).displayName).toBe(valid.displayName);
  });

  test('concurrent updates of different fields do not lose each other', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'contended' });
    const results = await Promise.allSettled([
      t.herald.subscribers.update(scope, 'contended', { events: ['x.*'] }),
      t.herald.subscribers.update(scope, 'contended', { timeoutMs: 1234 }),
      t.herald.subscribers.update(scope, 'contended', { displayName: 'Contended' }),
    ]);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConflictError);
    }
    const final = await t.herald.subscribers.get(scope, 'contended');
    const [events, timeout, name] = results.map((result) => result.status === 'fulfilled');
    if (events) expect(final.events).toEqual(['x.*']);
    if (timeout) expect(final.timeoutMs).toBe(1234);
    if (name) expect(final.displayName).toBe('Contended');
    expect(results.some((result) => result.status === 'fulfilled')).toBe(true);
  });

  test('invalid patches are rejected with field details and change nothing', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'guarded' });
    await expectValidationError(t.herald.subscribers.update(scope, 'guarded', { secret: 'short' }), 'secret');
    await expectValidationError(t.herald.subscribers.update(scope, 'guarded', { events: ['nope'] }), 'events[0]');
    await expectValidationError(t.herald.subscribers.update(scope, 'guarded', { extra: 1 } as never), 'extra');
    await expectValidationError(t.herald.subscribers.update(scope, 'guarded', { displayName: '' }), 'displayName');
    expect((await t.herald.subscribers.get(scope, 'guarded')).displayName).toBe(valid.displayName);
  });

  test('update or delete of an unknown handle is ORG_NOT_FOUND', async () => {
    await expect(t.herald.subscribers.update(scope, 'ghost', { displayName: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.herald.subscribers.delete(scope, 'ghost')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.herald.subscribers.deliveries(scope, 'ghost')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('handle lookups', () => {
  test('go through the handle index by _id, and survive a missing or stale entry', async () => {
    const collections = collectionsFor(t.database.db, 'herald_');
    const created = await t.herald.subscribers.create(scope, { ...valid, id: 'indexed' });
    const entry = await collections.handles.findOne({ orgId: scope.orgId, handle: 'indexed' });
    expect(entry?._id).toBe('org-a|indexed');
    // Missing entry (e.g. a crash before it was written): found anyway, and the entry is repaired.
    await collections.handles.deleteOne({ _id: entry!._id });
    expect((await t.herald.subscribers.get(scope, 'indexed')).id).toBe(created.id);
    expect(await collections.handles.countDocuments({ _id: entry!._id })).toBe(1);
    // Stale entry pointing at another subscriber: verified, not trusted.
    const other = await t.herald.subscribers.create(scope, { ...valid, id: 'other-indexed' });
    const otherId = (await collections.handles.findOne({ _id: 'org-a|other-indexed' }))!.subscriberId;
    await collections.handles.updateOne({ _id: entry!._id }, { $set: { subscriberId: otherId } });
    expect((await t.herald.subscribers.get(scope, 'indexed')).id).toBe('indexed');
    expect(other.id).toBe('other-indexed');
    // A dangling entry for a handle nobody has is not found, and is dropped.
    await collections.handles.insertOne({ _id: 'org-a|ghost-entry', orgId: 'org-a', handle: 'ghost-entry', subscriberId: 'nope' });
    await expect(t.herald.subscribers.get(scope, 'ghost-entry')).rejects.toBeInstanceOf(NotFoundError);
    expect(await collections.handles.countDocuments({ _id: 'org-a|ghost-entry' })).toBe(0);
  });

  test('rename and delete keep the handle index in step', async () => {
    const collections = collectionsFor(t.database.db, 'herald_');
    await t.herald.subscribers.create(scope, { ...valid, id: 'before-rename' });
    await t.herald.subscribers.update(scope, 'before-rename', { id: 'after-rename' });
    expect(await collections.handles.countDocuments({ _id: 'org-a|before-rename' })).toBe(0);
    expect(await collections.handles.countDocuments({ _id: 'org-a|after-rename' })).toBe(1);
    await t.herald.subscribers.delete(scope, 'after-rename');
    expect(await collections.handles.countDocuments({ _id: 'org-a|after-rename' })).toBe(0);
  });
});

describe('delete', () => {
  test('removes the subscriber', async () => {
    await t.herald.subscribers.create(scope, { ...valid, id: 'doomed' });
    await t.herald.subscribers.delete(scope, 'doomed');
    await expect(t.herald.subscribers.get(scope, 'doomed')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('secrets at rest', () => {
  test('no raw document contains a plaintext secret', async () => {
    const secrets = ['plaintext-secret-one-1234', 'plaintext-secret-two-5678'];
    await t.herald.subscribers.create(scope, { ...valid, id: 'scan-1', secret: secrets[0] });
    await t.herald.subscribers.update(scope, 'scan-1', { secret: secrets[1] });
    const text = await rawDatabaseText(t.database);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('"keyId":"k1"');
  });

  test('without a master key, storing a secret is a ConfigError and nothing is written', async () => {
    const database = await openTestDatabase('core_no_master_key');
    const herald = await createHerald({ mongo: { db: database.db } });
    try {
      await expect(herald.subscribers.create(scope, { ...valid, secret: 'would-be-plaintext-123' })).rejects.toBeInstanceOf(ConfigError);
      await expect(herald.subscribers.create(scope, { ...valid, secret: 'would-be-plaintext-123' })).rejects.toThrow(/master key/);
      expect(await database.db.collection('herald_subscribers').countDocuments()).toBe(0);
      // Without a secret everything works.
      expect((await herald.subscribers.create(scope, valid)).hasSecret).toBe(false);
      expect(await rawDatabaseText({ ...database })).not.toContain('would-be-plaintext-123');
    } finally {
      await herald.close();
      await database.close();
    }
  });
});

describe('lifecycle', () => {
  test('refuses to start over stored secrets it cannot open', async () => {
    const database = await openTestDatabase('core_unreadable');
    try {
      const first = await createHerald({ mongo: { db: database.db }, masterKeys: { current: 'old', keys: { old: Buffer.alloc(32, 1) } } });
      await first.subscribers.create(scope, { ...valid, secret: 'sealed-under-old-key-1' });
      await first.close();
      await expect(createHerald({ mongo: { db: database.db } })).rejects.toThrow(/no master key is configured/);
      await expect(
        createHerald({ mongo: { db: database.db }, masterKeys: { current: 'new', keys: { new: Buffer.alloc(32, 2) } } }),
      ).rejects.toThrow(/master key "old"/);
      const rotated = await createHerald({
        mongo: { db: database.db },
        masterKeys: { current: 'new', keys: { new: Buffer.alloc(32, 2), old: Buffer.alloc(32, 1) } },
      });
      expect((await rotated.subscribers.get(scope, (await rotated.subscribers.list(scope)).list[0]!.id)).hasSecret).toBe(true);
      await rotated.close();
    } finally {
      await database.close();
    }
  });

  test('health pings MongoDB and reports the engine; start/stop delegate to the engine', async () => {
    expect(await t.herald.health()).toEqual({ mongo: true, engine: 'stopped' });
    await t.herald.start();
    expect(await t.herald.health()).toEqual({ mongo: true, engine: 'running' });
    await t.herald.stop();
    expect(t.engine.running).toBe(false);
  });

  test('collections carry the configured prefix; indexes are created idempotently', async () => {
    const database = await openTestDatabase('core_prefix');
    try {
      const first = await createHerald({ mongo: { db: database.db }, collectionPrefix: 'custom_' });
      await first.subscribers.create(scope, valid);
      await first.close();
      const second = await createHerald({ mongo: { db: database.db }, collectionPrefix: 'custom_' });
      await second.close();
      const names = (await database.db.listCollections().toArray()).map((info) => info.name);
      expect(names).toContain('custom_subscribers');
      expect(names.filter((name) => name.startsWith('herald_'))).toEqual([]);
      const indexes = await database.db.collection('custom_subscribers').indexes();
      expect(indexes.find((index) => index.name === 'org_handle_unique')).toMatchObject({ unique: true, key: { orgId: 1, handle: 1 } });
      const deliveryIndexes = await database.db.collection('custom_delivery_queue').indexes();
      expect(deliveryIndexes.find((index) => index.name === 'event_subscriber_unique')).toMatchObject({ unique: true });
    } finally {
      await database.close();
    }
  });

  test('close() closes a client Herald opened itself, and not one it was given', async () => {
    const database = await openTestDatabase('core_close');
    try {
      const own = await createHerald({ mongo: { uri: database.uri, dbName: database.dbName } });
      expect((await own.health()).mongo).toBe(true);
      await own.close();
      expect((await own.health()).mongo).toBe(false);
      const borrowed = await createHerald({ mongo: { client: database.client, dbName: database.dbName } });
      await borrowed.close();
      expect(await database.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    } finally {
      await database.close();
    }
  });
});
