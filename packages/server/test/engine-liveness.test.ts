// A delivery worker (--engine-only) whose poll cannot finish a step: the store behind a proxy takes
// every command and answers none, and the socket timeout is longer than the stuck threshold. Its
// /healthz turns 503 (Kubernetes restarts such a pod) and /metrics shows the loop stuck; once the
// store answers again, /healthz is 200 by itself.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { startTestHost, type TestHost } from './support/test-host.js';

let database: TestDatabase;
let network: TcpProxy;
let worker: TestHost;

beforeAll(async () => {
  database = await openTestDatabase('liveness');
  network = await startTcpProxy(database.uri);
  const uri = new URL(network.uri);
  uri.searchParams.set('socketTimeoutMS', '30000');
  worker = await startTestHost({ database, mode: 'engine-only', overrides: { mongodbUri: uri.toString(), loopStuckAfterMs: 1_000 } });
});
afterAll(async () => {
  network?.release();
  await worker?.close();
  await network?.close();
  await database?.close();
});

const healthz = async () => {
  const response = await fetch(`${worker.host.url}/healthz`);
  return { status: response.status, body: (await response.json()) as { status: string } };
};

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not met within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a worker whose poll is stuck in one step fails /healthz, shows it in /metrics, and is live again once the step ends", async () => {
  expect(await healthz()).toEqual({ status: 200, body: { status: 'ok' } });

  network.hold();
  const stuck = await eventually(healthz, (answer) => answer.status === 503);
  expect(stuck.body).toEqual({ status: 'engine loop stuck' });
  // /metrics reads the store too: with every answer held it answers 503 (the store is silent), or, when it answers, says so.
  const metrics = await fetch(`${worker.host.url}/metrics`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  if (metrics?.ok) expect(await metrics.text()).toMatch(/^herald_engine_loop_stuck 1$/m);
  else expect(metrics === undefined || metrics.status === 503).toBe(true);

  await eventually(async () => worker.logs.filter((line) => line.includes('delivery loop stuck')).length, (count) => count === 1);

  network.release();
  expect(await eventually(healthz, (answer) => answer.status === 200)).toEqual({ status: 200, body: { status: 'ok' } });
  const after = await (await fetch(`${worker.host.url}/metrics`)).text();
  expect(after).toMatch(/^herald_engine_loop_stuck 0$/m);
  expect(after).toMatch(/^herald_engine_loop_step_seconds \d/m);
  expect(worker.logs.filter((line) => line.includes('delivery loop stuck'))).toHaveLength(1);
}, 60_000);
