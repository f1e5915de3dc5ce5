// The 500 rows of the spec's tables: with MongoDB gone, every operation answers 500
// INTERNAL_SERVER_ERROR naming the request id, without a stack trace; the log has the details.
// Credentials are a JWT here, so authentication itself needs no database.
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFerretDb, type RunningFerretDb } from '../../../test/support/ferretdb.js';
import { startTestHost, type TestHost } from './support/test-host.js';
import { MongoClient } from 'mongodb';

let ferret: RunningFerretDb;
let t: TestHost;
let token: string;

beforeAll(async () => {
  ferret = await startFerretDb();
  const uri = `${ferret.uri}?serverSelectionTimeoutMS=500&connectTimeoutMS=500`;
  const client = new MongoClient(uri);
  const dbName = 'internal_errors';
  const database = { uri, client, db: client.db(dbName), dbName, close: async () => { await client.close(); } };
  const keys = await generateKeyPair('ES256', { extractable: true });
  t = await startTestHost({ database, overrides: { jwt: { publicKeyPem: await exportSPKI(keys.publicKey) } } });
  token = await new SignJWT({ org: 'default', scope: 'dp:webhook_subscriber:manage dp:event:read' })
    .setProtectedHeader({ alg: 'ES256' })
    .setSubject('ops-user')
    .setExpirationTime('10m')
    .sign(keys.privateKey);
  const created = await t.api.post('/api/v0.9/webhook-subscribers', { id: 'doomed', displayName: 'D', targetUrl: 'https://example.com/d' }, { token });
  expect(created.status).toBe(201);
  await ferret.stop();
});
afterAll(async () => {
  await Promise.race([t?.close(), new Promise((resolve) => setTimeout(resolve, 10_000))]);
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
])('%s %s → 500 INTERNAL_SERVER_ERROR with the request id and no stack', async (method, path, json) => {
  const response = await t.api.request<{ status: string; code: string; message: string }>(method, path, { token, json });
  expect(response.status).toBe(500);
  const requestId = response.headers.get('x-request-id')!;
  expect(response.body).toEqual({ status: 'error', code: 'INTERNAL_SERVER_ERROR', message: `Internal server error (request id ${requestId})` });
  expect(response.text).not.toMatch(/\bat .+:\d+:\d+/);
  const logLine = t.logs.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; err?: { stack?: string } }).find(
    (entry) => entry.reqId === requestId && entry.msg === 'request failed',
  );
  expect(logLine?.err?.stack).toBeTypeOf('string');
});

it('/readyz turns 503 when MongoDB is unreachable', async () => {
  const response = await fetch(`${t.host.url}/readyz`);
  expect(response.status).toBe(503);
  expect(await response.json()).toMatchObject({ status: 'not ready', mongo: false });
});
