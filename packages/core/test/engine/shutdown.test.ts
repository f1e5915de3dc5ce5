// Shutdown keeps its bound: attempts still in flight when the drain timeout passes are aborted and
// handed back — PENDING, due now, the interrupted attempt counted and recorded — never left to a
// lease that expires minutes later.
import { afterAll, expect, test } from 'vitest';
import { collectionsFor } from '../../src/storage/collections.js';
import { findRows } from '../../src/model/delivery-rows.js';
import { startSink, type Sink } from './support/sink.js';
import { scope, startHarness } from './support/harness.js';

const sinks: Sink[] = [];
afterAll(async () => {
  await Promise.all(sinks.map((sink) => sink.close()));
});

test('a receiver slower than the drain timeout: stop returns within the bound and the row is handed back', async () => {
  // Answers after 20 s (its timeout is 30 s): far beyond the 300 ms drain bound.
  const slow = await startSink((_request, response) => { setTimeout(() => response.writeHead(200).end(), 20_000).unref(); });
  sinks.push(slow);
  const harness = await startHarness({ delivery: { leaseMarginMs: 60_000 } });
  try {
    await harness.herald.subscribers.create(scope, { displayName: 'slow', targetUrl: slow.url, timeoutMs: 30_000, events: ['order.*'] });
    const { event } = await harness.herald.events.publish(scope, { eventType: 'order.created', aggregateId: 'o-1', data: {} });
    await slow.waitFor(1);

    const started = Date.now();
    await harness.herald.stop({ drainTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(300 + 2_500);

    const collections = collectionsFor(harness.database.db, 'herald_');
    const [row] = await findRows(collections, { eventId: event.eventId });
    expect(row).toMatchObject({ status: 'PENDING', attempts: 1, leaseOwner: null, lastError: expect.stringMatching(/interrupted/) });
    expect(row!.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
    const attempts = await collections.attempts.find({ deliveryId: row!._id }).toArray();
    expect(attempts).toMatchObject([{ attempt: 1, errorClass: 'INTERRUPTED', httpStatus: null }]);
  } finally {
    await harness.close();
  }
});
