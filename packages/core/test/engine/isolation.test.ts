// A receiver that hangs holds only its own subscriber's slots and connections: a healthy
// subscriber on the same host and port keeps being delivered at once, and its timeout is never
// charged with time spent waiting behind the hanging one.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSink, type Sink } from './support/sink.js';
import { scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let sink: Sink;

beforeAll(async () => {
  // One origin: `/hang` never answers, every other path answers 204 at once.
  sink = await startSink((request, response) => {
    if (request.path.startsWith('/hang')) return;
    response.writeHead(204).end();
  });
  harness = await startHarness({ delivery: { perSubscriberConcurrency: 2, concurrency: 8, retrySchedule: [60_000] } });
});
afterAll(async () => {
  await harness.herald.stop({ drainTimeoutMs: 100 }); // the hanging attempts are aborted and handed back
  await harness.close();
  await sink.close();
});

test('a healthy subscriber beside a hanging one on the same origin is delivered at once, every time', async () => {
  const origin = `http://127.0.0.1:${sink.port}`;
  await harness.herald.subscribers.create(scope, { id: 'hanging', displayName: 'hanging', targetUrl: `${origin}/hang`, timeoutMs: 20_000, events: ['order.*'] });
  await harness.herald.subscribers.create(scope, { id: 'healthy', displayName: 'healthy', targetUrl: `${origin}/ok`, timeoutMs: 1_000, events: ['order.*'] });

  // More events than the hanging subscriber has slots: its rows queue up, the healthy ones do not.
  const latencies: number[] = [];
  for (let i = 0; i < 6; i++) {
    const started = Date.now();
    const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `o-${i}`, data: { i } });
    const healthyRow = event.deliveries.find((row) => row.subscriberId === 'healthy')!;
    await expect.poll(() => sink.received.some((request) => request.headers['herald-delivery-id'] === healthyRow.deliveryId), { timeout: 5_000, interval: 10 }).toBe(true);
    latencies.push(Date.now() - started);
  }
  // Far below the healthy subscriber's own 1 s timeout, let alone the hanging one's 20 s.
  expect(Math.max(...latencies)).toBeLessThan(900);
  const hangingRequests = sink.received.filter((request) => request.path.startsWith('/hang')).length;
  expect(hangingRequests).toBe(2); // its two slots, held; the rest of its rows wait in the store

  // Recorded as an ordinary success (the hanging rows settle only after their own timeouts).
  const latest = (await harness.herald.events.list(scope, { limit: 1 })).list[0]!.eventId;
  await expect
    .poll(async () => (await harness.herald.events.get(scope, latest)).deliveries.find((row) => row.subscriberId === 'healthy')?.status)
    .toBe('DELIVERED');
});
