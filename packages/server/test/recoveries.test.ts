// POST /webhook-subscribers/{id}/recover and GET …/recoveries/{recoveryId} over real HTTP: bad
// input, scopes, and a real failed delivery sent again to a loopback receiver.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const BASE = '/api/v0.9/webhook-subscribers';
let t: TestHost;
let receiver: Server;
let answer = 500;
const attempts: string[] = [];

interface Recovery { recoveryId: string; subscriberId: string; status: string; requeued: number; statuses: string[] }

beforeAll(async () => {
  t = await startTestHost({ overrides: { retryScheduleMs: [50], maxAttempts: 1 } });
  receiver = createServer((request, response) => {
    attempts.push(String(request.headers['herald-attempt']));
    response.writeHead(answer).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  expect((await t.api.post(BASE, { id: 'was-down', displayName: 'Was down', targetUrl: url, events: ['order.*'] })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

it('a failed delivery is sent again as attempt 2; the recovery completes and says how many', async () => {
  const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'order.created', aggregateId: 'o1', data: {} });
  expect(published.status).toBe(201);
  await expect.poll(async () => (await t.api.get<{ status: string }>(`/api/v0.9/webhook-events/${published.body.eventId}`)).body.status, { timeout: 15_000 }).toBe('FAILED');

  answer = 204;
  const asked = await t.api.post<Recovery>(`${BASE}/was-down/recover`, { since: new Date(Date.now() - 60_000).toISOString() });
  expect(asked.status).toBe(202);
  expect(asked.body).toMatchObject({ subscriberId: 'was-down', status: 'QUEUED', statuses: ['FAILED'], requeued: 0 });
  expect(asked.headers.get('location')).toMatch(new RegExp(`${BASE}/was-down/recoveries/${asked.body.recoveryId}$`));

  await expect.poll(async () => (await t.api.get<Recovery>(`${BASE}/was-down/recoveries/${asked.body.recoveryId}`)).body.status, { timeout: 15_000 }).toBe('COMPLETED');
  expect((await t.api.get<Recovery>(`${BASE}/was-down/recoveries/${asked.body.recoveryId}`)).body.requeued).toBe(1);
  await expect.poll(async () => (await t.api.get<{ status: string }>(`/api/v0.9/webhook-events/${published.body.eventId}`)).body.status, { timeout: 15_000 }).toBe('ALL_DELIVERED');
  expect(attempts).toEqual(['1', '2']);
});

it.each([
  [{}, 'since'],
  [{ since: 'yesterday' }, 'since'],
  [{ since: '2025-01-02T00:00:00Z', until: '2025-01-01T00:00:00Z' }, 'until'],
  [{ since: '2025-01-01T00:00:00Z', statuses: ['PENDING'] }, 'statuses'],
  [{ since: '2025-01-01T00:00:00Z', everything: true }, 'everything'],
])('400 with the field for %j', async (body, field) => {
  const response = await t.api.post<{ code: string; errors: Array<{ field: string }> }>(`${BASE}/was-down/recover`, body);
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('MISSING_REQUIRED_PARAMETER');
  expect(response.body.errors.map((issue) => issue.field).join(' ')).toContain(field);
});

it('404 for an unknown subscriber or recovery; 403 without dp:delivery:manage; 401 without a token', async () => {
  expect((await t.api.post(`${BASE}/nobody/recover`, { since: '2025-01-01T00:00:00Z' })).status).toBe(404);
  expect((await t.api.get(`${BASE}/was-down/recoveries/rec_0000000000000000`)).status).toBe(404);
  expect((await t.api.get(`${BASE}/was-down/recoveries/not-an-id`)).status).toBe(400);
  const reader = await t.createToken(['dp:webhook_subscriber:read']);
  expect((await t.api.post(`${BASE}/was-down/recover`, { since: '2025-01-01T00:00:00Z' }, { token: reader.token })).status).toBe(403);
  expect((await t.api.request('POST', `${BASE}/was-down/recover`, { token: '', json: { since: '2025-01-01T00:00:00Z' } })).status).toBe(401);
});
