// Auto-disable over the HTTP API: the reason a delivery engine stored is served (and matches the
// OpenAPI document), a request cannot set it, and enabling the subscriber again through PUT clears
// it. The engine is a second Herald on the host's database, as a worker replica would be, whose
// clock the test moves past the limit; the host serves the API only. The receiver always fails.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHerald, type Herald } from '@herald/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
const DAY = 86_400_000;
let t: TestHost;
let worker: Herald;
let receiver: Server;
let offsetMs = 0;

interface Subscriber { id: string; enabled: boolean; health?: { state: string }; disabledReason?: { code: string; message: string; at: string } }

beforeAll(async () => {
  t = await startTestHost({ mode: 'api-only' });
  receiver = createServer((_request, response) => response.writeHead(503).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  worker = await createHerald({
    mongo: { uri: t.database.uri, dbName: t.database.dbName },
    masterKeys: t.config.masterKeys,
    now: () => new Date(Date.now() + offsetMs),
    delivery: {
      ssrfAllowList: ['127.0.0.0/8'],
      retrySchedule: [100],
      maxAttempts: 50,
      pollIntervalMs: 100,
      maintenanceIntervalMs: 300,
      jobPollIntervalMs: 200,
      breaker: { failures: 2, windowMs: 0, probeBackoffMs: [1_000] },
      autoDisableAfterMs: 5 * DAY,
    },
  });
  await worker.start();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  expect((await t.api.post(BASE, { id: 'always-down', displayName: 'Always down', targetUrl: url, events: ['order.*'] })).status).toBe(201);
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

it('a request cannot set disabledReason', async () => {
  const refused = await t.api.put<{ code: string }>(`${BASE}/always-down`, { enabled: false, disabledReason: { code: 'AUTO_DISABLED', message: 'x', at: new Date().toISOString() } });
  expect(refused.status).toBe(400);
  expect((await t.api.get<Subscriber>(`${BASE}/always-down`)).body.enabled).toBe(true);
});

it('the API serves the reason while disabled and clears it when the subscriber is enabled again', async () => {
  expect((await t.api.post('/api/v0.9/webhook-events', { eventType: 'order.created', aggregateId: 'o1', data: {} })).status).toBe(201);
  await expect.poll(async () => (await t.api.get<Subscriber>(`${BASE}/always-down`)).body.health?.state, { timeout: 15_000 }).toBe('open');
  offsetMs = 5 * DAY + 60_000;
  await expect.poll(async () => (await t.api.get<Subscriber>(`${BASE}/always-down`)).body.enabled, { timeout: 20_000 }).toBe(false);

  const got = await t.api.get<Subscriber>(`${BASE}/always-down`);
  expect(got.body.disabledReason).toMatchObject({ code: 'AUTO_DISABLED', message: expect.stringContaining('HTTP 503') });
  const listed = await t.api.get<{ list: Subscriber[] }>(BASE);
  expect(listed.body.list.find((subscriber) => subscriber.id === 'always-down')?.disabledReason?.code).toBe('AUTO_DISABLED');
  // Its pending delivery ended FAILED, and Herald published its notice to the org.
  const events = async () => (await t.api.get<{ list: Array<{ eventType: string; status: string }> }>('/api/v0.9/webhook-events')).body.list;
  await expect.poll(async () => (await events()).find((event) => event.eventType === 'order.created')?.status, { timeout: 10_000 }).toBe('FAILED');
  expect((await events()).some((event) => event.eventType === 'herald.subscriber_disabled')).toBe(true);

  offsetMs = 0;
  const enabled = await t.api.put<Subscriber>(`${BASE}/always-down`, { enabled: true });
  expect(enabled.status).toBe(200);
  expect(enabled.body.enabled).toBe(true);
  expect(enabled.body.disabledReason).toBeUndefined();
  expect(t.api.validatedResponses).toBeGreaterThan(5);
});
