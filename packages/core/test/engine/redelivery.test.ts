// A redelivered row starts a fresh retry budget while its attempt numbers go on: the receiver and
// the attempt history see attempt 4 after attempts 1–3, never a second attempt 1.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  harness = await startHarness(); // maxAttempts 3
  receiver = await startSink(answer(500));
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

test('attempts 1–3 fail, a redelivery sends attempt 4 with a budget of its own, and the history has all four', async () => {
  await harness.herald.subscribers.create(scope, { displayName: 'flaky', targetUrl: receiver.url, events: ['order.*'] });
  const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'r1', data: {} });
  expect((await eventSettles(harness.herald, event.eventId)).status).toBe('FAILED');
  expect(receiver.received.map((request) => request.headers['herald-attempt'])).toEqual(['1', '2', '3']);

  receiver.setHandler(answer(204));
  await harness.herald.events.redeliver(scope, event.eventId);
  const settled = await eventually(() => harness.herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED');
  expect(receiver.received.map((request) => request.headers['herald-attempt'])).toEqual(['1', '2', '3', '4']);
  expect(settled.deliveries[0]).toMatchObject({ status: 'DELIVERED', attempts: 4 });
  expect(settled.deliveries[0]!.attemptHistory.map((attempt) => attempt.attempt).sort()).toEqual([1, 2, 3, 4]);
});
