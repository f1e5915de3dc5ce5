// The listen protocol of `herald webhooks listen` against the real host with no SSRF allow-list: the
// engine reaches the host's own internal route (and nothing else on loopback), the stream relays a
// signed delivery, the reply becomes the recorded outcome, and DELETE removes the listener.
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';
import { openSse } from './support/sse.js';
import { bearerCall } from './support/bearer.js';

let t: TestHost;
const data = { name: 'ci', token: 't' };

beforeAll(async () => {
  t = await startTestHost({ overrides: { ssrfAllowList: [], logLevel: 'warn' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const listenUrl = (query = '') => `${t.host.url}/api/v0.9/webhook-listen${query}`;
const call = bearerCall(() => t.host.url);

async function eventDeliveries(eventId: string) {
  const detail = await t.api.get<{ deliveries: { status: string; lastHttpStatus?: number; attemptCount?: number }[] }>(`/api/v0.9/webhook-events/${eventId}`);
  return detail.body.deliveries;
}

test('a delivery is relayed signed, the reply is its outcome, and closing deletes the listener', async () => {
  const stream = await openSse(listenUrl('?events=apikey.*'), t.adminToken);
  expect(stream.status).toBe(200);
  const ready = JSON.parse((await stream.next()).data) as { listenerId: string; secret: string; events: string[] };
  expect(ready).toMatchObject({ events: ['apikey.*'] });
  expect(ready.secret).toMatch(/^whsec_/);
  // Not configuration: hidden from the list, still readable by id.
  const list = await t.api.get<{ list: { id: string }[] }>('/api/v0.9/webhook-subscribers');
  expect(list.body.list.map((item) => item.id)).not.toContain(ready.listenerId);
  expect((await t.api.get(`/api/v0.9/webhook-subscribers/${ready.listenerId}`)).status).toBe(200);
  const withListeners = await t.api.get<{ list: { id: string }[] }>('/api/v0.9/webhook-subscribers?listeners=true');
  expect(withListeners.body.list.map((item) => item.id)).toContain(ready.listenerId);
  expect((await t.api.get('/api/v0.9/webhook-subscribers?listeners=maybe')).status).toBe(400);

  const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'apikey.generated', aggregateId: 'k1', data });
  expect(published.status).toBe(201);
  const frame = await stream.next();
  expect(frame.event).toBe('delivery');
  const delivery = JSON.parse(frame.data) as { deliveryId: string; headers: Record<string, string>; body: string };
  expect(verify(delivery.headers, delivery.body, ready.secret).eventId).toBe(published.body.eventId);

  // Only the principal that opened the listener may answer for it.
  const other = await t.createToken(['dp:webhook_subscriber:create']);
  const reply = { status: 201, body: 'made', durationMs: 7 };
  expect((await call('POST', `/api/v0.9/webhook-listen/${ready.listenerId}/replies/${delivery.deliveryId}`, other.token, reply)).status).toBe(404);
  expect((await call('POST', `/api/v0.9/webhook-listen/${ready.listenerId}/replies/${delivery.deliveryId}`, t.adminToken, reply)).status).toBe(204);
  await expect.poll(async () => (await eventDeliveries(published.body.eventId))[0], { timeout: 10_000 }).toMatchObject({ status: 'DELIVERED', lastHttpStatus: 201 });
  // A second reply finds nothing waiting.
  expect((await call('POST', `/api/v0.9/webhook-listen/${ready.listenerId}/replies/${delivery.deliveryId}`, t.adminToken, reply)).status).toBe(404);

  expect((await call('DELETE', `/api/v0.9/webhook-listen/${ready.listenerId}`, t.adminToken)).status).toBe(204);
  expect((await t.api.get(`/api/v0.9/webhook-subscribers/${ready.listenerId}`)).status).toBe(404);
  stream.close();
}, 30_000);

test('a dropped stream leaves its listener for the CLI to resume (listen-resume.test.ts); DELETE still removes it', async () => {
  const stream = await openSse(listenUrl(), t.adminToken);
  const { listenerId } = JSON.parse((await stream.next()).data) as { listenerId: string };
  stream.close();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await t.api.get(`/api/v0.9/webhook-subscribers/${listenerId}`)).status).toBe(200);
  expect((await call('DELETE', `/api/v0.9/webhook-listen/${listenerId}`, t.adminToken)).status).toBe(204);
  expect((await t.api.get(`/api/v0.9/webhook-subscribers/${listenerId}`)).status).toBe(404);
});

test('the internal route takes only deliveries signed with the listener\'s secret', async () => {
  const stream = await openSse(listenUrl(), t.adminToken);
  const { listenerId } = JSON.parse((await stream.next()).data) as { listenerId: string };
  const forged = await fetch(`${t.host.url}/internal/listen/${listenerId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(forged.status).toBe(401);
  const gone = await fetch(`${t.host.url}/internal/listen/lst_000000000000000000000000`, { method: 'POST', body: '{}' });
  expect(gone.status).toBe(410);
  stream.close();
});

test('bad input and missing auth are refused before any stream opens', async () => {
  expect((await fetch(listenUrl())).status).toBe(401);
  const reader = await t.createToken(['dp:webhook_subscriber:read']);
  expect((await fetch(listenUrl(), { headers: { authorization: `Bearer ${reader.token}` } })).status).toBe(403);
  const bad = await fetch(listenUrl('?events=Not%20A%20Pattern'), { headers: { authorization: `Bearer ${t.adminToken}` } });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toContain('events[0]');
  expect((await fetch(listenUrl('?other=1'), { headers: { authorization: `Bearer ${t.adminToken}` } })).status).toBe(400);
  const badReply = await call('POST', '/api/v0.9/webhook-listen/lst_000000000000000000000000/replies/lsd_000000000000000000000000', t.adminToken, { status: 99, durationMs: 1 });
  expect(badReply.status).toBe(400);
  expect((await call('DELETE', '/api/v0.9/webhook-listen/lst_000000000000000000000000', t.adminToken)).status).toBe(404);
  const list = await t.api.get<{ list: unknown[] }>('/api/v0.9/webhook-subscribers');
  expect(list.body.list).toEqual([]);
});

test('a read-only instance opens no listener', async () => {
  const readOnly = await startTestHost({ overrides: { readOnly: true, logLevel: 'warn' } });
  try {
    const refused = await fetch(`${readOnly.host.url}/api/v0.9/webhook-listen`, { headers: { authorization: `Bearer ${readOnly.adminToken}` } });
    expect(refused.status).toBe(403);
    expect((await readOnly.host.herald.subscribers.list({ orgId: readOnly.config.org }, { listeners: true })).list).toEqual([]);
  } finally {
    await readOnly.close();
  }
}, 30_000);

test('12 listeners opened at once each get the next matching event', async () => {
  const streams = await Promise.all(Array.from({ length: 12 }, () => openSse(listenUrl('?events=fleet.*'), t.adminToken)));
  try {
    const ready = await Promise.all(streams.map(async (stream) => JSON.parse((await stream.next()).data) as { listenerId: string; secret: string }));
    const published = await t.api.post<{ eventId: string; deliveries: Array<{ subscriberId: string }> }>('/api/v0.9/webhook-events', { eventType: 'fleet.moved', aggregateId: 'truck-1', data: { at: 'depot' } });
    expect(published.status).toBe(201);
    // A row for each of them (a listener left by an earlier test for every event may add one).
    const rows = new Set(published.body.deliveries.map((row) => row.subscriberId));
    for (const { listenerId } of ready) expect(rows).toContain(listenerId);
    const frames = await Promise.all(streams.map((stream) => stream.next()));
    frames.forEach((frame, index) => {
      expect(frame.event).toBe('delivery');
      const delivery = JSON.parse(frame.data) as { headers: Record<string, string>; body: string };
      expect(verify(delivery.headers, delivery.body, ready[index]!.secret).eventId).toBe(published.body.eventId);
    });
    await Promise.all(ready.map(async ({ listenerId }) => expect((await call('DELETE', `/api/v0.9/webhook-listen/${listenerId}`, t.adminToken)).status).toBe(204)));
  } finally {
    for (const stream of streams) stream.close();
  }
});
