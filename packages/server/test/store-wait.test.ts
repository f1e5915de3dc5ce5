// A host started while its database cannot be reached stays up: it answers on its port (/healthz
// 200, /readyz 503 naming the database, the API 503 with Retry-After), says so once in its log, and
// starts by itself when the database comes back. Later outages are named by /readyz too.
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startTestHost, type TestHost } from './support/test-host.js';

let database: TestDatabase;
let network: TcpProxy;
let host: TestHost | undefined;

beforeAll(async () => {
  database = await openTestDatabase('store_wait');
  network = await startTcpProxy(database.uri);
});
afterAll(async () => {
  network?.restore();
  await host?.close();
  await network?.close();
  await database?.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not met within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('started with the database unreachable, the host answers 503 and names it, then starts by itself when it answers', async () => {
  const port = await freePort();
  const uri = new URL(network.uri);
  uri.searchParams.set('serverSelectionTimeoutMS', '500');
  const proxied = `127.0.0.1:${uri.port}`;
  network.cut();
  const starting = startTestHost({ database, overrides: { mongodbUri: uri.toString(), port } });
  const base = `http://127.0.0.1:${port}`;

  const live = await eventually(() => fetch(`${base}/healthz`), (response) => response.status === 200);
  expect(await live.json()).toEqual({ status: 'ok' });
  const ready = await fetch(`${base}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'not ready', mongo: false, engine: 'stopped', database: `${proxied} does not answer` });
  const api = await fetch(`${base}/api/v0.9/webhook-subscribers`, { headers: { authorization: 'Bearer whatever' } });
  expect(api.status).toBe(503);
  expect(api.headers.get('retry-after')).toBe('5');
  const body = (await api.json()) as { status: string; code: string; message: string };
  expect(body).toMatchObject({ status: 'error', code: 'SERVICE_UNAVAILABLE' });
  // Only /readyz names the database.
  expect(body.message).not.toContain(uri.port);

  network.restore();
  host = await starting;
  expect(host.host.url).toBe(base);
  expect(host.logs.filter((line) => line.includes('cannot reach the database'))).toHaveLength(1);
  expect(host.logs.some((line) => line.includes('the database answers; starting'))).toBe(true);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
  expect((await host.api.get('/api/v0.9/webhook-subscribers')).status).toBe(200);

  // A later outage: /readyz names the database again.
  network.cut();
  const down = await eventually(() => fetch(`${base}/readyz`), (response) => response.status === 503);
  expect(await down.json()).toMatchObject({ status: 'not ready', mongo: false, database: `${proxied} does not answer` });
  network.restore();
  await eventually(() => fetch(`${base}/readyz`), (response) => response.status === 200);
}, 90_000);
