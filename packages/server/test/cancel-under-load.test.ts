// Disabling and deleting subscribers while their deliveries are being retried: the store keeps
// answering, /readyz stays 200 (a busy host is not an unready one) and every route answers.
// The scenario is the one that wedged FerretDB v1 for good: one receiver that never answers, one
// that answers 500, 300 events to each from 8 publishers, then PUT enabled=false and DELETE both.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';
const EVENTS_PER_SUBSCRIBER = Number(process.env.WEDGE_EVENTS ?? 300);
const PUBLISHERS = 8;

let t: TestHost;
const receivers: Server[] = [];

async function receiver(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  server.keepAliveTimeout = 1;
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

beforeAll(async () => {
  t = await startTestHost({ overrides: { retryScheduleMs: [50, 100, 200, 400], maxAttempts: 5 } });
});
afterAll(async () => {
  await t?.close();
  for (const server of receivers) server.closeAllConnections();
  await Promise.all(receivers.map((server) => new Promise((resolve) => server.close(resolve))));
});

it('disable + delete of two subscribers in retry keeps /readyz at 200 and the store answering', { timeout: 180_000 }, async () => {
  const hanging = await receiver(() => undefined);
  const failing = await receiver((_request, response) => response.writeHead(500).end());
  const subscribers = [
    { id: 'never-answers', displayName: 'Hangs', targetUrl: hanging, events: ['order.hung'], timeoutMs: 2_000 },
    { id: 'answers-500', displayName: 'Fails', targetUrl: failing, events: ['order.failed'] },
  ];
  for (const subscriber of subscribers) expect((await t.api.post(SUBSCRIBERS, subscriber)).status).toBe(201);

  const jobs = subscribers.flatMap((subscriber) =>
    Array.from({ length: EVENTS_PER_SUBSCRIBER }, (_, i) => ({
      eventType: subscriber.events[0],
      aggregateType: 'order',
      aggregateId: `${subscriber.id}-${i}`,
      data: { i },
    })),
  );
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: PUBLISHERS }, async () => {
      while (next < jobs.length) statuses.push((await t.api.post('/api/v0.9/webhook-events', jobs[next++])).status);
    }),
  );
  expect(statuses.filter((status) => status !== 201)).toEqual([]);

  // Watch readiness and a plain read while the cancellations run, and for a while after.
  const readiness: Array<{ status: number; ms: number }> = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const started = Date.now();
      const response = await fetch(`${t.host.url}/readyz`);
      readiness.push({ status: response.status, ms: Date.now() - started });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  for (const { id } of subscribers) expect((await t.api.put(`${SUBSCRIBERS}/${id}`, { enabled: false })).status).toBe(200);
  for (const { id } of subscribers) expect((await t.api.delete(`${SUBSCRIBERS}/${id}`)).status).toBe(204);

  // A wedged store never answers a count again; a busy one (the whole suite runs beside this file)
  // answers within seconds.
  const deadline = Date.now() + 10_000;
  const collection = t.database.db.collection('herald_events');
  while (Date.now() < deadline) {
    const started = Date.now();
    await collection.countDocuments({}, { maxTimeMS: 5_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    const list = await t.api.get(SUBSCRIBERS);
    expect(list.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  watching = false;
  await watcher;

  const problems = () => t.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 40).join('\n');
  expect(readiness.length).toBeGreaterThan(20);
  expect(readiness.filter(({ status }) => status !== 200), problems()).toEqual([]);
  // What a failed cancellation left is cancelled when the engine claims it.
  const queue = t.database.db.collection<{ status: string }>('herald_delivery_queue');
  await expect
    .poll(async () => (await queue.find({}, { projection: { status: 1 } }).toArray()).map(({ status }) => status), { timeout: 20_000, interval: 500 })
    .toEqual([]);
});
