// POST /api/v0.9/webhook-events/batch over real HTTP against the real host (FerretDB or the run's
// store, engine on): one result per event in order, invalid events refused alone while the others
// are stored and delivered, idempotency keys inside one batch, across batches and with single
// publishes, the limits (1,000 events, 1 MiB), malformed bodies, credentials and scope. Every
// response is checked against the served OpenAPI document (support/api-client.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BATCH = '/api/v0.9/webhook-events/batch';
const EVENTS = '/api/v0.9/webhook-events';

interface ErrorBody {
  status: 'error';
  code: string;
  message: string;
  errors?: Array<{ field: string; message: string }>;
}
type ItemResult = { index: number; eventId: string; created: boolean } | { index: number; error: ErrorBody };
interface BatchResult {
  list: ItemResult[];
  count: number;
  accepted: number;
  failed: number;
}

let t: TestHost;
let sink: Server;
const received: string[] = [];

function accepted(result: ItemResult | undefined): { index: number; eventId: string; created: boolean } {
  if (!result || !('eventId' in result)) throw new Error(`expected an accepted event, got ${JSON.stringify(result)}`);
  return result;
}
function refused(result: ItemResult | undefined): ErrorBody {
  if (!result || !('error' in result)) throw new Error(`expected a refused event, got ${JSON.stringify(result)}`);
  return result.error;
}
const storedCount = (filter: Record<string, unknown>) => t.database.db.collection('herald_events').countDocuments(filter);

beforeAll(async () => {
  sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(String(request.headers['webhook-id']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  t = await startTestHost({
    overrides: { eventTypes: [{ type: 'batch.checked', dataSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' } } } }] },
  });
  const targetUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hooks`;
  const created = await t.api.post('/api/v0.9/webhook-subscribers', { id: 'batch-sink', displayName: 'Batch sink', targetUrl, secret: 'batch-sink-secret-0001', events: ['batch.*'] });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => sink?.close(resolve));
});

describe('partial failure', () => {
  it('answers 200 with one result per event in order; invalid events are refused alone, the others stored and delivered', async () => {
    const response = await t.api.post<BatchResult>(BATCH, {
      events: [
        { eventType: 'batch.made', aggregateId: 'a-1', data: { n: 1 } },
        { eventType: 'Batch Made', aggregateId: 'a-2', data: {} },
        { eventType: 'batch.checked', aggregateId: 'a-3', data: { amount: 'many' } },
        42,
        { eventType: 'batch.made', aggregateId: 'a-5', data: {}, color: 'red' },
        { eventType: 'batch.made', aggregateId: 7, data: [] },
        { eventType: 'batch.made', aggregateId: 'a-7', data: { note: 'nul \u0000 here' } },
        { eventType: 'batch.checked', aggregateId: 'a-8', data: { amount: 8 }, sensitive: ['amount'] },
      ],
    });
    expect(response.status).toBe(200);
    const { list } = response.body;
    expect(response.body).toMatchObject({ count: 8, accepted: 2, failed: 6 });
    expect(list.map((result) => result.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    expect(refused(list[1])).toMatchObject({ status: 'error', code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'eventType' }] });
    expect(refused(list[2])).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'data.amount' }] });
    expect(refused(list[3])).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'event' }] });
    expect(refused(list[4])).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'color', message: 'is not allowed' }] });
    expect(refused(list[5]).errors!.map((issue) => issue.field).sort()).toEqual(['aggregateId', 'data']);
    expect(refused(list[6])).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'data.note' }] });

    const ids = [accepted(list[0]), accepted(list[7])].map((result) => result.eventId);
    expect([accepted(list[0]).created, accepted(list[7]).created]).toEqual([true, true]);
    for (const eventId of ids) {
      expect((await t.api.get(`${EVENTS}/${eventId}`)).status).toBe(200);
      await expect.poll(async () => (await t.api.get<{ status: string }>(`${EVENTS}/${eventId}`)).body.status, { timeout: 20_000 }).toBe('ALL_DELIVERED');
    }
    await expect.poll(() => ids.every((id) => received.includes(id)), { timeout: 20_000 }).toBe(true);
    expect(await storedCount({ aggregateId: { $in: ['a-2', 'a-3', 'a-5', 'a-7', 7] } })).toBe(0);
  });
});

describe('idempotency keys', () => {
  it('a key repeated inside one batch answers the first event (created false), with one fan-out; another event under it is CONFLICT', async () => {
    const event = { eventType: 'batch.keyed', aggregateId: 'k-1', data: { v: 1 }, idempotencyKey: 'batch-key-1' };
    const response = await t.api.post<BatchResult>(BATCH, {
      events: [event, event, { ...event, data: { v: 2 } }, { eventType: 'batch.keyed', aggregateId: 'k-2', data: {} }],
    });
    expect(response.status).toBe(200);
    const [first, repeat, conflict, other] = response.body.list;
    expect(accepted(first).created).toBe(true);
    expect(accepted(repeat)).toMatchObject({ eventId: accepted(first).eventId, created: false });
    expect(refused(conflict)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('batch-key-1') });
    expect(accepted(other).eventId).not.toBe(accepted(first).eventId);
    const detail = await t.api.get<{ deliveries: unknown[] }>(`${EVENTS}/${accepted(first).eventId}`);
    expect(detail.body.deliveries).toHaveLength(1);
    expect(await storedCount({ aggregateId: 'k-1' })).toBe(1);
  });

  it('keys hold across batches and with the single publish\'s Idempotency-Key, both ways', async () => {
    const event = { eventType: 'batch.keyed', aggregateId: 'k-3', data: { v: 3 } };
    const first = accepted((await t.api.post<BatchResult>(BATCH, { events: [{ ...event, idempotencyKey: 'batch-key-3' }] })).body.list[0]);
    const again = accepted((await t.api.post<BatchResult>(BATCH, { events: [{ ...event, idempotencyKey: 'batch-key-3' }] })).body.list[0]);
    expect(again).toMatchObject({ eventId: first.eventId, created: false });
    const single = await t.api.post<{ eventId: string }>(EVENTS, event, { headers: { 'idempotency-key': 'batch-key-3' } });
    expect(single.status).toBe(200);
    expect(single.body.eventId).toBe(first.eventId);

    const published = await t.api.post<{ eventId: string }>(EVENTS, { ...event, aggregateId: 'k-4' }, { headers: { 'idempotency-key': 'batch-key-4' } });
    expect(published.status).toBe(201);
    const [repeat, conflict] = (
      await t.api.post<BatchResult>(BATCH, { events: [{ ...event, aggregateId: 'k-4', idempotencyKey: 'batch-key-4' }, { ...event, aggregateId: 'k-5', idempotencyKey: 'batch-key-4' }] })
    ).body.list;
    expect(accepted(repeat)).toMatchObject({ eventId: published.body.eventId, created: false });
    expect(refused(conflict).code).toBe('CONFLICT');
    expect(await storedCount({ aggregateId: { $in: ['k-3', 'k-4', 'k-5'] } })).toBe(2);
  });

  it('an idempotencyKey out of bounds refuses its event; the Idempotency-Key header is refused for a batch', async () => {
    const [empty, long] = (
      await t.api.post<BatchResult>(BATCH, {
        events: [
          { eventType: 'batch.keyed', aggregateId: 'k-6', data: {}, idempotencyKey: '' },
          { eventType: 'batch.keyed', aggregateId: 'k-7', data: {}, idempotencyKey: 'x'.repeat(256) },
        ],
      })
    ).body.list;
    expect(refused(empty).errors).toEqual([{ field: 'idempotencyKey', message: expect.any(String) }]);
    expect(refused(long).errors).toEqual([{ field: 'idempotencyKey', message: expect.any(String) }]);

    const header = await t.api.post<ErrorBody>(BATCH, { events: [{ eventType: 'batch.keyed', aggregateId: 'k-8', data: {} }] }, { headers: { 'idempotency-key': 'whole-batch' } });
    expect(header.status).toBe(400);
    expect(header.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('idempotencyKey') }]);
    expect(await storedCount({ aggregateId: { $in: ['k-6', 'k-7', 'k-8'] } })).toBe(0);
  });
});

describe('limits', () => {
  const small = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => ({ eventType: 'limit.checked', aggregateId: `${prefix}-${i}`, data: { i } }));

  it('1,000 events are published in one request', async () => {
    const response = await t.api.post<BatchResult>(BATCH, { events: small(1000, 'max') });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ count: 1000, accepted: 1000, failed: 0 });
    expect(response.body.list.map((result) => result.index)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(await storedCount({ eventType: 'limit.checked', aggregateId: /^max-/ })).toBe(1000);
  });

  it('1,001 events → 400 naming `events`, and nothing is published', async () => {
    const response = await t.api.post<ErrorBody>(BATCH, { events: small(1001, 'over') });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', errors: [{ field: 'events', message: expect.stringContaining('at most 1000 events') }] });
    expect(await storedCount({ aggregateId: /^over-/ })).toBe(0);
  });

  it('more than 1 MiB of body (under 1,000 events) → 413 PAYLOAD_TOO_LARGE, and nothing is published', async () => {
    const padding = 'p'.repeat(2_000);
    const events = small(600, 'bytes').map((event) => ({ ...event, data: { padding } }));
    expect(JSON.stringify({ events }).length).toBeGreaterThan(1024 * 1024);
    const response = await t.api.post<ErrorBody>(BATCH, { events });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ status: 'error', code: 'PAYLOAD_TOO_LARGE' });
    expect(await storedCount({ aggregateId: /^bytes-/ })).toBe(0);
  });
});

describe('malformed requests', () => {
  it.each([
    ['an empty list', { events: [] }, 'events'],
    ['events not an array', { events: { eventType: 'batch.made' } }, 'events'],
    ['no events', {}, 'events'],
    ['an unknown top-level field', { events: [{ eventType: 'batch.made', aggregateId: 'm-1', data: {} }], dryRun: true }, 'dryRun'],
    ['a body that is an array', [{ eventType: 'batch.made', aggregateId: 'm-2', data: {} }], 'body'],
  ])('%s → 400 naming the field, nothing published', async (_name, body, field) => {
    const response = await t.api.post<ErrorBody>(BATCH, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(response.body.errors?.map((issue) => issue.field)).toContain(field);
    expect(await storedCount({ aggregateId: { $in: ['m-1', 'm-2'] } })).toBe(0);
  });

  it('a missing body, invalid JSON, a non-JSON body and an unknown query parameter are refused', async () => {
    const missing = await t.api.request<ErrorBody>('POST', BATCH, { headers: { 'content-type': 'application/json' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'body', message: 'is required' }]);
    const absent = await t.api.request<ErrorBody>('POST', BATCH);
    expect(absent.status).toBe(400);
    expect(absent.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    const broken = await t.api.request<ErrorBody>('POST', BATCH, { rawBody: '{"events": [', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    const text = await t.api.request<ErrorBody>('POST', BATCH, { rawBody: 'events', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const query = await t.api.post<ErrorBody>(`${BATCH}?wait=true`, { events: [{ eventType: 'batch.made', aggregateId: 'm-3', data: {} }] });
    expect(query.status).toBe(400);
    expect(await storedCount({ aggregateId: 'm-3' })).toBe(0);
  });

  it('PUT is not a method of the batch path', async () => {
    const response = await t.api.request<ErrorBody>('PUT', BATCH, { json: { events: [] } });
    expect(response.status).toBe(405);
  });
});

describe('credentials and scope', () => {
  const body = { events: [{ eventType: 'batch.made', aggregateId: 'auth-1', data: {} }] };

  it('no token or an unknown one → 401 with WWW-Authenticate; nothing published', async () => {
    const none = await t.api.post<ErrorBody>(BATCH, body, { token: '' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await t.api.post<ErrorBody>(BATCH, body, { token: 'hrd_not-a-real-token' });
    expect(wrong.status).toBe(401);
    expect(await storedCount({ aggregateId: 'auth-1' })).toBe(0);
  });

  it('a token without dp:event:publish → 403; with it → 200', async () => {
    const reader = await t.createToken(['dp:event:read', 'dp:delivery:manage']);
    const refusedResponse = await t.api.post<ErrorBody>(BATCH, body, { token: reader.token });
    expect(refusedResponse.status).toBe(403);
    expect(refusedResponse.body.code).toBe('FORBIDDEN');
    expect(await storedCount({ aggregateId: 'auth-1' })).toBe(0);
    const publisher = await t.createToken(['dp:event:publish']);
    const ok = await t.api.post<BatchResult>(BATCH, body, { token: publisher.token });
    expect(ok.status).toBe(200);
    expect(ok.body.accepted).toBe(1);
  });
});
