// Retry and redeliver keep history: a requeued row stays readable while the engine sends it again,
// its earlier attempts stay beside the new ones, and the event's status and counters follow its
// rows — also when the retries race each other and the engine (issue 33). Each case runs ROUNDS
// times (HERALD_CONCURRENCY_ROUNDS raises it).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { collectionsFor } from '../../src/storage/collections.js';
import type { WebhookEventDetail } from '../../src/index.js';
import { answer, startSink, type Sink } from './support/sink.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

const ROUNDS = Number(process.env.HERALD_CONCURRENCY_ROUNDS ?? 10);

let harness: Harness;
let receiver: Sink;

beforeAll(async () => {
  harness = await startHarness();
  receiver = await startSink(answer(204));
  for (const id of ['first', 'second', 'third']) {
    await harness.herald.subscribers.create(scope, { id, displayName: id, targetUrl: `${receiver.url}/${id}`, events: ['order.*'] });
  }
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

/** The event's stored counters against a count of its rows in both collections. */
async function countersAgainstRows(eventId: string) {
  const collections = collectionsFor(harness.database.db, 'herald_');
  const [event, queued, settled] = await Promise.all([
    collections.events.findOne({ _id: eventId }),
    collections.queue.find({ eventId }).toArray(),
    collections.deliveries.find({ eventId }).toArray(),
  ]);
  const live = new Map([...settled, ...queued].map((row) => [row._id, row])); // the queue's copy wins
  const rows = [...live.values()];
  return {
    stored: { open: event!.openDeliveries, failed: event!.failedDeliveries, status: event!.status },
    counted: { open: rows.filter((row) => row.status === 'PENDING' || row.status === 'IN_FLIGHT').length, failed: rows.filter((row) => row.status === 'FAILED').length, rows: rows.length },
  };
}

function settledWithAttempts(detail: WebhookEventDetail, attempts: number): boolean {
  return detail.status === 'ALL_DELIVERED' && detail.deliveries.length === 3 && detail.deliveries.every((row) => row.status === 'DELIVERED' && row.attemptHistory.length === attempts);
}

test(`retries of a delivered row, several at once, keep the row and every attempt visible (${ROUNDS} rounds)`, async () => {
  const latencies: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `retry-${round}`, data: {} });
    const first = await eventSettles(harness.herald, event.eventId);
    expect(first.status).toBe('ALL_DELIVERED');
    const row = first.deliveries.find((delivery) => delivery.subscriberId === 'first')!;

    const started = performance.now();
    const answers = await Promise.all([0, 1, 2].map(() => harness.herald.deliveries.retry(scope, row.deliveryId)));
    latencies.push(performance.now() - started);
    for (const answered of answers) expect(answered.deliveryId).toBe(row.deliveryId);

    // While and after the engine sends it again, the row is never missing from the event.
    const settled = await eventually(
      async () => {
        const detail = await harness.herald.events.get(scope, event.eventId);
        expect(detail.deliveries.map((delivery) => delivery.deliveryId)).toContain(row.deliveryId);
        return detail;
      },
      (detail) => detail.status === 'ALL_DELIVERED' && detail.deliveries.find((delivery) => delivery.deliveryId === row.deliveryId)!.status === 'DELIVERED' && detail.deliveries.find((delivery) => delivery.deliveryId === row.deliveryId)!.attemptHistory.length >= 2,
    );
    const retried = settled.deliveries.find((delivery) => delivery.deliveryId === row.deliveryId)!;
    // Oldest first, numbered on from the first: a retry racing another may add a third attempt.
    expect(retried.attemptHistory.map((attempt) => attempt.attempt)).toEqual(retried.attemptHistory.map((_, index) => index + 1));
    expect((await harness.herald.subscribers.deliveries(scope, 'first')).map((delivery) => delivery.deliveryId)).toContain(row.deliveryId);
    const { stored, counted } = await countersAgainstRows(event.eventId);
    expect(counted.rows).toBe(3);
    expect(stored).toEqual({ open: counted.open, failed: counted.failed, status: 'ALL_DELIVERED' });
  }
  console.log(`retry (3 at once) answered in ${latencies.map((ms) => ms.toFixed(0)).join(', ')} ms`);
}, 30_000 + ROUNDS * 10_000);

test(`redelivering an event sends every row again and keeps each row's attempts (${ROUNDS} rounds)`, async () => {
  const latencies: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: `redeliver-${round}`, data: {} });
    await eventSettles(harness.herald, event.eventId);
    const before = receiver.received.length;

    const started = performance.now();
    const answered = await harness.herald.events.redeliver(scope, event.eventId);
    latencies.push(performance.now() - started);
    expect(answered.deliveries).toHaveLength(3);

    const settled = await eventually(() => harness.herald.events.get(scope, event.eventId), (detail) => settledWithAttempts(detail, 2));
    expect(settled.deliveries.flatMap((row) => row.attemptHistory.map((attempt) => attempt.attempt)).sort()).toEqual([1, 1, 1, 2, 2, 2]);
    await eventually(async () => receiver.received.length, (count) => count >= before + 3);
    const { stored, counted } = await countersAgainstRows(event.eventId);
    expect(counted.rows).toBe(3);
    expect(stored).toEqual({ open: 0, failed: 0, status: 'ALL_DELIVERED' });
  }
  console.log(`redeliver answered in ${latencies.map((ms) => ms.toFixed(0)).join(', ')} ms`);
}, 30_000 + ROUNDS * 10_000);
