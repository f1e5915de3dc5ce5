// A subscriber's own limits, enforced by the engine: at most maxConcurrency attempts at once and at
// most rateLimitPerSecond started per second; bad values are refused; null returns to the default.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { startSink, type Sink } from './support/sink.js';
import { eventSettles, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let slow: Sink;
let fast: Sink;
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  harness = await startHarness();
  slow = await startSink(async (_request, response) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    await new Promise((resolve) => setTimeout(resolve, 150));
    open -= 1;
    response.writeHead(204).end();
  });
  fast = await startSink();
});
afterAll(async () => {
  await harness.close();
  await Promise.all([slow.close(), fast.close()]);
});

test('maxConcurrency 1: one attempt at a time', async () => {
  await harness.herald.subscribers.create(scope, { id: 'one-at-a-time', displayName: 'serial', targetUrl: slow.url, events: ['order.*'], maxConcurrency: 1 });
  const events = await Promise.all(Array.from({ length: 6 }, (_, i) => harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `c${i}`, data: {} })));
  for (const { event } of events) expect((await eventSettles(harness.herald, event.eventId)).status).toBe('ALL_DELIVERED');
  expect(mostOpen).toBe(1);
});

test('rateLimitPerSecond 4: twelve deliveries take about two seconds', async () => {
  await harness.herald.subscribers.create(scope, { id: 'paced', displayName: 'paced', targetUrl: fast.url, events: ['invoice.*'], rateLimitPerSecond: 4 });
  const started = Date.now();
  const events = await Promise.all(Array.from({ length: 12 }, (_, i) => harness.herald.events.publish(scope, { eventType: 'invoice.paid', aggregateId: `r${i}`, data: {} })));
  for (const { event } of events) expect((await eventSettles(harness.herald, event.eventId)).status).toBe('ALL_DELIVERED');
  const times = fast.received.map((request) => request.receivedAt).sort((a, b) => a - b);
  // A burst of 4, then 4 per second: the 12th starts no earlier than 2 s after the first.
  expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1_800);
  expect(Date.now() - started).toBeLessThan(10_000);
});

test('bad limits are refused with the field; null returns to the default', async () => {
  await expect(harness.herald.subscribers.create(scope, { displayName: 'x', targetUrl: fast.url, rateLimitPerSecond: 0 })).rejects.toBeInstanceOf(ValidationError);
  await expect(harness.herald.subscribers.create(scope, { displayName: 'x', targetUrl: fast.url, maxConcurrency: 65 })).rejects.toMatchObject({ errors: [{ field: 'maxConcurrency' }] });
  const cleared = await harness.herald.subscribers.update(scope, 'paced', { rateLimitPerSecond: null });
  expect(cleared.rateLimitPerSecond).toBeUndefined();
  expect((await harness.herald.subscribers.get(scope, 'one-at-a-time')).maxConcurrency).toBe(1);
});
