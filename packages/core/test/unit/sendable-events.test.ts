// Events kept for the poll's sends (engine/store/sendable-events.ts), pure.
import { expect, test } from 'vitest';
import { SendableEvents, sendableEventBytes } from '../../src/engine/store/sendable-events.js';
import type { EventDocument } from '../../src/storage/documents.js';

const event = (id: string, data = '{}'): EventDocument => ({
  _id: id,
  orgId: 'acme',
  eventType: 'order.created',
  aggregateType: 'order',
  aggregateId: 'o-1',
  status: 'DISPATCHED',
  occurredAt: new Date(0),
  createdAt: new Date(0),
  updatedAt: new Date(0),
  data,
  sensitiveFields: [],
  subscriberIds: ['s1', 's2'],
  deliveryCount: 2,
  openDeliveries: 2,
  failedDeliveries: 0,
});

test('keeps what an attempt needs and its row count, not the subscriber list or the counters, which change', () => {
  const kept = new SendableEvents();
  kept.remember(event('e1', '{"total":1}'));
  const found = kept.get('e1');
  expect(found).toMatchObject({ _id: 'e1', eventType: 'order.created', data: '{"total":1}' });
  for (const changing of ['subscriberIds', 'status', 'openDeliveries', 'failedDeliveries', 'updatedAt']) expect(found).not.toHaveProperty(changing);
  expect(found?.deliveryCount).toBe(2);
  expect(kept.get('e2')).toBeUndefined();
});

test('at most maxEvents: the least recently used goes first', () => {
  const kept = new SendableEvents({ maxEvents: 2, maxBytes: 1_000_000 });
  kept.remember(event('e1'));
  kept.remember(event('e2'));
  kept.get('e1');
  kept.remember(event('e3'));
  expect(kept.size).toBe(2);
  expect(kept.get('e2')).toBeUndefined();
  expect(kept.get('e1')).toBeDefined();
  expect(kept.get('e3')).toBeDefined();
});

test('at most maxBytes of payload; remembering an event again does not count it twice; one too big is not kept', () => {
  const one = sendableEventBytes(event('e1', 'x'.repeat(1_000)));
  const kept = new SendableEvents({ maxEvents: 100, maxBytes: one * 2 });
  kept.remember(event('e1', 'x'.repeat(1_000)));
  kept.remember(event('e1', 'x'.repeat(1_000)));
  kept.remember(event('e2', 'x'.repeat(1_000)));
  expect(kept.size).toBe(2);
  kept.remember(event('e3', 'x'.repeat(1_000)));
  expect(kept.size).toBe(2);
  expect(kept.get('e1')).toBeUndefined();
  kept.remember(event('huge', 'x'.repeat(one * 3)));
  expect(kept.get('huge')).toBeUndefined();
  expect(kept.size).toBe(2);
});
