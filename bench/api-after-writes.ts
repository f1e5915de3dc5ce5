// Scenario (i): the API's answers right after subscriber writes. Each round creates 8 subscribers
// at once (a family of their own, as the probe of issue 33 did), then times a publish that matches
// them — the first after the writes, so the org's cached matches are stale — and, once delivered,
// a retry of one row and a redelivery of the event. Every publish must have its 8 rows.
import type { Herald, Scope } from '@herald/core';
import { latencySummary, round } from './stats.js';

const PARALLEL = 8;

export interface ApiAfterWritesResult {
  rounds: number;
  /** Rounds whose publish had fewer rows than subscribers created (must be 0). */
  shortRounds: number;
  publishMs: ReturnType<typeof latencySummary>;
  retryMs: ReturnType<typeof latencySummary>;
  redeliverMs: ReturnType<typeof latencySummary>;
}

async function timed<T>(into: number[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  into.push(round(performance.now() - started, 1));
  return result;
}

async function delivered(herald: Herald, scope: Scope, eventId: string, attempts: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await herald.events.get(scope, eventId);
    if (detail.status === 'ALL_DELIVERED' && detail.deliveries.every((row) => row.attemptHistory.length >= attempts)) return;
    if (Date.now() > deadline) throw new Error(`(i): event ${eventId} not delivered within ${timeoutMs} ms: ${JSON.stringify(detail).slice(0, 1000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function apiAfterWrites(herald: Herald, scope: Scope, sinkUrl: string, rounds: number, timeoutMs: number): Promise<ApiAfterWritesResult> {
  const publishMs: number[] = [];
  const retryMs: number[] = [];
  const redeliverMs: number[] = [];
  let shortRounds = 0;
  for (let index = 0; index < rounds; index++) {
    const family = `after${index}`;
    await Promise.all(
      Array.from({ length: PARALLEL }, (_, n) =>
        herald.subscribers.create(scope, { id: `${family}-${n}`, displayName: `${family} ${n}`, targetUrl: `${sinkUrl}/${family}/${n}`, secret: `bench-secret-${n}-0123456789`, events: [`${family}.*`] }),
      ),
    );
    const { event } = await timed(publishMs, () => herald.events.publish(scope, { eventType: `${family}.created`, aggregateId: family, data: { index } }));
    if (event.deliveries.length !== PARALLEL) shortRounds += 1;
    await delivered(herald, scope, event.eventId, 1, timeoutMs);
    await timed(retryMs, () => herald.deliveries.retry(scope, event.deliveries[0]!.deliveryId));
    await timed(redeliverMs, () => herald.events.redeliver(scope, event.eventId));
    await delivered(herald, scope, event.eventId, 2, timeoutMs);
    // The subscribers go again, so the next round's publishes match as many as this one's.
    await Promise.all(Array.from({ length: PARALLEL }, (_, n) => herald.subscribers.delete(scope, `${family}-${n}`)));
  }
  return { rounds, shortRounds, publishMs: latencySummary(publishMs), retryMs: latencySummary(retryMs), redeliverMs: latencySummary(redeliverMs) };
}

export function apiAfterWritesTargets(result: ApiAfterWritesResult): Array<{ label: string; figure: string; target: string; ok: boolean }> {
  return [
    { label: '(i) publishes with every new subscriber\'s row', figure: `${result.rounds - result.shortRounds} of ${result.rounds}`, target: 'all', ok: result.shortRounds === 0 },
    { label: '(i) publish right after 8 creates, p99', figure: `${result.publishMs.p99} ms`, target: '≤ 200 ms', ok: result.publishMs.p99 <= 200 },
    { label: '(i) retry of a delivered row, p99', figure: `${result.retryMs.p99} ms`, target: '≤ 200 ms', ok: result.retryMs.p99 <= 200 },
    { label: '(i) redeliver of an 8-row event, p99', figure: `${result.redeliverMs.p99} ms`, target: '≤ 200 ms', ok: result.redeliverMs.p99 <= 200 },
  ];
}
