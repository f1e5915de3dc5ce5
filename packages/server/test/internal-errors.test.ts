// With the database unreachable every operation answers quickly with 503 SERVICE_UNAVAILABLE and
// a Retry-After (docs/server.md "When the database is unavailable"), never a 500 and never a hang;
// the log names the cause. The network to the run's store is cut and restored (the store keeps its
// data; support/proxied-host.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startProxiedHost, type ProxiedHost } from './support/proxied-host.js';
import type { TestHost } from './support/test-host.js';

let host: ProxiedHost;
let network: TcpProxy;
let t: TestHost;
let token: string;

beforeAll(async () => {
  host = await startProxiedHost('internal_errors', {
    scope: 'dp:webhook_subscriber:manage dp:event:read',
    uriParams: { serverSelectionTimeoutMS: '500', connectTimeoutMS: '500' },
  });
  ({ t, network, token } = host);
  const created = await t.api.post('/api/v0.9/webhook-subscribers', { id: 'doomed', displayName: 'D', targetUrl: 'https://example.com/d' }, { token });
  expect(created.status).toBe(201);
  network.cut();
});
afterAll(async () => {
  await host?.close();
});

it.each([
  ['POST', '/api/v0.9/webhook-subscribers', { displayName: 'x', targetUrl: 'https://example.com/x' }],
  ['GET', '/api/v0.9/webhook-subscribers', undefined],
  ['GET', '/api/v0.9/webhook-subscribers/doomed', undefined],
  ['PUT', '/api/v0.9/webhook-subscribers/doomed', { displayName: 'y' }],
  ['DELETE', '/api/v0.9/webhook-subscribers/doomed', undefined],
  ['GET', '/api/v0.9/webhook-subscribers/doomed/deliveries', undefined],
  ['GET', '/api/v0.9/webhook-events', undefined],
  ['GET', '/api/v0.9/webhook-events/some-event', undefined],
])('%s %s → 503 SERVICE_UNAVAILABLE with Retry-After, within seconds', async (method, path, json) => {
  const started = performance.now();
  const response = await t.api.request<{ status: string; code: string; message: string }>(method, path, { token, json });
  expect(performance.now() - started).toBeLessThan(3_000);
  const requestId = response.headers.get('x-request-id')!;
  // Any other answer names its cause in the failure: the host's own log lines for the request.
  expect(response.status, JSON.stringify(t.logs.filter((line) => line.includes(requestId)))).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(response.body).toEqual({ status: 'error', code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable; retry shortly' });
  expect(response.text).not.toMatch(/\bat .+:\d+:\d+/);
  const logLine = t.logs.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; cause?: string }).find((entry) => entry.reqId === requestId && entry.msg === 'request failed: the database is unavailable');
  expect(logLine?.cause).toBeTypeOf('string');
});

it('requests queued behind a failing one fail fast too', async () => {
  const started = performance.now();
  const responses = await Promise.all(Array.from({ length: 10 }, () => t.api.request('GET', '/api/v0.9/webhook-events', { token })));
  expect(responses.map((response) => response.status)).toEqual(Array(10).fill(503));
  expect(performance.now() - started).toBeLessThan(5_000);
});

it('/readyz turns 503 within a second when MongoDB is unreachable', async () => {
  const started = performance.now();
  const response = await fetch(`${t.host.url}/readyz`);
  expect(performance.now() - started).toBeLessThan(1_500);
  expect(response.status).toBe(503);
  expect(await response.json()).toMatchObject({ status: 'not ready', mongo: false });
});

it('answers again by itself once the database is back, and the requests that failed changed nothing', async () => {
  network.restore();
  await expect.poll(async () => (await t.api.request('GET', '/api/v0.9/webhook-events', { token })).status, { timeout: 20_000, interval: 250 }).toBe(200);
  await expect.poll(async () => (await fetch(`${t.host.url}/readyz`)).status, { timeout: 5_000, interval: 250 }).toBe(200);
  const doomed = await t.api.request<{ displayName: string }>('GET', '/api/v0.9/webhook-subscribers/doomed', { token });
  expect(doomed.status).toBe(200);
  expect(doomed.body.displayName).toBe('D');
});
