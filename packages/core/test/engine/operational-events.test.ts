// Herald's own events: published through its own pipeline to subscribers that ask for `herald.*`,
// never to `*`; callers cannot publish the reserved family.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ValidationError } from '../../src/index.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let failing: Sink;
let operations: Sink;
let everything: Sink;

const typesAt = (sink: Sink) => sink.received.map((request) => (JSON.parse(request.body.toString()) as { type: string }).type);

beforeAll(async () => {
  harness = await startHarness({ delivery: { maxAttempts: 1, breaker: { failures: 2, windowMs: 0, probeBackoffMs: [300] } } });
  [failing, operations, everything] = await Promise.all([startSink(answer(500)), startSink(answer(204)), startSink(answer(204))]);
  await harness.herald.subscribers.create(scope, { id: 'broken', displayName: 'broken', targetUrl: failing.url, events: ['order.*'] });
  await harness.herald.subscribers.create(scope, { id: 'ops-team', displayName: 'ops', targetUrl: operations.url, events: ['herald.*'] });
  await harness.herald.subscribers.create(scope, { id: 'firehose', displayName: 'all', targetUrl: everything.url, events: ['*'] });
});
afterAll(async () => {
  await harness.close();
  await Promise.all([failing, operations, everything].map((sink) => sink.close()));
});

test('exhausted deliveries, an opened and a recovered breaker, and a completed recovery reach herald.* subscribers only', async () => {
  const since = new Date(Date.now() - 1_000).toISOString();
  for (const id of ['o1', 'o2']) {
    const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: id, data: {} });
    await eventSettles(harness.herald, event.eventId);
  }
  await eventually(async () => typesAt(operations), (types) => types.includes('herald.subscriber_failing') && types.filter((type) => type === 'herald.delivery_exhausted').length >= 2);
  const exhausted = operations.received.map((request) => JSON.parse(request.body.toString()) as { type: string; data: Record<string, unknown> }).find((body) => body.type === 'herald.delivery_exhausted');
  expect(exhausted?.data).toMatchObject({ subscriberId: 'broken', eventType: 'order.created', attempts: 1, lastError: expect.stringContaining('500') });

  failing.setHandler(answer(204));
  await harness.herald.deliveries.recover(scope, 'broken', { since });
  await eventually(async () => typesAt(operations), (types) => types.includes('herald.subscriber_recovered') && types.includes('herald.recovery_completed'), 20_000);
  // The firehose got the orders but none of Herald's notices.
  expect(typesAt(everything).every((type) => !type.startsWith('herald.'))).toBe(true);
  expect(typesAt(everything).filter((type) => type === 'order.created')).toHaveLength(2);
});

test('callers cannot publish the reserved family', async () => {
  await expect(harness.herald.events.publish(scope, { eventType: 'herald.delivery_exhausted', aggregateId: 'x', data: {} })).rejects.toBeInstanceOf(ValidationError);
});

test('the catalog documents each of them, with an example that fits its schema; configuring the family is refused', async () => {
  const types = harness.herald.catalog.list().filter((definition) => definition.type.startsWith('herald.'));
  expect(types.map((definition) => definition.type).sort()).toEqual(['herald.delivery_exhausted', 'herald.delivery_stalled', 'herald.recovery_completed', 'herald.subscriber_disabled', 'herald.subscriber_failing', 'herald.subscriber_recovered']);
  for (const definition of types) {
    expect(definition.description).toBeTypeOf('string');
    expect(harness.herald.catalog.get(definition.type)).toBeDefined();
  }
  const { createCatalog } = await import('../../src/model/catalog.js');
  const own = createCatalog();
  for (const definition of types) {
    own.register(definition);
    expect(own.dataIssues(definition.type, definition.example!)).toEqual([]);
  }
  expect(() => createCatalog([{ type: 'herald.custom' }])).toThrow(/reserved/);
});
