// The outside probe of issue 33, over real HTTP: subscribers created in parallel must all receive
// the next matching publish (it found 3–5 rows of 8), and retry and redeliver right after must keep
// every row visible. ROUNDS rounds (HERALD_PROBE_ROUNDS), each with its own event family so the
// rounds do not see each other's subscribers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestHost, type TestHost } from './support/test-host.js';

const ROUNDS = Number(process.env.HERALD_PROBE_ROUNDS ?? 100);
const PARALLEL = 8;
const SUBSCRIBERS = '/api/v0.9/webhook-subscribers';
const EVENTS = '/api/v0.9/webhook-events';

interface EventDetail {
  eventId: string;
  status: string;
  deliveries: Array<{ deliveryId: string; subscriberId: string; status: string; attemptHistory: unknown[] }>;
}

let t: TestHost;
let sink: Server;
let sinkUrl: string;

beforeAll(async () => {
  sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  // On FerretDB a retry and a redelivery of one event racing the engine can leave the event's
  // counters behind its rows, seen once in about 30 such pairs (the rows all delivered, the event
  // DISPATCHED); the reconciliation recounts such an event once it has been quiet for a maintenance
  // interval. A short interval lets that repair land within this test's deadline.
  t = await startTestHost({ overrides: { maintenanceIntervalMs: 2_000 } });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => sink?.close(resolve));
});

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

async function timed<T>(latencies: number[], request: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await request();
  latencies.push(performance.now() - started);
  return result;
}

async function settled(eventId: string, accept: (detail: EventDetail) => boolean): Promise<EventDetail> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await t.api.get<EventDetail>(`${EVENTS}/${eventId}`);
    if (accept(body)) return body;
    if (Date.now() > deadline) {
      // What the store holds, beside what the API answered: counters and both copies of each row.
      const [event, queued, settled] = await Promise.all([
        t.database.db.collection('herald_events').findOne({ _id: eventId as never }, { projection: { openDeliveries: 1, failedDeliveries: 1, status: 1 } }),
        t.database.db.collection('herald_delivery_queue').find({ eventId }, { projection: { status: 1, attempts: 1, nextAttemptAt: 1 } }).toArray(),
        t.database.db.collection('herald_deliveries').find({ eventId }, { projection: { status: 1, attempts: 1 } }).toArray(),
      ]);
      throw new Error(`event ${eventId} did not settle: ${JSON.stringify({ event, queued, settled, answered: body }).slice(0, 3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test(`${PARALLEL} subscribers created in parallel all get a row from the next publish, ${ROUNDS} times; retry and redeliver keep every row`, async () => {
  const publishMs: number[] = [];
  const retryMs: number[] = [];
  const redeliverMs: number[] = [];
  const rowsPerRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const family = `probe${round}`;
    const created = await Promise.all(
      Array.from({ length: PARALLEL }, (_, index) =>
        t.api.post(SUBSCRIBERS, { id: `${family}-${index}`, displayName: `${family} ${index}`, targetUrl: `${sinkUrl}/${family}/${index}`, secret: 'probe-secret-0123456789', events: [`${family}.*`] }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(PARALLEL).fill(201));

    const published = await timed(publishMs, () => t.api.post<EventDetail>(EVENTS, { eventType: `${family}.created`, aggregateId: `a${round}`, data: { round } }));
    expect(published.status).toBe(201);
    rowsPerRound.push(published.body.deliveries.length);

    // Every tenth round: a retry and a redelivery once the rows are delivered, and nothing hides.
    if (round % 10 !== 0) continue;
    const delivered = await settled(published.body.eventId, (detail) => detail.status === 'ALL_DELIVERED');
    const row = delivered.deliveries[0]!;
    const retried = await timed(retryMs, () => t.api.post(`${EVENTS}/${published.body.eventId}/deliveries/${row.deliveryId}/retry`));
    expect(retried.status).toBe(200);
    const redelivered = await timed(redeliverMs, () => t.api.post<EventDetail>(`${EVENTS}/${published.body.eventId}/redeliver`));
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.deliveries).toHaveLength(PARALLEL);
    const after = await settled(
      published.body.eventId,
      (detail) => detail.status === 'ALL_DELIVERED' && detail.deliveries.length === PARALLEL && detail.deliveries.every((delivery) => delivery.attemptHistory.length >= 2),
    );
    expect(after.deliveries.find((delivery) => delivery.deliveryId === row.deliveryId)!.attemptHistory.length).toBeGreaterThanOrEqual(2);
    const ofSubscriber = await t.api.get<{ list: Array<{ deliveryId: string }> }>(`${SUBSCRIBERS}/${row.subscriberId}/deliveries`);
    expect(ofSubscriber.body.list.map((delivery) => delivery.deliveryId)).toContain(row.deliveryId);
  }
  const short = rowsPerRound.filter((rows) => rows !== PARALLEL).length;
  console.log(
    `${ROUNDS} rounds: ${short} with fewer than ${PARALLEL} rows; p99 publish ${p99(publishMs).toFixed(0)} ms, retry ${p99(retryMs).toFixed(0)} ms, redeliver ${p99(redeliverMs).toFixed(0)} ms`,
  );
  expect(rowsPerRound).toEqual(Array(ROUNDS).fill(PARALLEL));
}, 600_000);
