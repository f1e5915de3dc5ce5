// Auto-disable (engine/auto-disable.ts): a subscriber whose every delivery has failed for longer
// than the limit is disabled with a reason, Herald says so, its pending rows end FAILED; enabling it
// again resumes delivery and a recovery sends the gap. The limit is reached with Herald's clock,
// which this test moves forward; the receivers are real HTTP servers on loopback.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHerald } from '../../src/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';
import { openTestDatabase } from '../../../../test/support/mongo.js';

const DAY = 86_400_000;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

let harness: Harness;
let broken: Sink;
let recovering: Sink;
let operations: Sink;

const bodies = (sink: Sink) => sink.received.map((request) => JSON.parse(request.body.toString()) as { id: string; type: string; data: Record<string, unknown> });

beforeAll(async () => {
  harness = await startHarness({
    now: clock,
    delivery: { maxAttempts: 50, retrySchedule: [100], breaker: { failures: 2, windowMs: 0, probeBackoffMs: [1_000] }, autoDisableAfterMs: 5 * DAY },
  });
  [broken, recovering, operations] = await Promise.all([startSink(answer(503)), startSink(answer(500)), startSink(answer(204))]);
  await harness.herald.subscribers.create(scope, { id: 'broken', displayName: 'always fails', targetUrl: broken.url, events: ['order.*'] });
  await harness.herald.subscribers.create(scope, { id: 'recovering', displayName: 'failed, then answered', targetUrl: recovering.url, events: ['card.*'] });
  await harness.herald.subscribers.create(scope, { id: 'ops', displayName: 'ops', targetUrl: operations.url, events: ['herald.*'] });
});
afterAll(async () => {
  await harness?.close();
  await Promise.all([broken, recovering, operations].map((sink) => sink?.close()));
});

test('failing past the limit disables with a reason and an event; a success inside the window does not; enabling again resumes and recover sends the gap', async () => {
  const since = new Date(clock().getTime() - 1_000).toISOString();
  const { event: first } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o1', data: {} });
  await harness.herald.events.publish(scope, { eventType: 'card.issued', aggregateId: 'c1', data: { pan: '4111' } });
  await eventually(() => harness.herald.subscribers.get(scope, 'broken'), (subscriber) => subscriber.health?.state === 'open');
  await eventually(() => harness.herald.subscribers.get(scope, 'recovering'), (subscriber) => subscriber.health?.state === 'failing' || subscriber.health?.state === 'open');
  // `recovering` answers again: its next delivery succeeds.
  recovering.setHandler(answer(204));
  const { event: card } = await harness.herald.events.publish(scope, { eventType: 'card.issued', aggregateId: 'c2', data: { pan: '4242' } });
  await eventSettles(harness.herald, card.eventId);
  // Rows of `broken` wait PENDING while its breaker is open, probed once a second.
  const { event: held } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o2', data: {} });

  await eventually(() => harness.herald.subscribers.get(scope, 'recovering'), (subscriber) => subscriber.health?.state === 'healthy');

  // Four days on, nothing is disabled: `broken` has not failed long enough, and `recovering`
  // succeeded inside the window, even with a failure record that another replica may have stored
  // from before that success.
  offsetMs = 4 * DAY;
  const health = harness.database.db.collection('herald_subscriber_health');
  const { _id: recoveringId } = (await harness.database.db.collection('herald_subscribers').findOne({ handle: 'recovering' }))!;
  const tenDaysAgo = new Date(Date.now() - 10 * DAY);
  await health.updateOne({ _id: recoveringId }, { $set: { state: 'failing', since: tenDaysAgo, failingSince: tenDaysAgo } });
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  for (const handle of ['broken', 'recovering']) expect(await harness.herald.subscribers.get(scope, handle)).toMatchObject({ enabled: true });
  await health.updateOne({ _id: recoveringId }, { $set: { state: 'healthy' } });

  offsetMs = 5 * DAY + 60_000;
  const disabled = await eventually(() => harness.herald.subscribers.get(scope, 'broken'), (subscriber) => !subscriber.enabled, 20_000);
  expect(disabled.disabledReason).toMatchObject({ code: 'AUTO_DISABLED', message: expect.stringContaining('last error: HTTP 503') });
  expect(disabled.updatedBy).toBe('system');
  expect(new Date(disabled.disabledReason!.at).getTime()).toBeGreaterThan(Date.now() + 4 * DAY);
  const listed = (await harness.herald.subscribers.list(scope)).list.find((subscriber) => subscriber.id === 'broken');
  expect(listed?.disabledReason?.code).toBe('AUTO_DISABLED');

  const notices = await eventually(async () => bodies(operations).filter((body) => body.type === 'herald.subscriber_disabled'), (found) => found.length > 0);
  expect(notices).toHaveLength(1);
  expect(notices[0]!.data).toMatchObject({ subscriberId: 'broken', code: 'AUTO_DISABLED', lastError: expect.stringContaining('HTTP 503'), message: disabled.disabledReason!.message });

  // Its pending rows are not lost silently: they end FAILED with a reason that says how to send them again.
  for (const eventId of [first.eventId, held.eventId]) {
    const detail = await eventSettles(harness.herald, eventId);
    expect(detail.deliveries[0]).toMatchObject({ status: 'FAILED', lastError: expect.stringContaining('auto-disabled') });
  }

  expect((await harness.herald.subscribers.get(scope, 'recovering')).enabled).toBe(true);

  // Herald's engine schedules rows on the system clock, while publish stamps them with Herald's: put
  // the two back together before delivering again.
  offsetMs = 0;
  // Enabled again: the reason goes, the subscriber is not disabled again for its old failures, new
  // events are delivered, and a recovery sends what failed.
  broken.setHandler(answer(204));
  const enabled = await harness.herald.subscribers.update(scope, 'broken', { enabled: true });
  expect(enabled.enabled).toBe(true);
  expect(enabled.disabledReason).toBeUndefined();
  const { event: after } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o3', data: {} });
  expect((await eventSettles(harness.herald, after.eventId)).status).toBe('ALL_DELIVERED');
  const recovery = await harness.herald.deliveries.recover(scope, 'broken', { since });
  await eventually(() => harness.herald.deliveries.recovery(scope, 'broken', recovery.recoveryId), (current) => current.status === 'COMPLETED', 20_000);
  for (const eventId of [first.eventId, held.eventId]) {
    expect((await eventually(() => harness.herald.events.get(scope, eventId), (event) => event.status === 'ALL_DELIVERED')).status).toBe('ALL_DELIVERED');
  }
  const delivered = new Set(bodies(broken).map((body) => body.id));
  expect([first.eventId, held.eventId, after.eventId].every((id) => delivered.has(id))).toBe(true);
  expect((await harness.herald.subscribers.get(scope, 'broken')).enabled).toBe(true);
  expect(bodies(operations).filter((body) => body.type === 'herald.subscriber_disabled')).toHaveLength(1);
});

test('a row the engine claims after its subscriber was auto-disabled elsewhere ends FAILED with the auto-disable reason', async () => {
  // Another replica disabled it: this engine learns it only from the subscriber it reads to send.
  const late = await startSink(answer(503));
  try {
    await harness.herald.subscribers.create(scope, { id: 'late', displayName: 'disabled elsewhere', targetUrl: late.url, events: ['late.*'] });
    const { event } = await harness.herald.events.publish(scope, { eventType: 'late.happened', aggregateId: 'l1', data: {} });
    await eventually(async () => late.received.length, (count) => count > 0);
    await harness.database.db
      .collection('herald_subscribers')
      .updateOne({ handle: 'late' }, { $set: { enabled: false, disabledReason: { code: 'AUTO_DISABLED', message: 'failing for 5 days', at: new Date() } } });
    const detail = await eventSettles(harness.herald, event.eventId);
    expect(detail.deliveries[0]).toMatchObject({ status: 'FAILED', lastError: expect.stringContaining('auto-disabled') });
  } finally {
    await late.close();
  }
});

test('a bad limit is refused with the option named; 0 turns it off; with the breaker off it warns', async () => {
  const database = await openTestDatabase('auto-disable-config');
  try {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(createHerald({ mongo: { db: database.db }, delivery: { autoDisableAfterMs: bad } })).rejects.toThrow(/delivery\.autoDisableAfterMs must be a number ≥ 0/);
    }
    const off = await createHerald({ mongo: { db: database.db }, delivery: { autoDisableAfterMs: 0 } });
    await off.close();
    // Configured with the breaker off, it could never fire: Herald says so once.
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: object, message?: string) => void warnings.push(message ?? '') };
    const blind = await createHerald({ mongo: { db: database.db }, logger, delivery: { autoDisableAfterMs: DAY, breaker: false } });
    await blind.close();
    expect(warnings).toEqual(['auto-disable is configured but the breaker is off: without endpoint health nothing is ever auto-disabled']);
  } finally {
    await database.close();
  }
});
