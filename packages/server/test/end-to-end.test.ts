// The whole path over HTTP: create a subscriber → publish an event → a loopback sink receives a
// signed delivery that verifies with @herald/receiver (sensitive field decrypts) → the event reads
// ALL_DELIVERED with attempt history → the subscriber's deliveries list shows it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decryptFields, verify } from '@herald/receiver';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const SECRET = 'e2e-shared-secret-0123456789';
let t: TestHost;
let sink: Server;
let sinkUrl: string;
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  sink = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hooks`;
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => sink?.close(resolve));
});

it('delivers a published event to the subscriber, signed and encrypted, and records it', async () => {
  const created = await t.api.post('/api/v0.9/webhook-subscribers', {
    id: 'e2e-sink',
    displayName: 'E2E sink',
    targetUrl: sinkUrl,
    secret: SECRET,
    events: ['apikey.*'],
  });
  expect(created.status).toBe(201);

  const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', {
    eventType: 'apikey.generated',
    aggregateType: 'apikey',
    aggregateId: 'key-7',
    data: { name: 'deploy', token: 'plain-token-value' },
    sensitive: ['token'],
  });
  expect(published.status).toBe(201);
  const { eventId } = published.body;

  await expect.poll(() => received.length, { timeout: 15_000, interval: 100 }).toBeGreaterThanOrEqual(1);
  const delivery = received[0]!;
  const verified = verify(delivery.headers, delivery.body, SECRET);
  expect(verified.eventId).toBe(eventId);
  const payload = verified.payload as { type: string; id: string; data: Record<string, unknown>; encryptedFields: string[] };
  expect(payload).toMatchObject({ type: 'apikey.generated', id: eventId, encryptedFields: ['token'] });
  expect(delivery.body).not.toContain('plain-token-value');
  expect(decryptFields(payload.data, SECRET, verified.profile, payload.encryptedFields)).toEqual({ name: 'deploy', token: 'plain-token-value' });
  expect(() => verify(delivery.headers, delivery.body, 'some-other-secret-value')).toThrow();

  await expect
    .poll(async () => (await t.api.get<{ status: string }>(`/api/v0.9/webhook-events/${eventId}`)).body.status, { timeout: 10_000 })
    .toBe('ALL_DELIVERED');
  const event = await t.api.get<{
    deliveries: Array<{ subscriberId: string; status: string; lastHttpStatus: number; deliveredAt: string; attemptHistory: Array<{ attempt: number; httpStatus: number; durationMs: number }> }>;
  }>(`/api/v0.9/webhook-events/${eventId}`);
  const [row] = event.body.deliveries;
  expect(row).toMatchObject({ subscriberId: 'e2e-sink', status: 'DELIVERED', lastHttpStatus: 204 });
  expect(Date.parse(row!.deliveredAt)).not.toBeNaN();
  expect(row!.attemptHistory[0]).toMatchObject({ attempt: 1, httpStatus: 204 });

  const deliveries = await t.api.get<{ list: Array<{ deliveryId: string; eventType: string; status: string }> }>(
    '/api/v0.9/webhook-subscribers/e2e-sink/deliveries',
  );
  expect(deliveries.status).toBe(200);
  expect(deliveries.body.list[0]).toMatchObject({ eventType: 'apikey.generated', status: 'DELIVERED' });

  const metrics = await fetch(`${t.host.url}/metrics`).then((response) => response.text());
  expect(metrics).toMatch(/herald_delivery_attempts_total\{outcome="delivered"\} [1-9]/);
  expect(metrics).toMatch(/herald_delivery_attempt_duration_seconds_count [1-9]/);
  expect(metrics).toMatch(/herald_delivery_queue_depth 0/);
  expect(metrics).toMatch(/herald_subscriber_attempts_total\{org="default",subscriber="e2e-sink",outcome="delivered"\} [1-9]/);
  expect(metrics).toMatch(/herald_delivery_first_attempt_latency_seconds_count [1-9]/);
  expect(metrics).toMatch(/herald_delivery_first_attempt_latency_seconds_bucket\{le="\+Inf"\} [1-9]/);
  expect(t.logs.join('\n')).not.toContain(SECRET);
});

it('graceful shutdown lets an in-flight delivery finish before closing', async () => {
  let answered = 0;
  const slowSink = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      setTimeout(() => {
        answered += 1;
        response.writeHead(200).end('ok');
      }, 1_500);
    });
  });
  await new Promise<void>((resolve) => slowSink.listen(0, '127.0.0.1', resolve));
  const host = await startTestHost({ overrides: { drainTimeoutMs: 10_000 } });
  try {
    const target = `http://127.0.0.1:${(slowSink.address() as AddressInfo).port}/slow`;
    expect((await host.api.post('/api/v0.9/webhook-subscribers', { id: 'slow', displayName: 'Slow', targetUrl: target })).status).toBe(201);
    const published = await host.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'order.created', aggregateId: 'o-1', data: {} });
    expect(published.status).toBe(201);
    await expect.poll(async () => (await fetch(`${host.host.url}/metrics`).then((r) => r.text())).match(/herald_deliveries_in_flight (\d+)/)?.[1], { timeout: 10_000 }).toBe('1');

    await host.host.close();
    expect(answered).toBe(1);
    // Settled rows live in the history collection (core's model/delivery-rows.ts).
    const row = await host.database.db.collection('herald_deliveries').findOne({ eventId: published.body.eventId });
    expect(row?.status).toBe('DELIVERED');
  } finally {
    await host.close().catch(() => undefined);
    await new Promise((resolve) => slowSink.close(resolve));
  }
});
