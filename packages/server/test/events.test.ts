// Spec section C and the extensions: list/get events (200/403/404), publish with Idempotency-Key
// (201 + Location, then 200 with the original), redeliver and per-delivery retry (404s, scopes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/auth/scopes.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const EVENTS = '/api/v0.9/webhook-events';
const SENSITIVE_VALUE = 'sk_live_do_not_log_me_123';
let t: TestHost;

interface Delivery {
  deliveryId: string;
  subscriberId: string;
  targetUrl: string | null;
  status: string;
}
interface WebhookEvent {
  eventId: string;
  eventType: string;
  orgId: string;
  aggregateType: string;
  aggregateId: string;
  status: string;
  occurredAt: string;
  deliveries: Delivery[];
}
interface EventPage {
  list: WebhookEvent[];
  count: number;
  pagination: { total: number; limit: number; offset: number };
}

beforeAll(async () => {
  // Engine off: these tests look at what publish records, not at delivery (end-to-end.test.ts does).
  t = await startTestHost({ mode: 'api-only' });
  const subscriber = { id: 'keys-hook', displayName: 'Keys', targetUrl: 'http://127.0.0.1:9/never', events: ['apikey.*'], secret: 'keys-hook-secret-0001' };
  expect((await t.api.post('/api/v0.9/webhook-subscribers', subscriber)).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

describe('publish (extension)', () => {
  let first: WebhookEvent;

  it('201 with the recorded event, one delivery row per matching subscriber, and a Location', async () => {
    const response = await t.api.post<WebhookEvent>(
      EVENTS,
      { eventType: 'apikey.generated', aggregateType: 'apikey', aggregateId: 'key-1', data: { name: 'ci', token: SENSITIVE_VALUE }, sensitive: ['token'] },
      { headers: { 'idempotency-key': 'publish-once-1' } },
    );
    expect(response.status).toBe(201);
    first = response.body;
    expect(first).toMatchObject({ eventType: 'apikey.generated', orgId: 'default', aggregateType: 'apikey', aggregateId: 'key-1' });
    expect(first.deliveries).toHaveLength(1);
    expect(first.deliveries[0]).toMatchObject({ subscriberId: 'keys-hook', status: 'PENDING' });
    expect(response.headers.get('location')).toBe(`${EVENTS}/${first.eventId}`);
    expect(response.text).not.toContain(SENSITIVE_VALUE);
  });

  it('the same Idempotency-Key again → 200 with the original event and no second fan-out', async () => {
    const again = await t.api.post<WebhookEvent>(
      EVENTS,
      { eventType: 'apikey.generated', aggregateType: 'apikey', aggregateId: 'key-1', data: { name: 'ci', token: SENSITIVE_VALUE }, sensitive: ['token'] },
      { headers: { 'idempotency-key': 'publish-once-1' } },
    );
    expect(again.status).toBe(200);
    expect(again.body.eventId).toBe(first.eventId);
    expect(again.headers.get('location')).toBe(`${EVENTS}/${first.eventId}`);
    expect(await t.database.db.collection('herald_delivery_queue').countDocuments({ eventId: first.eventId })).toBe(1);
  });

  it('the same Idempotency-Key with a different body → 409 CONFLICT, nothing written', async () => {
    const other = await t.api.post<{ status: string; code: string; message: string }>(
      EVENTS,
      { eventType: 'apikey.generated', aggregateId: 'key-1', data: { name: 'something else' } },
      { headers: { 'idempotency-key': 'publish-once-1' } },
    );
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ status: 'error', code: 'CONFLICT', message: expect.stringMatching(/Idempotency-Key/) });
    expect(await t.database.db.collection('herald_events').countDocuments({ aggregateId: 'key-1' })).toBe(1);
  });

  it('an event nobody subscribes to is ALL_DELIVERED with no rows', async () => {
    const response = await t.api.post<WebhookEvent>(EVENTS, { eventType: 'subscription.created', aggregateId: 's-1', data: {} });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: 'ALL_DELIVERED', deliveries: [] });
  });

  it('400 for a malformed event type, missing aggregateId or non-object data', async () => {
    for (const [body, field] of [
      [{ eventType: 'NotDotted', aggregateId: 'x', data: {} }, 'eventType'],
      [{ eventType: 'a.b', data: {} }, 'aggregateId'],
      [{ eventType: 'a.b', aggregateId: 'x', data: [1] }, 'data'],
    ] as const) {
      const response = await t.api.post<{ code: string; errors: Array<{ field: string }> }>(EVENTS, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
      expect(response.body.errors.map((error) => error.field)).toContain(field);
    }
  });

  it('never logs the sensitive value', () => {
    expect(t.logs.join('\n')).not.toContain(SENSITIVE_VALUE);
  });
});

describe('list events', () => {
  it('200 with list, count, pagination; newest first; delivery summaries', async () => {
    const response = await t.api.get<EventPage>(EVENTS);
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(2);
    expect(response.body.pagination).toEqual({ total: 2, limit: 20, offset: 0 });
    const [newest, oldest] = response.body.list;
    expect(Date.parse(newest!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(oldest!.occurredAt));
    expect(oldest!.deliveries[0]).not.toHaveProperty('attemptHistory');
  });

  it('filters by status', async () => {
    const response = await t.api.get<EventPage>(`${EVENTS}?status=ALL_DELIVERED&limit=5`);
    expect(response.status).toBe(200);
    expect(response.body.list.map((event) => event.status)).toEqual(['ALL_DELIVERED']);
    expect(response.body.pagination).toEqual({ total: 1, limit: 5, offset: 0 });
  });

  it('403 without dp:event:read', async () => {
    const { token } = await t.createToken([SCOPES.subscriberManage]);
    const response = await t.api.get<{ code: string }>(EVENTS, { token });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('FORBIDDEN');
  });
});

describe('get event', () => {
  it('200 with full delivery rows (attempt history)', async () => {
    const [event] = (await t.api.get<EventPage>(`${EVENTS}?status=DISPATCHED`)).body.list;
    const response = await t.api.get<WebhookEvent & { deliveries: Array<Delivery & { attemptHistory: unknown[]; attempts: number }> }>(
      `${EVENTS}/${event!.eventId}`,
    );
    expect(response.status).toBe(200);
    expect(response.body.eventId).toBe(event!.eventId);
    expect(response.body.deliveries[0]).toMatchObject({ subscriberId: 'keys-hook', attempts: 0, attemptHistory: [] });
  });

  it('404 ORG_NOT_FOUND for an unknown id', async () => {
    const response = await t.api.get<{ status: string; code: string }>(`${EVENTS}/00000000-0000-4000-8000-000000000000`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: 'error', code: 'ORG_NOT_FOUND' });
  });

  it('403 without dp:event:read', async () => {
    const { token } = await t.createToken([SCOPES.eventPublish]);
    expect((await t.api.get(`${EVENTS}/anything`, { token })).status).toBe(403);
  });
});

describe('redeliver and retry (extensions)', () => {
  it('redeliver → 200 with the event, every row PENDING again', async () => {
    const [event] = (await t.api.get<EventPage>(`${EVENTS}?status=DISPATCHED`)).body.list;
    const response = await t.api.post<WebhookEvent>(`${EVENTS}/${event!.eventId}/redeliver`);
    expect(response.status).toBe(200);
    expect(response.body.eventId).toBe(event!.eventId);
    expect(response.body.deliveries.every((delivery) => delivery.status === 'PENDING')).toBe(true);
  });

  it('retry one delivery → 200 with the row', async () => {
    const [event] = (await t.api.get<EventPage>(`${EVENTS}?status=DISPATCHED`)).body.list;
    const deliveryId = event!.deliveries[0]!.deliveryId;
    const response = await t.api.post<Delivery>(`${EVENTS}/${event!.eventId}/deliveries/${deliveryId}/retry`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ deliveryId, status: 'PENDING' });
  });

  it('404 for an unknown event or a delivery of another event', async () => {
    expect((await t.api.post(`${EVENTS}/unknown-event/redeliver`)).status).toBe(404);
    const [event] = (await t.api.get<EventPage>(`${EVENTS}?status=DISPATCHED`)).body.list;
    const response = await t.api.post<{ code: string }>(`${EVENTS}/${event!.eventId}/deliveries/not-its-delivery/retry`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('ORG_NOT_FOUND');
  });
});

// Last: the events it publishes would change the counts the list tests above assert.
describe('publish: shapes of data', () => {
  it('any JSON object is accepted as data (nested arrays, dotted and $ keys); 1e400 is a 400 with the field', async () => {
    for (const data of [{ m: [[1, 2]] }, { 'user.name': 'x' }, { $x: 1 }, { o: { $x: 1 } }]) {
      const response = await t.api.post<WebhookEvent>(EVENTS, { eventType: 'odd.shape', aggregateId: 'o', data });
      expect(response.status).toBe(201);
    }
    const huge = await t.api.request<{ code: string; errors: Array<{ field: string }> }>('POST', EVENTS, {
      rawBody: '{"eventType":"odd.shape","aggregateId":"o","data":{"n":1e400}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.errors).toEqual([{ field: 'data.n', message: 'must be a finite number' }]);
  });
});

// Last: the other describes count the events this host has recorded.
describe('idempotency keys across tokens', () => {
  it('the key belongs to the org: a retry with a rotated token → 200 with the original event, no second fan-out', async () => {
    const body = { eventType: 'apikey.generated', aggregateId: 'key-rotated', data: { name: 'rotation' } };
    const before = await t.createToken([SCOPES.eventPublish], { name: 'publisher-before-rotation' });
    const after = await t.createToken([SCOPES.eventPublish], { name: 'publisher-after-rotation' });
    const first = await t.api.post<WebhookEvent>(EVENTS, body, { token: before.token, headers: { 'idempotency-key': 'rotate-me' } });
    const retry = await t.api.post<WebhookEvent>(EVENTS, body, { token: after.token, headers: { 'idempotency-key': 'rotate-me' } });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(200);
    expect(retry.body.eventId).toBe(first.body.eventId);
    expect(await t.database.db.collection('herald_events').countDocuments({ aggregateId: 'key-rotated' })).toBe(1);
    expect(await t.database.db.collection('herald_delivery_queue').countDocuments({ eventId: first.body.eventId })).toBe(1);
  });
});

describe('DELETE /webhook-events/{id} (erasure)', () => {
  it('409 while deliveries are pending, 204 with force=true, then 404; an unknown query parameter is a 400', async () => {
    await t.api.post('/api/v0.9/webhook-subscribers', { id: 'erase-hook', displayName: 'E', targetUrl: 'http://127.0.0.1:9/never', events: ['erase.*'] });
    const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'erase.me', aggregateId: 'x', data: { email: 'a@b.c' } });
    const path = `/api/v0.9/webhook-events/${published.body.eventId}`;
    const conflict = await t.api.delete<{ code: string; message: string }>(path);
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toContain('force=true');
    expect((await t.api.delete(`${path}?force=yes`)).status).toBe(400);
    expect((await t.api.delete(`${path}?force=true`)).status).toBe(204);
    expect((await t.api.get(path)).status).toBe(404);
    expect((await t.api.delete(`${path}?force=true`)).status).toBe(404);
  });
});
