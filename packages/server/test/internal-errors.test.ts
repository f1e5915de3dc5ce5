// With the database unreachable every operation answers quickly with 503 SERVICE_UNAVAILABLE and
// a Retry-After (docs/server.md "When the database is unavailable"), never a 500 and never a hang;
// the log names the cause. The network to the run's store is cut and restored (the store keeps its
// data), so this runs on either store path. Credentials are a JWT here, so authentication itself
// needs no database.
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startTestHost, type TestHost } from './support/test-host.js';

let store: TestDatabase;
let network: TcpProxy;
let t: TestHost;
let token: string;

beforeAll(async () => {
  store = await openTestDatabase('internal_errors');
  network = await startTcpProxy(store.uri);
  const proxied = new URL(network.uri);
  proxied.searchParams.set('serverSelectionTimeoutMS', '500');
  proxied.searchParams.set('connectTimeoutMS', '500');
  const uri = proxied.toString();
  const client = new MongoClient(uri);
  const database = { uri, client, db: client.db(store.dbName), dbName: store.dbName, close: async () => { await client.close(); } };
  const keys = await generateKeyPair('ES256', { extractable: true });
  t = await startTestHost({ database, overrides: { jwt: { publicKeyPem: await exportSPKI(keys.publicKey) } } });
  token = await new SignJWT({ org: 'default', scope: 'dp:webhook_subscriber:manage dp:event:read' })
    .setProtectedHeader({ alg: 'ES256' })
    .setSubject('ops-user')
    .setExpirationTime('10m')
    .sign(keys.privateKey);
  const created = await t.api.post('/api/v0.9/webhook-subscribers', { id: 'doomed', displayName: 'D', targetUrl: 'https://example.com/d' }, { token });
  expect(created.status).toBe(201);
  network.cut();
});
afterAll(async () => {
  network?.restore();
  await Promise.race([t?.close(), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  await t?.database.close();
  await network?.close();
  await store?.close();
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
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  const requestId = response.headers.get('x-request-id')!;
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
