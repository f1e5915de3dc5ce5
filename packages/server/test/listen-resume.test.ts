// `herald webhooks listen` across a dropped stream, against the real host: the listener outlives the
// stream for its grace period (2 s here), the engine's deliveries meanwhile get a 503 and are retried
// on the normal schedule, and the CLI's `?resume=` gets the same id and secret back — only for the
// principal that opened it. After the grace period the listener is deleted as before.
import { createHmac, randomUUID } from 'node:crypto';
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';
import { openSse, type SseStream } from './support/sse.js';
import { bearerCall } from './support/bearer.js';

const GRACE_MS = 2_000;
let t: TestHost;
const data = { name: 'ci', token: 't' };

beforeAll(async () => {
  // Retries slow enough that a delivery sent during the gap still has attempts left when the
  // stream is back (the default test schedule of 200/400 ms × 3 would run out in under a second).
  t = await startTestHost({ overrides: { ssrfAllowList: [], logLevel: 'warn', listenGraceMs: GRACE_MS, retryScheduleMs: [1_000, 2_000], maxAttempts: 10 } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

interface Ready {
  listenerId: string;
  secret: string;
  events: string[];
  resumed: boolean;
  graceMs: number;
}
interface Pushed {
  deliveryId: string;
  headers: Record<string, string>;
  body: string;
}

const listenUrl = (query = '') => `${t.host.url}/api/v0.9/webhook-listen${query}`;
const call = bearerCall(() => t.host.url);

async function open(query = '', token = t.adminToken): Promise<{ stream: SseStream; ready: Ready }> {
  const stream = await openSse(listenUrl(query), token);
  expect(stream.status).toBe(200);
  const frame = await stream.next();
  expect(frame.event).toBe('ready');
  return { stream, ready: JSON.parse(frame.data) as Ready };
}

/**
 * POSTs to the internal route as the engine would, signed with the listener's secret (Standard
 * Webhooks), so the answer shows whether the listener is there and has a stream. 0 when no answer
 * came within a second: the host had not yet seen the stream close and relayed the probe to it.
 */
async function probeInternalRoute(ready: Ready): Promise<number> {
  const id = `msg_${randomUUID()}`;
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const body = JSON.stringify({ type: 'probe.sent', id });
  const key = Buffer.from(ready.secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const response = await fetch(`${t.host.url}/internal/listen/${ready.listenerId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` },
    body,
    signal: AbortSignal.timeout(1_000),
  }).catch(() => undefined);
  await response?.body?.cancel();
  return response?.status ?? 0;
}

async function publish(eventType = 'apikey.generated'): Promise<string> {
  const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType, aggregateId: 'k1', data });
  expect(published.status).toBe(201);
  return published.body.eventId;
}

async function delivery(eventId: string) {
  const detail = await t.api.get<{ deliveries: { status: string; lastHttpStatus?: number; attempts: number; attemptHistory: { httpStatus?: number }[] }[] }>(
    `/api/v0.9/webhook-events/${eventId}`,
  );
  return detail.body.deliveries[0];
}

const reply = (ready: Ready, pushed: Pushed, status: number) =>
  call('POST', `/api/v0.9/webhook-listen/${ready.listenerId}/replies/${pushed.deliveryId}`, t.adminToken, { status, body: 'ok', durationMs: 3 });

test('a resumed listener keeps its id and secret, and a delivery sent during the gap is retried to it', async () => {
  const first = await open('?events=apikey.*');
  expect(first.ready).toMatchObject({ resumed: false, graceMs: GRACE_MS, events: ['apikey.*'] });
  first.stream.close();
  // Detached, not deleted: still readable, and the engine is told to come back later.
  await expect.poll(() => probeInternalRoute(first.ready), { timeout: 5_000 }).toBe(503);
  expect((await t.api.get(`/api/v0.9/webhook-subscribers/${first.ready.listenerId}`)).status).toBe(200);

  const eventId = await publish();
  await expect.poll(() => delivery(eventId), { timeout: 10_000 }).toMatchObject({ status: 'PENDING', lastHttpStatus: 503 });

  const second = await open(`?events=apikey.*&resume=${first.ready.listenerId}`);
  expect(second.ready).toStrictEqual({ ...first.ready, resumed: true });
  // The retry reaches the resumed stream, signed with the secret printed at the start.
  const frame = await second.stream.next();
  expect(frame.event).toBe('delivery');
  const pushed = JSON.parse(frame.data) as Pushed;
  expect(verify(pushed.headers, pushed.body, first.ready.secret).eventId).toBe(eventId);
  expect((await reply(second.ready, pushed, 200)).status).toBe(204);
  await expect.poll(() => delivery(eventId), { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 200 });
  const final = (await delivery(eventId))!;
  expect(final.attempts).toBeGreaterThanOrEqual(2);
  expect(final.attemptHistory.map((attempt) => attempt.httpStatus)).toContain(503);

  expect((await call('DELETE', `/api/v0.9/webhook-listen/${first.ready.listenerId}`, t.adminToken)).status).toBe(204);
  second.stream.close();
}, 30_000);

test('a delivery pushed just before the drop is answered after the resume', async () => {
  const first = await open();
  const eventId = await publish();
  const frame = await first.stream.next();
  const pushed = JSON.parse(frame.data) as Pushed;
  first.stream.close();
  await expect.poll(() => probeInternalRoute(first.ready), { timeout: 5_000 }).toBe(503);
  const second = await open(`?resume=${first.ready.listenerId}`);
  expect(second.ready.resumed).toBe(true);
  // The engine's attempt is still waiting for this reply: it becomes the outcome, no retry needed.
  expect((await reply(second.ready, pushed, 201)).status).toBe(204);
  await expect.poll(() => delivery(eventId), { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 201, attempts: 1 });
  expect((await call('DELETE', `/api/v0.9/webhook-listen/${first.ready.listenerId}`, t.adminToken)).status).toBe(204);
  second.stream.close();
}, 30_000);

test('resuming a listener whose stream the host still holds takes it over', async () => {
  const first = await open();
  const second = await open(`?resume=${first.ready.listenerId}`);
  expect(second.ready).toMatchObject({ listenerId: first.ready.listenerId, secret: first.ready.secret, resumed: true });
  await expect(first.stream.next()).rejects.toThrow('the stream ended');
  const eventId = await publish();
  const pushed = JSON.parse((await second.stream.next()).data) as Pushed;
  expect(verify(pushed.headers, pushed.body, first.ready.secret).eventId).toBe(eventId);
  expect((await reply(second.ready, pushed, 200)).status).toBe(204);
  expect((await call('DELETE', `/api/v0.9/webhook-listen/${first.ready.listenerId}`, t.adminToken)).status).toBe(204);
  second.stream.close();
}, 30_000);

test('another principal cannot resume a listener: it gets a new one, and the owner\'s is untouched', async () => {
  const owner = await open('?events=apikey.*');
  const other = await t.createToken(['dp:webhook_subscriber:create']);
  const stranger = await open(`?events=apikey.*&resume=${owner.ready.listenerId}`, other.token);
  expect(stranger.ready.resumed).toBe(false);
  expect(stranger.ready.listenerId).not.toBe(owner.ready.listenerId);
  expect(stranger.ready.secret).not.toBe(owner.ready.secret);
  // Nor once the owner's stream has dropped.
  owner.stream.close();
  await expect.poll(() => probeInternalRoute(owner.ready), { timeout: 5_000 }).toBe(503);
  const again = await open(`?events=apikey.*&resume=${owner.ready.listenerId}`, other.token);
  expect(again.ready).toMatchObject({ resumed: false });
  expect(again.ready.listenerId).not.toBe(owner.ready.listenerId);
  // The owner still resumes it.
  const back = await open(`?events=apikey.*&resume=${owner.ready.listenerId}`);
  expect(back.ready).toStrictEqual({ ...owner.ready, resumed: true });
  for (const [listener, token] of [[owner.ready, t.adminToken], [stranger.ready, other.token], [again.ready, other.token]] as const) {
    expect((await call('DELETE', `/api/v0.9/webhook-listen/${listener.listenerId}`, token)).status).toBe(204);
  }
  for (const stream of [back.stream, stranger.stream, again.stream]) stream.close();
}, 30_000);

test('an unknown listener id or other events open a new listener; a malformed id is a 400', async () => {
  const unknown = await open('?resume=lst_000000000000000000000000');
  expect(unknown.ready.resumed).toBe(false);
  expect(unknown.ready.listenerId).not.toBe('lst_000000000000000000000000');
  // The same listener asked for with a different filter is a different listener.
  const other = await open(`?events=apikey.*&resume=${unknown.ready.listenerId}`);
  expect(other.ready).toMatchObject({ resumed: false, events: ['apikey.*'] });
  expect(other.ready.listenerId).not.toBe(unknown.ready.listenerId);

  const malformed = await fetch(listenUrl('?resume=billing'), { headers: { authorization: `Bearer ${t.adminToken}` } });
  expect(malformed.status).toBe(400);
  expect(await malformed.text()).toContain('resume');
  for (const listener of [unknown.ready, other.ready]) {
    expect((await call('DELETE', `/api/v0.9/webhook-listen/${listener.listenerId}`, t.adminToken)).status).toBe(204);
  }
  unknown.stream.close();
  other.stream.close();
});

test('after the grace period the listener is deleted, and a resume gets a new one with a new secret', async () => {
  const first = await open();
  first.stream.close();
  await expect.poll(() => probeInternalRoute(first.ready), { timeout: 5_000 }).toBe(503);
  await expect.poll(async () => (await t.api.get(`/api/v0.9/webhook-subscribers/${first.ready.listenerId}`)).status, { timeout: GRACE_MS + 5_000 }).toBe(404);
  expect(await probeInternalRoute(first.ready)).toBe(410);
  const second = await open(`?resume=${first.ready.listenerId}`);
  expect(second.ready.resumed).toBe(false);
  expect(second.ready.listenerId).not.toBe(first.ready.listenerId);
  expect(second.ready.secret).not.toBe(first.ready.secret);
  expect((await call('DELETE', `/api/v0.9/webhook-listen/${second.ready.listenerId}`, t.adminToken)).status).toBe(204);
  second.stream.close();
}, 30_000);

test('with a grace period of 0 a dropped stream deletes its listener at once', async () => {
  const host = await startTestHost({ overrides: { ssrfAllowList: [], logLevel: 'warn', listenGraceMs: 0 } });
  try {
    const stream = await openSse(`${host.host.url}/api/v0.9/webhook-listen`, host.adminToken);
    const { listenerId } = JSON.parse((await stream.next()).data) as Ready;
    stream.close();
    await expect.poll(async () => (await host.api.get(`/api/v0.9/webhook-subscribers/${listenerId}`)).status, { timeout: 5_000 }).toBe(404);
  } finally {
    await host.close();
  }
}, 30_000);
