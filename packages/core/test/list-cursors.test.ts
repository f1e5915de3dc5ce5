// Keyset pagination of the events list: a cursor walks the same items in the same order as offsets
// do, ties of one instant included, with and without a status filter; bad cursors are refused.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { schemas, ValidationError, type Scope } from '../src/index.js';
import { collectionsFor } from '../src/storage/collections.js';
import { encodeCursor } from '../src/validation/cursor.js';
import { expectMatchesSchema } from './schema-check.js';
import { openTestHerald, type TestHerald } from './helpers.js';
import type { DeliveryDocument } from '../src/storage/documents.js';

let t: TestHerald;
const org: Scope = { orgId: 'org-cursors', actor: 'alice' };
const other: Scope = { orgId: 'org-cursors-other', actor: 'bob' };
const EVENTS = 23;

beforeAll(async () => {
  t = await openTestHerald('core_cursors');
  // Three events share each instant, so pages must break ties by id exactly as the order does.
  for (let index = 0; index < EVENTS; index++) {
    await t.herald.events.publish(org, {
      eventType: 'doc.saved',
      aggregateId: `d${index}`,
      data: { index },
      occurredAt: new Date(Date.UTC(2030, 0, 1, 0, 0, Math.floor(index / 3))).toISOString(),
    });
  }
  await t.herald.events.publish(other, { eventType: 'doc.saved', aggregateId: 'x', data: {} });
  // A few FAILED ones, for the status filter (the store's status, as the engine would leave it).
  const events = collectionsFor(t.database.db, 'herald_').events;
  const ids = (await t.herald.events.list(org, { limit: 100 })).list.map((event) => event.eventId);
  await events.updateMany({ _id: { $in: ids.filter((_, index) => index % 4 === 1) } }, { $set: { status: 'FAILED' } });
}, 120_000);

afterAll(async () => {
  await t.close();
});

async function walk(query: { status?: 'FAILED'; limit: number }) {
  const ids: string[] = [];
  const offsets: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await t.herald.events.list(org, { ...query, ...(cursor ? { cursor } : {}) });
    expectMatchesSchema(schemas.WebhookEventList, page);
    ids.push(...page.list.map((event) => event.eventId));
    offsets.push(page.pagination.offset);
    cursor = page.nextCursor;
    if (!cursor) return { ids, offsets };
  }
  throw new Error('the cursor never ended');
}

async function byOffsets(query: { status?: 'FAILED'; limit: number }) {
  const ids: string[] = [];
  for (let offset = 0; ; offset += query.limit) {
    const page = await t.herald.events.list(org, { ...query, offset });
    ids.push(...page.list.map((event) => event.eventId));
    if (page.list.length < query.limit) return ids;
  }
}

describe('events list by cursor', () => {
  test('walks every event once, in the offset order, each page knowing its offset', async () => {
    const expected = await byOffsets({ limit: 5 });
    expect(expected).toHaveLength(EVENTS);
    const walked = await walk({ limit: 5 });
    expect(walked.ids).toEqual(expected);
    expect(walked.offsets).toEqual([0, 5, 10, 15, 20]);
    // Other page sizes land on the same sequence (ties of an instant cut at every place).
    for (const limit of [1, 2, 3, 4, 7]) expect((await walk({ limit })).ids).toEqual(expected);
  });

  test('with a status filter, and the last page has no nextCursor', async () => {
    const expected = await byOffsets({ status: 'FAILED', limit: 2 });
    expect(expected.length).toBeGreaterThan(2);
    expect((await walk({ status: 'FAILED', limit: 2 })).ids).toEqual(expected);
    const all = await t.herald.events.list(org, { status: 'FAILED', limit: 100 });
    expect(all.nextCursor).toBeUndefined();
    expect(all.pagination.total).toBe(expected.length);
  });

  test('an offset page hands out a cursor to go on from', async () => {
    const page = await t.herald.events.list(org, { limit: 4, offset: 8 });
    const next = await t.herald.events.list(org, { limit: 4, cursor: page.nextCursor! });
    expect(next.pagination.offset).toBe(12);
    expect(next.list.map((event) => event.eventId)).toEqual((await t.herald.events.list(org, { limit: 4, offset: 12 })).list.map((event) => event.eventId));
  });

  test('bad cursors are a ValidationError on `cursor`; with an offset, on `offset`', async () => {
    const good = (await t.herald.events.list(org, { limit: 2 })).nextCursor!;
    const refusal = async (scope: Scope, query: Record<string, unknown>) => {
      const error = await t.herald.events.list(scope, query as never).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    };
    expect(await refusal(org, { cursor: good, offset: 0 })).toEqual([{ field: 'offset', message: expect.stringContaining('cannot be combined with cursor') }]);
    for (const garbage of ['garbage', '', 'a.b', '....', 'x'.repeat(600), 42, '%%.%%']) {
      expect(await refusal(org, { cursor: garbage })).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    }
    // Altered: one character of the position changed, or the digest of another text.
    const [body, mac] = good.split('.') as [string, string];
    const altered = `${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}.${mac}`;
    expect((await refusal(org, { cursor: altered }))[0]!.message).toMatch(/altered or belongs to another organization/);
    // Another organization's cursor, another list's and another filter's.
    expect((await refusal(other, { cursor: good }))[0]!.message).toMatch(/another organization/);
    const foreignList = encodeCursor(org.orgId, { kind: 'subscriber-deliveries', scope: 'x', after: [null, 1, 'a'], offset: 0 });
    expect((await refusal(org, { cursor: foreignList }))[0]!.message).toMatch(/another list/);
    expect((await refusal(org, { cursor: good, status: 'FAILED' }))[0]!.message).toMatch(/another filter/);
    // Well formed, but not the shape of this list's position.
    const wrongShape = encodeCursor(org.orgId, { kind: 'events', scope: '', after: ['not-a-time', 'id'], offset: 0 });
    expect((await refusal(org, { cursor: wrongShape }))[0]!.message).toMatch(/not a cursor this API issued/);
    const beyondTime = encodeCursor(org.orgId, { kind: 'events', scope: '', after: [9e15, 'id'], offset: 0 });
    expect((await refusal(org, { cursor: beyondTime }))[0]!.message).toMatch(/not a cursor this API issued/);
  });
});

describe("a subscriber's deliveries by cursor", () => {
  const subscriber = { displayName: 'Paged', targetUrl: 'https://example.com/paged', events: ['doc.*'] };
  let expected: string[] = [];

  beforeAll(async () => {
    await t.herald.subscribers.create(org, { ...subscriber, id: 'paged' });
    await t.herald.subscribers.create(org, { ...subscriber, id: 'paged-other' });
    const collections = collectionsFor(t.database.db, 'herald_');
    const internalId = (await collections.subscribers.findOne({ orgId: org.orgId, handle: 'paged' }))!._id;
    // 130 rows: attempted ones (four share each attempt instant, pairs share a creation instant too)
    // and never-attempted ones (null), some in the queue, the rest in the history.
    const rows: DeliveryDocument[] = [];
    for (let index = 0; index < 130; index++) {
      const attempted = index % 5 !== 0;
      rows.push({
        _id: `row-${String(index).padStart(3, '0')}`,
        orgId: org.orgId,
        eventId: `ev-${index}`,
        subscriberId: internalId,
        subscriberHandle: 'paged',
        targetUrl: subscriber.targetUrl,
        eventType: 'doc.saved',
        occurredAt: new Date(Date.UTC(2030, 1, 1)),
        status: attempted ? (index % 7 === 0 ? 'FAILED' : 'DELIVERED') : 'PENDING',
        attempts: attempted ? 1 : 0,
        nextAttemptAt: null,
        lastHttpStatus: attempted ? 200 : null,
        lastError: null,
        lastAttemptAt: attempted ? new Date(Date.UTC(2030, 1, 2, 0, 0, Math.floor(index / 4))) : null,
        deliveredAt: null,
        encryptedFields: [],
        createdAt: new Date(Date.UTC(2030, 1, 1, 0, 0, Math.floor(index / 2))),
        updatedAt: new Date(Date.UTC(2030, 1, 1)),
      } as unknown as DeliveryDocument);
    }
    const queued = rows.filter((row) => row.status === 'PENDING');
    await collections.queue.insertMany(queued);
    await collections.deliveries.insertMany(rows.filter((row) => row.status !== 'PENDING'));
    const time = (date: Date | null) => date?.getTime() ?? Number.NEGATIVE_INFINITY;
    expected = [...rows]
      .sort((a, b) => time(b.lastAttemptAt) - time(a.lastAttemptAt) || b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1))
      .map((row) => row._id);
  }, 60_000);

  test('walks every row once in the order of the first page, never-attempted ones last', async () => {
    const first = await t.herald.subscribers.deliveriesPage(org, 'paged');
    expectMatchesSchema(schemas.WebhookSubscriberDeliveryList, first);
    expect(first.list.map((row) => row.deliveryId)).toEqual(expected.slice(0, 50));
    expect(await t.herald.subscribers.deliveries(org, 'paged')).toEqual(first.list);
    const second = await t.herald.subscribers.deliveriesPage(org, 'paged', { cursor: first.nextCursor! });
    const third = await t.herald.subscribers.deliveriesPage(org, 'paged', { cursor: second.nextCursor! });
    expect([...first.list, ...second.list, ...third.list].map((row) => row.deliveryId)).toEqual(expected);
    expect(third.list).toHaveLength(30);
    expect(third.nextCursor).toBeUndefined();
    expectMatchesSchema(schemas.WebhookSubscriberDeliveryList, third);
  });

  test("another subscriber's or list's cursor, or a bad one, is a ValidationError on `cursor`", async () => {
    const first = await t.herald.subscribers.deliveriesPage(org, 'paged');
    const refusal = async (handle: string, cursor: unknown) => {
      const error = await t.herald.subscribers.deliveriesPage(org, handle, { cursor: cursor as string }).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    };
    expect((await refusal('paged-other', first.nextCursor))[0]).toEqual({ field: 'cursor', message: expect.stringMatching(/another filter/) });
    const eventsCursor = (await t.herald.events.list(org, { limit: 1 })).nextCursor;
    expect((await refusal('paged', eventsCursor))[0]!.message).toMatch(/another list/);
    expect((await refusal('paged', 'nonsense'))[0]!.field).toBe('cursor');
    const error = await t.herald.subscribers.deliveriesPage(other, 'paged', { cursor: first.nextCursor! }).then(() => undefined, (caught: unknown) => caught);
    expect((error as Error).name).toBe('NotFoundError'); // another org's subscriber is not found before its cursor is read
  });
});
