// The volume scenario of the delivery benchmark (`BENCH_ONLY=volume`, and in the full run): is
// delivery as fast with a large settled history and after a backlog as on an empty store?
//   1. on a fresh database, (a) fan-out and (b) fixed rate, empty;
//   2. a settled history of VOLUME_EVENTS events (each with its row and attempt): Herald publishes
//      and delivers a sample, which bench/history-copy.ts copies with fresh ids and older dates;
//   3. (a) and (b) again, on the same subscribers, with that history;
//   4. a backlog: BACKLOG_EVENTS × the subscribers published while the receiver answers 503, every
//      row attempted at least once, then the receiver recovers and the drain is timed.
// The scenarios themselves are delivery.ts's, handed in (`VolumeKit`), so both measure with the same
// meters (command counts, store CPU, RSS) and the same code.
import type { Db } from 'mongodb';
import type { DeliveryOptions, Herald, Scope } from '@herald/core';
import { newRun, ReceiptLog, waitForAll, type Meter, type Run, type ScenarioResult, type Sink } from './delivery-run.js';
import { copyHistory, type HistoryCopyResult } from './history-copy.js';
import { round } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
/** Settled events in the store before (a) and (b) are measured again. */
const VOLUME_EVENTS = num('BENCH_VOLUME_EVENTS', QUICK ? 10_000 : 100_000);
/** Events Herald publishes and delivers itself, the sample the history is copied from. */
const SAMPLE_EVENTS = num('BENCH_VOLUME_SAMPLE', 1_000);
/** Events of the backlog; each goes to every subscriber of the fan-out. */
const BACKLOG_EVENTS = num('BENCH_VOLUME_BACKLOG_EVENTS', QUICK ? 500 : 2_000);
/** How far back the copies go: inside the 30-day retention a host would run with. */
const SPREAD_MS = 20 * 24 * 60 * 60 * 1000;
const HISTORY_TYPE = 'history.recorded';
/** 503 is what a receiver behind a load balancer answers while its backends are down. */
const OUTAGE_STATUS = 503;

/**
 * The engine's settings for this scenario, over the benchmark's. Retries at most 1 s apart, so when
 * the receiver recovers every row is due again within a second and the drain measures the engine,
 * not the backoff; attempts without limit for the length of a run, so no row fails for good while
 * the receiver is down (the backlog takes minutes to publish on FerretDB with the history); no
 * breaker, whose probes (5 s and more apart) and ramp after recovery would measure its policy.
 */
export const VOLUME_ENGINE: DeliveryOptions = { retrySchedule: [250, 500, 1_000], maxAttempts: 100_000, breaker: false };

export interface VolumeBench {
  herald: Herald;
  db: Db;
  sink: Sink;
  diagnose(): Promise<void>;
  close(): Promise<void>;
}

/** What delivery.ts lends: its fresh bench, its scenarios and meters. */
export interface VolumeKit {
  scope: Scope;
  timeoutMs: number;
  /** A fresh database with the fan-out's subscribers, its engine started with VOLUME_ENGINE. */
  open(): Promise<VolumeBench>;
  /** Events delivered first and not reported (a JVM store runs interpreted at first); may do nothing. */
  warmUp(bench: VolumeBench): Promise<void>;
  fanOut(bench: VolumeBench, name: string): Promise<ScenarioResult>;
  fixedRate(bench: VolumeBench, name: string): Promise<ScenarioResult>;
  publishMany(herald: Herald, count: number, run: Run): Promise<void>;
  meter(): Meter;
  /** Ends a phase: with BENCH_PROFILE_COMMANDS=1, prints its commands by count and time. */
  phaseDone(label: string): void;
}

export interface BacklogResult {
  events: number;
  deliveries: number;
  /** From the first publish until every row had been answered 503 at least once (or BENCH_TIMEOUT_S). */
  failingSeconds: number;
  /** Rows not attempted before the receiver recovered (only when that wait timed out). */
  unattemptedAtRecovery: number;
  publishSeconds: number;
  /** 503s answered, all attempts counted. */
  failedAttempts: number;
  /** From the receiver's recovery to the last delivery. */
  drainSeconds: number;
  drainDeliveriesPerSecond: number;
  cpuMsPerDelivery: number;
  storeCpuMsPerDelivery: number | null;
  lost: number;
  duplicates: number;
}

export interface VolumeResult {
  historyEvents: number;
  storedEventsAfterSeeding: number;
  seeding: HistoryCopyResult & { sampleSeconds: number };
  empty: { fanOut: ScenarioResult; fixedRate: ScenarioResult };
  withHistory: { fanOut: ScenarioResult; fixedRate: ScenarioResult };
  backlog: BacklogResult;
  /** with history ÷ empty. */
  fanOutRatio: number;
  fixedRateRatio: number;
  /** Drain deliveries/s ÷ (a)'s on the empty store, and ÷ (a)'s with the history. */
  drainToFanOut: number;
  drainToFanOutWithHistory: number;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Herald publishes and delivers the sample through a subscriber of its own; resolves once all are settled. */
async function publishSample(kit: VolumeKit, bench: VolumeBench): Promise<number> {
  const started = performance.now();
  await bench.herald.subscribers.create(kit.scope, { id: 'history', displayName: 'history', targetUrl: `${bench.sink.url}/history`, secret: 'bench-secret-history-0123456789', events: ['history.*'] });
  const log = new ReceiptLog(bench.sink);
  await log.start();
  const run = newRun();
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < SAMPLE_EVENTS) {
      const i = next++;
      const { event } = await bench.herald.events.publish(kit.scope, { eventType: HISTORY_TYPE, aggregateId: `history-${i}`, data: { orderId: `order-${i}`, total: 100 + i, currency: 'EUR', lines: [{ sku: `sku-${i % 50}`, quantity: 1 + (i % 3) }] } });
      for (const delivery of event.deliveries) run.expected.add(delivery.deliveryId);
    }
  }));
  await waitForAll(log, run.expected, kit.timeoutMs, bench.diagnose);
  // Delivered is not yet settled: the outcomes and the events' counters are written just after.
  const deadline = Date.now() + kit.timeoutMs;
  for (;;) {
    const open = await bench.db.collection('herald_events').countDocuments({ eventType: HISTORY_TYPE, status: { $ne: 'ALL_DELIVERED' } });
    const queued = await bench.db.collection('herald_delivery_queue').countDocuments({ eventType: HISTORY_TYPE });
    if (open === 0 && queued === 0) break;
    if (Date.now() > deadline) throw new Error(`the sample did not settle: ${open} events open, ${queued} rows queued`);
    await sleep(500);
  }
  return round((performance.now() - started) / 1000, 1);
}

/**
 * The receiver answers 503 while the backlog is published and until every row has been attempted,
 * then 200: the drain runs from then to the last delivery.
 */
async function backlog(kit: VolumeKit, bench: VolumeBench): Promise<BacklogResult> {
  const log = new ReceiptLog(bench.sink);
  await log.start();
  await bench.sink.control(1, OUTAGE_STATUS);
  const run = newRun();
  const started = performance.now();
  await kit.publishMany(bench.herald, BACKLOG_EVENTS, run);
  const publishSeconds = (performance.now() - started) / 1000;
  console.log(`  backlog: ${run.expected.size} deliveries published in ${round(publishSeconds, 1)} s while the receiver answers ${OUTAGE_STATUS}`);
  const deadline = Date.now() + kit.timeoutMs;
  let unattempted = run.expected.size;
  for (;;) {
    await log.poll();
    unattempted = 0;
    for (const id of run.expected) if (!log.failedIds.has(id)) unattempted += 1;
    if (unattempted === 0 || Date.now() > deadline) break;
    await sleep(100);
  }
  const failingSeconds = (performance.now() - started) / 1000;
  const failedBeforeRecovery = log.failedCount;
  kit.phaseDone('volume backlog, receiver failing');
  const m = kit.meter();
  await bench.sink.control(0);
  const recoveredAt = Date.now();
  const attempted = unattempted === 0 ? 'every row' : `${run.expected.size - unattempted} of ${run.expected.size} rows (waited BENCH_TIMEOUT_S)`;
  console.log(`  backlog: ${attempted} answered ${OUTAGE_STATUS} at least once (${failedBeforeRecovery} attempts in ${round(failingSeconds, 1)} s); the receiver recovers`);
  await waitForAll(log, run.expected, kit.timeoutMs, bench.diagnose);
  kit.phaseDone('volume backlog, drain');
  const delivered = [...run.expected].filter((id) => log.delivered.has(id));
  const lastReceipt = Math.max(recoveredAt, ...delivered.map((id) => log.delivered.get(id)![2]));
  const drainSeconds = (lastReceipt - recoveredAt) / 1000;
  const storeCpu = m.storeCpuMs();
  return {
    events: run.events,
    deliveries: delivered.length,
    failingSeconds: round(failingSeconds, 1),
    unattemptedAtRecovery: unattempted,
    publishSeconds: round(publishSeconds, 1),
    failedAttempts: log.failedCount,
    drainSeconds: round(drainSeconds, 2),
    drainDeliveriesPerSecond: round(delivered.length / Math.max(0.001, drainSeconds), 1),
    cpuMsPerDelivery: round(m.cpuMs() / Math.max(1, delivered.length), 3),
    storeCpuMsPerDelivery: Number.isNaN(storeCpu) ? null : round(storeCpu / Math.max(1, delivered.length), 3),
    lost: run.expected.size - delivered.length,
    duplicates: log.okCount - log.delivered.size,
  };
}

export async function volumeScenario(kit: VolumeKit): Promise<VolumeResult> {
  const bench = await kit.open();
  try {
    await kit.warmUp(bench);
    // Each phase's figures are printed as it ends, so a run stopped midway still has them.
    const phase = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
      const result = await run();
      console.log(JSON.stringify({ [label]: result }));
      kit.phaseDone(label);
      return result;
    };
    const empty = {
      fanOut: await phase('volume (a) empty', () => kit.fanOut(bench, '(a) fan-out, empty store')),
      fixedRate: await phase('volume (b) empty', () => kit.fixedRate(bench, '(b) fixed rate, empty store')),
    };
    console.log(`  volume: empty store — (a) ${empty.fanOut.deliveriesPerSecond}/s, (b) p99 ${empty.fixedRate.latencyMs.p99} ms`);
    const sampleSeconds = await phase('volume sample', () => publishSample(kit, bench));
    console.log(`  volume: Herald published and settled a sample of ${SAMPLE_EVENTS} events in ${sampleSeconds} s; copying it to ${VOLUME_EVENTS} events`);
    const copied = await copyHistory(bench.db, {
      sample: { orgId: kit.scope.orgId, eventType: HISTORY_TYPE },
      targetEvents: VOLUME_EVENTS,
      spreadMs: SPREAD_MS,
      progress: (events, target) => console.log(`  volume: ${events} of ${target} events stored`),
    });
    const stored = await bench.db.collection('herald_events').countDocuments({});
    console.log(`  volume: ${copied.copiedEvents} events, ${copied.copiedDeliveries} rows and ${copied.copiedAttempts} attempts copied in ${copied.seconds} s (${stored} events stored)`);
    kit.phaseDone('volume copies');
    const withHistory = {
      fanOut: await phase('volume (a) history', () => kit.fanOut(bench, `(a) fan-out, ${stored} events stored`)),
      fixedRate: await phase('volume (b) history', () => kit.fixedRate(bench, `(b) fixed rate, ${stored} events stored`)),
    };
    console.log(`  volume: with the history — (a) ${withHistory.fanOut.deliveriesPerSecond}/s, (b) p99 ${withHistory.fixedRate.latencyMs.p99} ms`);
    const drained = await backlog(kit, bench);
    return {
      historyEvents: VOLUME_EVENTS,
      storedEventsAfterSeeding: stored,
      seeding: { ...copied, sampleSeconds },
      empty,
      withHistory,
      backlog: drained,
      fanOutRatio: round(withHistory.fanOut.deliveriesPerSecond / empty.fanOut.deliveriesPerSecond, 2),
      fixedRateRatio: round(withHistory.fixedRate.deliveriesPerSecond / empty.fixedRate.deliveriesPerSecond, 2),
      drainToFanOut: round(drained.drainDeliveriesPerSecond / empty.fanOut.deliveriesPerSecond, 2),
      drainToFanOutWithHistory: round(drained.drainDeliveriesPerSecond / withHistory.fanOut.deliveriesPerSecond, 2),
    };
  } finally {
    await bench.sink.control(0);
    await bench.close();
  }
}

/** The goals for the scenario, each with its figure. */
export function volumeTargets(r: VolumeResult): Array<{ label: string; figure: string; target: string; ok: boolean }> {
  const { empty, withHistory: h, backlog: b } = r;
  const cpu = (s: { cpuMsPerDelivery: number; storeCpuMsPerDelivery: number | null }) => `${s.cpuMsPerDelivery} + ${s.storeCpuMsPerDelivery ?? '-'}`;
  return [
    { label: `volume (a) with ${r.storedEventsAfterSeeding} events ÷ empty`, figure: `${r.fanOutRatio} (${h.fanOut.deliveriesPerSecond} / ${empty.fanOut.deliveriesPerSecond}/s)`, target: '≥ 0.8', ok: r.fanOutRatio >= 0.8 },
    { label: 'volume (b) achieved with history ÷ empty', figure: `${r.fixedRateRatio} (${h.fixedRate.deliveriesPerSecond} / ${empty.fixedRate.deliveriesPerSecond}/s)`, target: '≥ 0.8', ok: r.fixedRateRatio >= 0.8 },
    { label: 'volume (b) p99 with history (empty)', figure: `${h.fixedRate.latencyMs.p99} ms (${empty.fixedRate.latencyMs.p99})`, target: '≤ 150 ms', ok: h.fixedRate.latencyMs.p99 <= 150 },
    { label: `volume drain of ${b.deliveries} ÷ (a) empty (÷ (a) history)`, figure: `${r.drainToFanOut} (${r.drainToFanOutWithHistory}; ${b.drainDeliveriesPerSecond}/s)`, target: '≥ 0.8', ok: r.drainToFanOut >= 0.8 },
    { label: 'volume CPU ms/delivery Herald + store: (a) empty, history', figure: `${cpu(empty.fanOut)}, ${cpu(h.fanOut)}`, target: '—', ok: true },
    { label: 'volume CPU ms/delivery Herald + store: (b) empty, history', figure: `${cpu(empty.fixedRate)}, ${cpu(h.fixedRate)}`, target: '—', ok: true },
    { label: 'volume CPU ms/delivery Herald + store: drain', figure: cpu(b), target: '—', ok: true },
    {
      label: 'volume lost, duplicates',
      figure: `${h.fanOut.lost + h.fixedRate.lost + b.lost}, ${h.fanOut.duplicates + h.fixedRate.duplicates + b.duplicates}`,
      target: '0, 0',
      ok: h.fanOut.lost + h.fixedRate.lost + b.lost === 0 && h.fanOut.duplicates + h.fixedRate.duplicates + b.duplicates === 0,
    },
  ];
}
