// A database that takes commands and answers none (stuck, not down: connections stay open) gets
// every route, /metrics included, a 503 within 2 s instead of a hang; /readyz turns 503; the log
// says so once; and everything answers again by itself once the database does. The proxy in front
// of the run's store (support/proxied-host.ts) holds its answers back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startProxiedHost, type ProxiedHost } from './support/proxied-host.js';
import type { TestHost } from './support/test-host.js';

let host: ProxiedHost;
let network: TcpProxy;
let t: TestHost;
let token: string;
let acceptedEventId: string;

beforeAll(async () => {
  host = await startProxiedHost('store_silent', { mode: 'api-only', scope: 'dp:webhook_subscriber:manage dp:event:read dp:event:publish dp:project:read' });
  ({ t, network, token } = host);
  expect((await t.api.post('/api/v0.9/webhook-subscribers', { id: 'kept', displayName: 'K', targetUrl: 'https://example.com/k', events: ['order.*'] }, { token })).status).toBe(201);
  const accepted = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType: 'order.placed', aggregateType: 'order', aggregateId: 'o-1', data: { n: 1 } }, { token });
  expect(accepted.status).toBe(201);
  acceptedEventId = accepted.body.eventId;
  network.hold();
});
afterAll(async () => {
  await host?.close();
});

it.each([
  ['GET', '/api/v0.9/webhook-subscribers', undefined],
  ['GET', '/api/v0.9/webhook-subscribers/kept', undefined],
  ['PUT', '/api/v0.9/webhook-subscribers/kept', { displayName: 'changed while stuck' }],
  ['GET', '/api/v0.9/webhook-events', undefined],
  ['POST', '/api/v0.9/webhook-events', { eventType: 'order.placed', aggregateType: 'order', aggregateId: 'o-2', data: { n: 2 } }],
  ['GET', '/api/v1/orgs/default/projects', undefined],
  ['GET', '/metrics', undefined],
])('%s %s → 503 within 2 s while the database answers nothing', async (method, path, json) => {
  const started = performance.now();
  const response = await t.api.request<{ code: string }>(method, path, { token, json });
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  const requestId = response.headers.get('x-request-id')!;
  const logged = t.logs.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; cause?: string }).find((entry) => entry.reqId === requestId && entry.msg === 'request failed: the database is unavailable');
  expect(logged?.cause).toBe('no answer from the database for 1.5 s');
});

it('/readyz turns 503 within 1.5 s, and the log says once that the database answers nothing', async () => {
  const started = performance.now();
  const response = await fetch(`${t.host.url}/readyz`);
  expect(performance.now() - started).toBeLessThan(1_500);
  expect(response.status).toBe(503);
  expect(await response.json()).toMatchObject({ status: 'not ready', mongo: false });
  const silenceLines = () => t.logs.filter((line) => line.includes('has answered no command'));
  await expect.poll(() => silenceLines().length, { timeout: 10_000, interval: 200 }).toBe(1);
  expect(JSON.parse(silenceLines()[0]!)).toMatchObject({ level: 50 });
});

it('answers again by itself once the database does; what was accepted before is all there', async () => {
  network.release();
  await expect.poll(async () => (await t.api.request('GET', '/api/v0.9/webhook-events', { token })).status, { timeout: 20_000, interval: 250 }).toBe(200);
  await expect.poll(async () => (await fetch(`${t.host.url}/readyz`)).status, { timeout: 5_000, interval: 250 }).toBe(200);
  await expect.poll(() => t.logs.some((line) => line.includes('the database answers again')), { timeout: 5_000 }).toBe(true);
  expect((await t.api.request('GET', `/api/v0.9/webhook-events/${acceptedEventId}`, { token })).status).toBe(200);
  expect((await t.api.request('GET', '/metrics')).status).toBe(200);
});
