// The engine end to end: createHerald over FerretDB, real HTTP sinks on 127.0.0.1.
import { decryptFields, verify } from '@herald/receiver';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ValidationError } from '../../src/index.js';
// A port the system just handed out and took back: nothing listens there, so connecting is refused.
import { freePort as closedPort } from '../../../../test/support/ferretdb.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

const WHSEC = `whsec_${Buffer.from('engine-test-key-32-bytes-long!!!').toString('base64')}`;
let harness: Harness;
const sinks: Sink[] = [];

async function sink(handler = answer(204)): Promise<Sink> {
  const started = await startSink(handler);
  sinks.push(started);
  return started;
}

// Each test subscribes to its own event family, so earlier subscribers do not receive its events.
let family = 'none';
let subscriberCount = 0;
async function subscribe(targetUrl: string, extra: { secret?: string; timeoutMs?: number; events?: string[] } = {}) {
  subscriberCount += 1;
  family = `family${subscriberCount}`;
  return harness.herald.subscribers.create(scope, { displayName: `sink ${subscriberCount}`, targetUrl, events: extra.events ?? [`${family}.*`], ...extra });
}

async function publish(eventType = `${family}.created`, data: Record<string, unknown> = { orderId: 'o-1', total: 12 }) {
  const { event } = await harness.herald.events.publish(scope, { eventType, aggregateId: 'agg-1', data });
  return event;
}

beforeAll(async () => { harness = await startHarness(); });
afterAll(async () => {
  await harness.close();
  await Promise.all(sinks.map((s) => s.close()));
});

describe('delivery, standard profile', () => {
  test('a signed delivery that both verifiers accept, with the sensitive field decryptable; event ALL_DELIVERED', async () => {
    const receiver = await sink();
    await subscribe(receiver.url, { secret: WHSEC, events: ['card.*'] });
    const event = await publish('card.issued', { cardId: 'c-1', pan: '4111111111111111' });

    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    expect(settled.deliveries).toHaveLength(1);
    const [row] = settled.deliveries;
    expect(row).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 204, lastError: null, attempts: 1 });
    expect(row?.deliveredAt).not.toBeNull();
    expect(row?.attemptHistory).toMatchObject([{ attempt: 1, httpStatus: 204, errorClass: null }]);

    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(event.eventId);
    expect(headers['herald-delivery-id']).toBe(row?.deliveryId);
    expect(headers['herald-attempt']).toBe('1');
    expect(headers['user-agent']).toMatch(/^Herald\//);

    const verified = verify(headers, request.body, WHSEC);
    expect(new Webhook(WHSEC).verify(request.body.toString(), headers)).toEqual(verified.payload);
    const payload = verified.payload as { type: string; encryptedFields: string[]; data: Record<string, unknown> };
    expect(payload.type).toBe('card.issued');
    expect(payload.encryptedFields).toEqual(['pan']);
    expect(request.body.toString()).not.toContain('4111111111111111');
    expect(decryptFields(payload.data, WHSEC, 'standard', payload.encryptedFields)).toEqual({ cardId: 'c-1', pan: '4111111111111111' });
  });

  test('any JSON object is accepted as data and delivered exactly as sent: nested arrays, dotted and $ keys', async () => {
    const receiver = await sink();
    await subscribe(receiver.url);
    const data = { m: [[1, 2], [3]], 'user.name': 'x', $x: 1, o: { $y: { 'a.b': [[{}]] } } };
    const event = await publish(`${family}.created`, data);
    expect((await eventSettles(harness.herald, event.eventId)).status).toBe('ALL_DELIVERED');
    expect((JSON.parse(receiver.received[0]!.body.toString()) as { data: unknown }).data).toEqual(data);
  });

  test('data JSON cannot carry faithfully is refused with its path, and nothing is recorded', async () => {
    const before = (await harness.herald.events.list(scope, { limit: 1 })).pagination.total;
    const refused = async (data: Record<string, unknown>) => {
      const error = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'bad', data }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors;
    };
    expect(await refused({ n: Number.POSITIVE_INFINITY })).toEqual([{ field: 'data.n', message: 'must be a finite number' }]);
    expect((await refused({ 'a\u0000b': 1 }))[0]!.field).toBe('data.a\u0000b');
    expect((await refused({ s: 'x\ud800' }))[0]).toMatchObject({ field: 'data.s' });
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 40; i++) deep = (deep.d = {}) as Record<string, unknown>;
    expect((await refused(root))[0]!.message).toMatch(/nested more than 32 levels/);
    expect((await harness.herald.events.list(scope, { limit: 1 })).pagination.total).toBe(before);
  });

  test('fast path: the first attempt does not wait for a poll', async () => {
    const receiver = await sink();
    await subscribe(receiver.url);
    const started = Date.now();
    await publish();
    await receiver.waitFor(1);
    // The poll interval is 100 ms in these tests; publish → receipt should be well under it on
    // an idle machine, but this shared CI box gets a generous bound.
    expect(receiver.received[0]!.receivedAt - started).toBeLessThan(2_000);
  });

  test('500 then 200: retried and delivered, with both attempts in the history', async () => {
    const receiver = await sink((_request, response, index) => { response.writeHead(index === 0 ? 500 : 200).end(index === 0 ? 'boom' : 'ok'); });
    await subscribe(receiver.url);
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    const row = settled.deliveries[0]!;
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 2, lastHttpStatus: 200 });
    expect(row.attemptHistory.map((a) => [a.attempt, a.httpStatus, a.responseBodySnippet])).toEqual([[1, 500, 'boom'], [2, 200, 'ok']]);
    expect(receiver.received.map((r) => r.headers['herald-attempt'])).toEqual(['1', '2']);
    // The event id is stable across retries (receivers de-duplicate on it).
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.eventId]));
  });

  test('always 500: FAILED after maxAttempts, event FAILED', async () => {
    const receiver = await sink(answer(500));
    await subscribe(receiver.url);
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('FAILED');
    expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED', attempts: 3, lastHttpStatus: 500 });
    expect(settled.deliveries[0]!.lastError).toMatch(/HTTP 500; gave up after 3 attempts/);
    expect(receiver.received).toHaveLength(3);
  });

  test('a receiver slower than timeoutMs: the attempt times out and the retry succeeds', async () => {
    const receiver = await sink((_request, response, index) => {
      if (index === 0) setTimeout(() => response.writeHead(200).end(), 1_500);
      else response.writeHead(200).end();
    });
    await subscribe(receiver.url, { timeoutMs: 200 });
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    const row = settled.deliveries[0]!;
    expect(row.status).toBe('DELIVERED');
    expect(row.attemptHistory[0]).toMatchObject({ attempt: 1, httpStatus: null, errorClass: 'TIMEOUT' });
    expect(row.attemptHistory[0]!.durationMs).toBeLessThan(1_000);
  });

  test('connection refused is retried, then FAILED with the error class recorded', async () => {
    await subscribe(`http://127.0.0.1:${await closedPort()}/hook`);
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.status).toBe('FAILED');
    const row = settled.deliveries[0]!;
    expect(row.attemptHistory.map((a) => a.errorClass)).toEqual(['CONNECTION_REFUSED', 'CONNECTION_REFUSED', 'CONNECTION_REFUSED']);
    expect(row.lastHttpStatus).toBeNull();
    expect(row.lastError).toMatch(/^CONNECTION_REFUSED/);
  });

  test('3xx is a failure and the redirect is never followed', async () => {
    const receiver = await sink(answer(302, { location: '/elsewhere' }));
    await subscribe(receiver.url);
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED', lastHttpStatus: 302 });
    expect(receiver.received.every((r) => r.path === '/hook')).toBe(true);
  });

  test('410 Gone is terminal after one attempt', async () => {
    const receiver = await sink(answer(410));
    await subscribe(receiver.url);
    const event = await publish();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED', attempts: 1, lastHttpStatus: 410 });
    await new Promise((r) => setTimeout(r, 400)); // longer than the retry schedule
    expect(receiver.received).toHaveLength(1);
  });

  test('a subscriber disabled after publish is never sent to, even if the engine reads it late', async () => {
    const receiver = await sink();
    const subscriber = await subscribe(receiver.url);
    await harness.herald.stop();
    const event = await publish();
    // Disable behind the service's back, so only the engine's own check can stop the send.
    const subscribers = harness.database.db.collection<{ handle: string; enabled: boolean }>('herald_subscribers');
    await subscribers.updateOne({ handle: subscriber.id }, { $set: { enabled: false } });
    await harness.herald.start();
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED' });
    expect(settled.deliveries[0]!.lastError).toMatch(/disabled/);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('Retry-After and the SSRF guard', () => {
  test('429 with Retry-After: the next attempt waits what the receiver asked', async () => {
    const own = await startHarness({ delivery: { retrySchedule: [100, 5_000], maxAttempts: 3 } });
    try {
      const receiver = await sink((_request, response, index) => {
        if (index === 0) response.writeHead(429, { 'retry-after': '2' }).end();
        else response.writeHead(200).end();
      });
      await own.herald.subscribers.create(scope, { displayName: 'retry-after', targetUrl: receiver.url });
      const { event } = await own.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'a', data: {} });
      await eventSettles(own.herald, event.eventId);
      const gap = receiver.received[1]!.receivedAt - receiver.received[0]!.receivedAt;
      expect(gap).toBeGreaterThanOrEqual(1_900);
      expect(gap).toBeLessThan(5_000);
    } finally {
      await own.close();
    }
  });

  test('without an allow-list a loopback target is refused at connect time; allow-listed it is delivered', async () => {
    const guarded = await startHarness({ delivery: { ssrfAllowList: [] } });
    try {
      const receiver = await sink();
      await guarded.herald.subscribers.create(scope, { displayName: 'internal', targetUrl: receiver.url });
      const { event } = await guarded.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'a', data: {} });
      const settled = await eventSettles(guarded.herald, event.eventId);
      expect(settled.deliveries[0]).toMatchObject({ status: 'FAILED', attempts: 1, lastHttpStatus: null });
      expect(settled.deliveries[0]!.attemptHistory[0]!.errorClass).toBe('SSRF_BLOCKED');
      expect(receiver.received).toHaveLength(0);

      // The same target through the allow-listing harness of this file.
      await subscribe(receiver.url);
      const allowed = await publish();
      expect((await eventSettles(harness.herald, allowed.eventId)).status).toBe('ALL_DELIVERED');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await guarded.close();
    }
  });
});

describe('delivery, api-portal profile', () => {
  test('signature, headers and key order of the api-portal profile; fields decrypt with its key', async () => {
    const portal = await startHarness({ profile: 'api-portal' });
    try {
      const receiver = await sink();
      await portal.herald.subscribers.create(scope, { displayName: 'portal', targetUrl: receiver.url, secret: 'shared-secret-0123' });
      const { event } = await portal.herald.events.publish(scope, { eventType: 'card.issued', aggregateId: 'c-9', data: { pan: '5500000000000004', last4: '0004' } });
      const settled = await eventSettles(portal.herald, event.eventId);
      expect(settled.status).toBe('ALL_DELIVERED');
      const request = receiver.received[0]!;
      const headers = request.headers as Record<string, string>;
      expect(headers['x-api-portal-event']).toBe('card.issued');
      expect(headers['x-api-portal-event-id']).toBe(event.eventId);
      expect(headers['x-api-portal-delivery-id']).toBe(settled.deliveries[0]!.deliveryId);
      expect(headers['x-api-portal-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const verified = verify(headers, request.body, 'shared-secret-0123');
      expect(verified.profile).toBe('api-portal');
      const body = verified.payload as Record<string, unknown> & { data: Record<string, unknown>; encrypted_fields: string[] };
      expect(Object.keys(body)).toEqual(['event_id', 'event_type', 'occurred_at', 'org', 'encrypted_fields', 'data']);
      expect(body.org).toEqual({ ref_id: 'acme' });
      expect(decryptFields(body.data, 'shared-secret-0123', 'api-portal', body.encrypted_fields)).toMatchObject({ pan: '5500000000000004', last4: '0004' });
    } finally {
      await portal.close();
    }
  });
});

test('metrics count what happened', async () => {
  const metrics = await eventually(async () => harness.herald.metrics(), (m) => m.inFlight === 0);
  expect(metrics.delivered).toBeGreaterThanOrEqual(5);
  expect(metrics.failed).toBeGreaterThanOrEqual(4);
  expect(metrics.retried).toBeGreaterThanOrEqual(4);
});
