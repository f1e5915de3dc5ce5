// An interrupted fan-out completed by two writers at once (a repeated publish and a redelivery,
// say) while one of its subscribers has been disabled and another deleted: each row is written
// once, the engine delivers the row of the subscriber still enabled and cancels the others, and the
// event's counters end exact.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { collectionsFor } from '../../src/storage/collections.js';
import { eventSettles, scope, startHarness, type Harness } from './support/harness.js';
import { startSink, type Sink } from './support/sink.js';

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  receiver = await startSink();
  harness = await startHarness({ start: false });
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

test('rows completed twice at once are written once; the engine cancels those of subscribers disabled or deleted since', async () => {
  const { herald, database } = harness;
  const collections = collectionsFor(database.db, 'herald_');
  await herald.subscribers.create(scope, { id: 'staying', displayName: 'staying', targetUrl: receiver.url, events: ['order.*'] });
  await herald.subscribers.create(scope, { id: 'disabled', displayName: 'disabled', targetUrl: receiver.url, events: ['order.*'] });
  await herald.subscribers.create(scope, { id: 'deleted', displayName: 'deleted', targetUrl: receiver.url, events: ['order.*'] });
  const input = { eventType: 'order.created', aggregateId: 'o1', data: {} };
  const { event } = await herald.events.publish(scope, input, { idempotencyKey: 'completed-twice' });
  // As a crash between the event and its rows leaves it; then the subscribers change.
  await collections.queue.deleteMany({ eventId: event.eventId });
  await herald.subscribers.update(scope, 'disabled', { enabled: false });
  await herald.subscribers.delete(scope, 'deleted');

  await Promise.all([herald.events.publish(scope, input, { idempotencyKey: 'completed-twice' }), herald.events.redeliver(scope, event.eventId)]);
  expect(await collections.queue.countDocuments({ eventId: event.eventId })).toBe(3);

  await herald.start();
  const settled = await eventSettles(herald, event.eventId);
  expect(settled.status).toBe('FAILED');
  expect(settled.deliveries).toHaveLength(3);
  const byStatus = settled.deliveries.map((delivery) => `${delivery.status}:${delivery.lastError ?? ''}`).sort();
  expect(byStatus).toEqual([
    'DELIVERED:',
    expect.stringMatching(/^FAILED:Cancelled: the subscriber was deleted/),
    expect.stringMatching(/^FAILED:Cancelled: the subscriber was disabled/),
  ]);
  expect(receiver.received).toHaveLength(1);
  expect(await collections.events.findOne({ _id: event.eventId })).toMatchObject({ openDeliveries: 0, failedDeliveries: 2 });
});
