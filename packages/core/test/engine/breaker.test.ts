// Endpoint health end to end: a receiver that keeps failing gets its deliveries held — PENDING,
// attempts untouched, one probe at a time — and when it answers again the backlog drains; the
// state shows on the subscriber. Nothing is skipped or failed because the endpoint was down.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventually, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  harness = await startHarness({ delivery: { maxAttempts: 20, retrySchedule: [100], breaker: { failures: 3, windowMs: 0, probeBackoffMs: [400] } } });
  receiver = await startSink(answer(503));
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

test('held while down, probed one at a time, drained when back', async () => {
  await harness.herald.subscribers.create(scope, { id: 'flaky-endpoint', displayName: 'flaky', targetUrl: receiver.url, events: ['order.*'] });
  const first = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o0', data: {} });
  await eventually(() => harness.herald.subscribers.get(scope, 'flaky-endpoint'), (subscriber) => subscriber.health?.state === 'open');

  const atOpening = receiver.received.length;
  const held = await Promise.all(Array.from({ length: 5 }, (_, i) => harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `o${i + 1}`, data: {} })));
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  // While open only probes reach the receiver, one at a time every 400 ms, each a row's real attempt;
  // every other row waits PENDING with no attempt spent.
  const probes = receiver.received.length - atOpening;
  expect(probes).toBeGreaterThanOrEqual(1);
  expect(probes).toBeLessThanOrEqual(5);
  const rows = await Promise.all(held.map(async ({ event }) => (await harness.herald.events.get(scope, event.eventId)).deliveries[0]!));
  expect(rows.every((row) => row.status === 'PENDING')).toBe(true);
  expect(rows.reduce((sum, row) => sum + row.attempts, 0)).toBeLessThanOrEqual(probes);
  expect(rows.filter((row) => row.attempts === 0).length).toBeGreaterThanOrEqual(5 - probes);
  const subscriber = await harness.herald.subscribers.get(scope, 'flaky-endpoint');
  expect(subscriber.health).toMatchObject({ state: 'open', lastError: expect.stringContaining('503') });

  receiver.setHandler(answer(204));
  for (const { event } of [first, ...held]) {
    expect((await eventually(() => harness.herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED', 20_000)).status).toBe('ALL_DELIVERED');
  }
  expect((await harness.herald.subscribers.get(scope, 'flaky-endpoint')).health).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
});
