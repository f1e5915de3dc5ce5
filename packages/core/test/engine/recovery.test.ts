// Recovering a subscriber's failed deliveries over a time range: asked through core, carried out by
// the engine's jobs a step at a time, each row sent again as its next attempt.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../src/index.js';
import { recoveryRange } from '../../src/deliveries/recovery.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  harness = await startHarness(); // maxAttempts 3
  receiver = await startSink(answer(503));
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

test('recoveryRange: defaults, and clear errors for a bad range', () => {
  const now = new Date('2025-01-31T12:00:00Z');
  expect(recoveryRange({ since: '2025-01-31T10:00:00Z' }, now)).toEqual({ since: new Date('2025-01-31T10:00:00Z'), until: now, statuses: ['FAILED'] });
  expect(() => recoveryRange({ since: '2025-01-31T13:00:00Z' }, now)).toThrow(ValidationError);
  expect(() => recoveryRange({ since: 'yesterday' }, now)).toThrow(ValidationError);
});

test('failed deliveries in the range are sent again as attempt 4 and the recovery completes', async () => {
  await harness.herald.subscribers.create(scope, { id: 'down-for-a-while', displayName: 'down', targetUrl: receiver.url, events: ['order.*'] });
  const published = await Promise.all(['a', 'b', 'c'].map((id) => harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: id, data: {} })));
  for (const { event } of published) expect((await eventSettles(harness.herald, event.eventId)).status).toBe('FAILED');
  expect(receiver.received).toHaveLength(9);

  receiver.setHandler(answer(204));
  const since = new Date(Date.now() - 60_000).toISOString();
  const recovery = await harness.herald.deliveries.recover(scope, 'down-for-a-while', { since });
  expect(recovery).toMatchObject({ subscriberId: 'down-for-a-while', status: 'QUEUED', statuses: ['FAILED'], requeued: 0, completedAt: null });

  const done = await eventually(() => harness.herald.deliveries.recovery(scope, 'down-for-a-while', recovery.recoveryId), (current) => current.status === 'COMPLETED');
  expect(done.requeued).toBe(3);
  for (const { event } of published) {
    const settled = await eventually(() => harness.herald.events.get(scope, event.eventId), (detail) => detail.status === 'ALL_DELIVERED');
    expect(settled.deliveries[0]).toMatchObject({ status: 'DELIVERED', attempts: 4 });
  }
  expect(receiver.received.slice(9).map((request) => request.headers['herald-attempt'])).toEqual(['4', '4', '4']);
});

test('unknown subscriber or recovery → not found; a disabled subscriber → conflict', async () => {
  await expect(harness.herald.deliveries.recover(scope, 'nobody', { since: new Date(0).toISOString() })).rejects.toBeInstanceOf(NotFoundError);
  await expect(harness.herald.deliveries.recovery(scope, 'down-for-a-while', 'rec_missing')).rejects.toBeInstanceOf(NotFoundError);
  await harness.herald.subscribers.create(scope, { id: 'switched-off', displayName: 'off', targetUrl: receiver.url, enabled: false });
  await expect(harness.herald.deliveries.recover(scope, 'switched-off', { since: new Date(0).toISOString() })).rejects.toBeInstanceOf(ConflictError);
});
