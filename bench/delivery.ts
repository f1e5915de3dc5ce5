// `make bench` → `npm run bench`: the delivery benchmark (not a test). Starts FerretDB (or uses
// MONGODB_URI) and a sink in a separate process, embeds Herald in this process, and measures:
//   (a) fan-out: BENCH_EVENTS events × BENCH_SUBSCRIBERS subscribers, published as fast as possible,
//       once straight to the store and once through a proxy adding BENCH_DB_LATENCY_MS per round trip;
//   (b) fixed rate: BENCH_RATE deliveries/s for BENCH_RATE_SECONDS;
//   (c) the sink failing 50% with 500s, then recovering;
//   (e) publishing beside a receiver that fails every attempt (its retries compete with publishes);
//   (d) head of line: a healthy subscriber alone, then beside one that hangs, on the same origin;
//   (i) the API right after subscriber writes: a publish after 8 creates at once, a retry, a redelivery;
//   publish cost: DB commands per published event, from a publisher with no engine;
//   HTTP fan-out: the same events through the built host over HTTP, one per request and in batches;
//   volume: (a) and (b) on an empty store, then with a settled history, then a backlog drained (bench/volume.ts);
//   and the raw ceiling: plain undici POSTs of the same bodies to the same sink, no persistence.
// Writes .data/bench/delivery.json. Knobs: bench/README.md.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient, type Db } from 'mongodb';
import { Agent, request } from 'undici';
import { createHerald, type DeliveryOptions, type Herald, type Scope } from '@herald/core';
import type { RunningFerretDb } from '../test/support/ferretdb.js';
import { startStoreProcess } from '../test/support/store-process.js';
import { startMemoryMongo } from './memory-mongo.js';
import { orderingScenarios, orderingTargets, type OrderingSummary } from './ordering.js';
import { commandShape } from './command-shape.js';
import { treeCpuMs } from './process-tree-cpu.js';
import { seedSettledHistory, storedBytes } from './retention-seed.js';
// The retention pass as the engine's hourly job runs it (core's internals: no public API runs it now).
import { resolveConfig } from '../packages/core/src/engine/config.js';
import { createMaintenance } from '../packages/core/src/engine/jobs.js';
import { DeliveryStore } from '../packages/core/src/engine/store/index.js';
import { silentLogger } from '../packages/core/src/shared/logger.js';
import { detectStoreCompat } from '../packages/core/src/storage/compat.js';
import { latencySummary, round } from './stats.js';
import { apiAfterWrites, apiAfterWritesTargets, type ApiAfterWritesResult } from './api-after-writes.js';
import { httpFanOut, httpFanOutTargets, type HttpFanOutResult } from './http-fanout.js';
import { VOLUME_ENGINE, volumeScenario, volumeTargets, type VolumeKit, type VolumeResult } from './volume.js';
import { newRun, ReceiptLog, startSink, waitForAll, type Meter, type Run, type ScenarioResult, type Sink } from './delivery-run.js';

const QUICK = process.env.BENCH_QUICK === '1';
// BENCH_QUICK sizes a run to finish in a few minutes.
const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_EVENTS', QUICK ? 200 : 1_000);
const SUBSCRIBERS = num('BENCH_SUBSCRIBERS', 10);
const RATE = num('BENCH_RATE', 500);
const RATE_SECONDS = num('BENCH_RATE_SECONDS', QUICK ? 5 : 10);
const FAIL_EVENTS = num('BENCH_FAIL_EVENTS', QUICK ? 30 : 200);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', QUICK ? 120 : 600) * 1000;
const DB_LATENCY_MS = num('BENCH_DB_LATENCY_MS', 2);
const HOL_RATE = num('BENCH_HOL_RATE', 20);
const HOL_SECONDS = num('BENCH_HOL_SECONDS', QUICK ? 5 : 10);
const PUBLISH_COST_EVENTS = num('BENCH_PUBLISH_COST_EVENTS', 100);
const AFTER_WRITES_ROUNDS = num('BENCH_AFTER_WRITES_ROUNDS', QUICK ? 20 : 100);
const FAILING_PUBLISH_EVENTS = num('BENCH_FAILING_PUBLISH_EVENTS', 300);
/** HTTP fan-out: events per phase, as many as (a) by default, and events per batch request. */
const HTTP_EVENTS = num('BENCH_HTTP_EVENTS', 1_000);
const HTTP_BATCH = num('BENCH_HTTP_BATCH', 100);
const RETENTION_EVENTS = num('BENCH_RETENTION_EVENTS', QUICK ? 10_000 : 100_000);
const RETENTION_WAIT_MS = num('BENCH_RETENTION_WAIT_S', 120) * 1000;
const RETENTION_RATE = num('BENCH_RETENTION_RATE', 100);
const RETENTION_SECONDS = num('BENCH_RETENTION_SECONDS', QUICK ? 5 : 10);
const RETENTION_DEADLINE_MS = num('BENCH_RETENTION_DEADLINE_S', 900) * 1000;
/** The issue's reproduction: 8 publishers beside a receiver answering 500. */
const FAILING_PUBLISH_CONCURRENCY = 8;
/** BENCH_ONLY=failing-publish runs scenario (e) alone, BENCH_ONLY=head-of-line (d), BENCH_ONLY=api-after-writes (i), BENCH_ONLY=http-fanout the HTTP fan-out, BENCH_ONLY=volume the volume scenario, BENCH_ONLY=ordering the ordering scenarios (g), (h) (bench/ordering.ts). */
const ONLY = process.env.BENCH_ONLY;
const ENGINE_CONCURRENCY = num('BENCH_ENGINE_CONCURRENCY', 128);
const PUBLISH_CONCURRENCY = num('BENCH_PUBLISH_CONCURRENCY', 4);
const scope = { orgId: 'bench', actor: 'bench' };

/** BENCH_STORE=memory-mongo: the engine's MongoDB path on scripts/tools/memory-mongo.sh's server. */
const MEMORY_MONGO = process.env.BENCH_STORE === 'memory-mongo';
/**
 * Events published and delivered before (a), not reported: a JVM store (memory-mongo) runs
 * interpreted for its first seconds, which would be measured as Herald's throughput. None on
 * FerretDB, whose (a) is meant to start on an empty history.
 */
const WARMUP_EVENTS = num('BENCH_WARMUP_EVENTS', MEMORY_MONGO ? 300 : 0);
/**
 * The volume scenario's warm-up. Its goals divide a phase with the history by the same phase on the
 * empty store, which runs first, so the JVM must be past compiling by then, or the empty store's
 * figures come out low and every ratio to them high; 300 events are not enough when the scenario
 * runs alone.
 */
const VOLUME_WARMUP_EVENTS = num('BENCH_VOLUME_WARMUP_EVENTS', MEMORY_MONGO ? 3_000 : 0);

/** The latency proxy in its own process; resolves to the URI to connect through. */
async function startProxyProcess(uri: string, delayMs: number): Promise<{ uri: string; stop(): void }> {
  const hooks = resolve(import.meta.dirname, '../packages/core/test/engine/support/register-ts.mjs');
  const child = spawn(process.execPath, ['--no-warnings', '--import', hooks, resolve(import.meta.dirname, 'latency-proxy.ts'), uri, String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(() => child.kill('SIGTERM'));
  const proxied = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`latency proxy exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => done((JSON.parse(line) as { uri: string }).uri));
  });
  return { uri: proxied, stop: () => child.kill('SIGTERM') };
}

/** Operations (pool check-outs) of every counted bench client of this process (Herald's own connections). */
let commandCount = 0;
/** The store's root process when the bench started it. */
let storePid: number | undefined;
let peakRss = 0;
const rssWatchers = new Set<{ peak: number }>();
setInterval(() => {
  const rss = process.memoryUsage.rss();
  peakRss = Math.max(peakRss, rss);
  for (const watcher of rssWatchers) watcher.peak = Math.max(watcher.peak, rss);
}, 50).unref();

function meter(): Meter {
  const cpu = process.cpuUsage();
  const storeCpu = storePid === undefined ? Number.NaN : treeCpuMs(storePid);
  const commands = commandCount;
  const started = performance.now();
  const rss = { peak: process.memoryUsage.rss() };
  rssWatchers.add(rss);
  return {
    cpuMs: () => { const d = process.cpuUsage(cpu); return (d.user + d.system) / 1000; },
    storeCpuMs: () => (storePid === undefined ? Number.NaN : treeCpuMs(storePid) - storeCpu),
    commands: () => commandCount - commands,
    elapsedMs: () => performance.now() - started,
    peakRss: () => rss.peak,
  };
}

function summarize(name: string, log: ReceiptLog, run: Run, m: Meter, extra?: Record<string, number>): ScenarioResult {
  const latencies: number[] = [];
  let lastReceipt = 0;
  for (const id of run.expected) {
    const receipt = log.delivered.get(id);
    if (!receipt) continue;
    const published = run.publishedAt.get(receipt[1]);
    if (published !== undefined) latencies.push(receipt[2] - published);
    lastReceipt = Math.max(lastReceipt, receipt[2]);
  }
  const delivered = [...run.expected].filter((id) => log.delivered.has(id)).length;
  const firstPublish = Math.min(...run.publishedAt.values());
  // Throughput runs from the first publish to the last receipt (or to now, if nothing arrived).
  const seconds = ((delivered > 0 ? lastReceipt : Date.now()) - firstPublish) / 1000;
  return {
    name,
    deliveries: delivered,
    seconds: round(seconds),
    deliveriesPerSecond: round(delivered / seconds, 1),
    latencyMs: latencySummary(latencies),
    cpuMsPerDelivery: round(m.cpuMs() / Math.max(1, delivered), 3),
    storeCpuMsPerDelivery: storePid === undefined ? null : round(m.storeCpuMs() / Math.max(1, delivered), 3),
    dbCommandsPerDelivery: round(m.commands() / Math.max(1, delivered), 3),
    dbCommandsPerEvent: round(m.commands() / Math.max(1, run.events), 2),
    lost: run.expected.size - delivered,
    duplicates: log.okCount - log.delivered.size,
    failedAttempts: log.failedCount,
    publishErrors: run.publishErrors,
    peakRssMb: round(m.peakRss() / 1024 / 1024, 1),
    ...(extra ? { extra } : {}),
  };
}

const orderData = (i: number) => ({
  orderId: `order-${i}`, total: 100 + i, currency: 'EUR', customer: { id: `c-${i % 97}`, tier: 'gold' }, card: '4111111111111111',
});

/** `only`: count just the deliveries to this subscriber (handle). */
async function publishOne(herald: Herald, i: number, run: Run, orgScope: Scope = scope, eventType = 'order.created', only?: string): Promise<void> {
  const started = Date.now();
  try {
    const { event } = await herald.events.publish(orgScope, { eventType, aggregateId: `order-${i}`, data: orderData(i) });
    run.publishedAt.set(event.eventId, started);
    run.events += 1;
    for (const delivery of event.deliveries) if (only === undefined || delivery.subscriberId === only) run.expected.add(delivery.deliveryId);
  } catch (error) {
    // A failed publish is reported, not fatal: nothing was accepted, so nothing can be lost.
    run.publishErrors += 1;
    if (run.publishErrors <= 3) console.error(`  publish failed: ${(error as Error).message}`);
  }
}

/** Publishes `count` events with PUBLISH_CONCURRENCY publishers at once. */
async function publishMany(herald: Herald, count: number, run: Run): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PUBLISH_CONCURRENCY }, async () => {
      while (next < count) await publishOne(herald, next++, run);
    }),
  );
}

/** Publishes at `perSecond` events/s for `seconds`, without waiting for one publish to start the next. */
async function publishAtRate(perSecond: number, seconds: number, publish: (i: number) => Promise<void>): Promise<number> {
  const total = Math.round(perSecond * seconds);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (issued < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
    while (issued < due) {
      const publishing = publish(issued++).finally(() => inFlight.delete(publishing));
      inFlight.add(publishing);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inFlight);
  return (performance.now() - started) / 1000;
}

interface Bench {
  herald: Herald;
  db: Db;
  sink: Sink;
  diagnose(): Promise<void>;
}

async function fanOut(bench: Bench, events: number, name: string): Promise<ScenarioResult> {
  const log = new ReceiptLog(bench.sink);
  await log.start();
  const run = newRun();
  const m = meter();
  await publishMany(bench.herald, events, run);
  const publishSeconds = m.elapsedMs() / 1000;
  await waitForAll(log, run.expected, TIMEOUT_MS, bench.diagnose);
  // The first and last tenth of the events: does throughput hold as the history grows?
  const tenth = Math.max(1, Math.floor(run.events / 10));
  const byPublish = [...run.publishedAt].sort((a, b) => a[1] - b[1]).map(([eventId]) => eventId);
  const span = (ids: string[]) => {
    const set = new Set(ids);
    const receipts = [...log.delivered.values()].filter((r) => set.has(r[1]));
    const start = Math.min(...ids.map((id) => run.publishedAt.get(id)!));
    const end = Math.max(...receipts.map((r) => r[2]));
    return receipts.length / Math.max(0.001, (end - start) / 1000);
  };
  return summarize(name, log, run, m, {
    publishSeconds: round(publishSeconds),
    firstTenthDeliveriesPerSecond: round(span(byPublish.slice(0, tenth)), 1),
    lastTenthDeliveriesPerSecond: round(span(byPublish.slice(-tenth)), 1),
  });
}

async function fixedRate(bench: Bench, name = `(b) fixed ${RATE}/s for ${RATE_SECONDS} s`): Promise<ScenarioResult> {
  const log = new ReceiptLog(bench.sink);
  await log.start();
  const run = newRun();
  const m = meter();
  const seconds = await publishAtRate(RATE / SUBSCRIBERS, RATE_SECONDS, (i) => publishOne(bench.herald, i, run));
  const achievedRate = run.expected.size / seconds;
  await waitForAll(log, run.expected, TIMEOUT_MS, bench.diagnose);
  return summarize(name, log, run, m, { offeredDeliveriesPerSecond: round(achievedRate, 1) });
}

async function failingThenRecovering(bench: Bench): Promise<ScenarioResult> {
  await bench.sink.control(0.5);
  const failingSince = Date.now();
  const log = new ReceiptLog(bench.sink);
  await log.start();
  const run = newRun();
  const m = meter();
  await publishMany(bench.herald, FAIL_EVENTS, run);
  // Let first attempts (and some retries) run into the failing sink, then recover it.
  const failingUntil = Date.now() + Math.max(3_000, m.elapsedMs());
  while (Date.now() < failingUntil) {
    await log.poll();
    await new Promise((r) => setTimeout(r, 100));
  }
  await bench.sink.control(0);
  const recoveredAt = Date.now();
  await waitForAll(log, run.expected, TIMEOUT_MS, bench.diagnose);
  const lastReceipt = Math.max(...[...log.delivered.values()].map((r) => r[2]));
  // Retries may have delivered everything while the sink still failed half the requests: then 0.
  return summarize('(c) 50% 500s, then recovery', log, run, m, {
    secondsFailing: round((recoveredAt - failingSince) / 1000),
    secondsFromRecoveryToAllDelivered: round(Math.max(0, lastReceipt - recoveredAt) / 1000),
  });
}

/**
 * (d) A healthy subscriber (timeout 2 s) on the sink's origin, alone, then beside a subscriber on
 * the same origin whose receiver never answers (timeout 30 s). Returns the healthy one's p99s.
 */
async function headOfLine(bench: Bench): Promise<{ aloneP99: number; besideHangingP99: number; lost: number; peakRssMb: number }> {
  const m = meter();
  const holScope: Scope = { orgId: 'bench-hol', actor: 'bench' };
  await bench.herald.subscribers.create(holScope, { id: 'healthy', displayName: 'healthy', targetUrl: `${bench.sink.url}/healthy`, timeoutMs: 2_000, events: ['hol.*'] });
  const phase = async (): Promise<{ p99: number; lost: number }> => {
    const log = new ReceiptLog(bench.sink);
    await log.start();
    const run = newRun();
    await publishAtRate(HOL_RATE, HOL_SECONDS, (i) => publishOne(bench.herald, i, run, holScope, 'hol.tick', 'healthy'));
    await waitForAll(log, run.expected, 60_000, bench.diagnose);
    const result = summarize('hol', log, run, meter());
    return { p99: result.latencyMs.p99, lost: result.lost };
  };
  const alone = await phase();
  await bench.herald.subscribers.create(holScope, { id: 'hanging', displayName: 'hanging', targetUrl: `${bench.sink.url}/hang`, timeoutMs: 30_000, events: ['hol.*'] });
  const beside = await phase();
  await bench.herald.subscribers.delete(holScope, 'hanging');
  return { aloneP99: alone.p99, besideHangingP99: beside.p99, lost: alone.lost + beside.lost, peakRssMb: round(m.peakRss() / 1024 / 1024, 1) };
}

interface FailingPublishResult {
  /** Events/s published while the backlog of the first pass was being retried (the figure). */
  eventsPerSecond: number;
  /** Events/s of the first pass, which builds that backlog. */
  firstPassEventsPerSecond: number;
  publishErrors: number;
  /** Seconds the subscriber's deletion (cancelling its pending deliveries) took. */
  deleteSeconds: number;
}

/**
 * (e) A subscriber whose receiver answers 500 to every attempt: FAILING_PUBLISH_EVENTS events are
 * published to it by 8 publishers, then as many again while the first ones are being retried; the
 * second pass's rate is the figure. Then the subscriber is deleted, cancelling what is pending.
 */
async function publishBesideFailing(bench: Bench): Promise<FailingPublishResult> {
  const failScope: Scope = { orgId: 'bench-fail', actor: 'bench' };
  await bench.herald.subscribers.create(failScope, { id: 'always-500', displayName: 'always 500', targetUrl: `${bench.sink.url}/fail`, events: ['fail.*'] });
  const run = newRun();
  const pass = async (offset: number): Promise<number> => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: FAILING_PUBLISH_CONCURRENCY }, async () => {
        while (next < FAILING_PUBLISH_EVENTS) await publishOne(bench.herald, offset + next++, run, failScope, 'fail.tick', 'always-500');
      }),
    );
    return FAILING_PUBLISH_EVENTS / ((performance.now() - started) / 1000);
  };
  const first = await pass(0);
  const second = await pass(FAILING_PUBLISH_EVENTS);
  const deleting = performance.now();
  await bench.herald.subscribers.delete(failScope, 'always-500');
  return {
    eventsPerSecond: round(second, 1),
    firstPassEventsPerSecond: round(first, 1),
    publishErrors: run.publishErrors,
    deleteSeconds: round((performance.now() - deleting) / 1000),
  };
}

interface RetentionResult {
  prunedEvents: number;
  pruneSeconds: number;
  /** Whether the pass removed the whole old history before `BENCH_RETENTION_DEADLINE_S` (else it was stopped then). */
  finished: boolean;
  prunedPerSecond: number;
  /** Delivery p99 at the steady rate with the old history present, before and while it is pruned. */
  baselineP99: number;
  pruningP99: number;
  p99IncreasePercent: number;
  /** collStats sizes of the event and delivery collections, MB: before seeding, seeded, after pruning, and what should remain. */
  storedMb: { beforeSeeding: number; seeded: number; afterPruning: number; retained: number };
  /** How far the size after pruning is above what should remain, percent. */
  aboveRetainedPercent: number;
  lost: number;
}

/**
 * (f) Retention: RETENTION_EVENTS settled events 60 days old (each with a row and an attempt) are
 * written straight to the store; deliveries at RETENTION_RATE/s run once with that history in place
 * and once while the retention pass removes it (the host default, 30 days). The pass runs as the
 * hourly job does (engine/jobs.ts), through a store lane of its own here. Storage is what the store
 * reports; "retained" is the size before seeding plus what the events of the two phases added
 * (the first phase's growth per event, times their number).
 */
async function pruningUnderLoad(bench: Bench): Promise<RetentionResult> {
  const retScope: Scope = { orgId: 'bench-retention', actor: 'bench' };
  await bench.herald.subscribers.create(retScope, { id: 'steady', displayName: 'steady', targetUrl: `${bench.sink.url}/steady`, events: ['ret.*'] });
  let offset = 0;
  const phase = async (until?: Promise<unknown>): Promise<{ p99: number; lost: number; events: number }> => {
    const log = new ReceiptLog(bench.sink);
    await log.start();
    const run = newRun();
    const start = offset;
    let done = until === undefined;
    void until?.then(() => { done = true; });
    // At least RETENTION_SECONDS, and for as long as the pruning runs.
    do {
      await publishAtRate(RETENTION_RATE, RETENTION_SECONDS, (i) => publishOne(bench.herald, offset + i, run, retScope, 'ret.tick', 'steady'));
      offset += Math.round(RETENTION_RATE * RETENTION_SECONDS);
    } while (!done);
    await waitForAll(log, run.expected, RETENTION_WAIT_MS, bench.diagnose);
    const result = summarize(`retention ${start}`, log, run, meter());
    return { p99: result.latencyMs.p99, lost: result.lost, events: run.events };
  };
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const beforeSeeding = await storedBytes(bench.db);
  await seedSettledHistory(bench.db, 'bench-retention-old', RETENTION_EVENTS, 60 * 24 * 60 * 60 * 1000);
  const seeded = await storedBytes(bench.db);
  const baseline = await phase();
  const bytesPerEvent = ((await storedBytes(bench.db)) - seeded) / Math.max(1, baseline.events);
  const store = new DeliveryStore(bench.db, 'herald_', await detectStoreCompat(bench.db));
  const jobs = createMaintenance({ db: bench.db, prefix: 'herald_', owner: 'bench-retention', store, config: resolveConfig({}), logger: silentLogger, onRecovered: () => undefined });
  const pruneStarted = performance.now();
  let pruneSeconds = 0;
  let finished = false;
  let stopped = false;
  const pruning = jobs.retention().then((count) => {
    pruneSeconds = (performance.now() - pruneStarted) / 1000;
    finished = !stopped;
    return count;
  });
  // A store whose pass falls behind the inflow would never let the phase end: the pass is stopped
  // (between two steps, as herald.close() stops it) at the deadline, and what it removed by then is the figure.
  const deadline = new Promise<void>((done) => setTimeout(done, RETENTION_DEADLINE_MS).unref()).then(async () => {
    if (finished) return;
    stopped = true;
    await jobs.stop();
  });
  const during = await phase(Promise.race([pruning, deadline]));
  const prunedEvents = await pruning;
  const afterPruning = await storedBytes(bench.db);
  // What should remain: the size before seeding, and what each event of the two phases added.
  const retained = beforeSeeding + bytesPerEvent * (baseline.events + during.events);
  return {
    prunedEvents,
    pruneSeconds: round(pruneSeconds, 1),
    finished,
    prunedPerSecond: round(prunedEvents / Math.max(pruneSeconds, 0.001), 1),
    baselineP99: baseline.p99,
    pruningP99: during.p99,
    p99IncreasePercent: round(((during.p99 - baseline.p99) / Math.max(1, baseline.p99)) * 100, 1),
    storedMb: { beforeSeeding: mb(beforeSeeding), seeded: mb(seeded), afterPruning: mb(afterPruning), retained: mb(retained) },
    aboveRetainedPercent: round(((afterPruning - retained) / retained) * 100, 1),
    lost: baseline.lost + during.lost,
  };
}

const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

function printRetentionTargets(r: RetentionResult): void {
  const line = (label: string, figure: string, target: string, ok: boolean) => console.log(`  ${label.padEnd(52)} ${figure.padEnd(22)} target ${target.padEnd(16)} ${verdict(ok)}`);
  const ended = r.finished ? 'all of them' : `stopped at the deadline (BENCH_RETENTION_DEADLINE_S), ${RETENTION_EVENTS - r.prunedEvents} left`;
  console.log(`  (f) pruned ${r.prunedEvents} settled events in ${r.pruneSeconds} s beside ${RETENTION_RATE} deliveries/s: ${ended}`);
  line('(f) pruned events/s vs the inflow', `${r.prunedPerSecond}/s vs ${RETENTION_RATE}/s`, '≥ 2×', r.prunedPerSecond >= 2 * RETENTION_RATE);
  line('(f) delivery p99 while pruning vs before', `${r.pruningP99} vs ${r.baselineP99} ms`, '≤ +20%', r.p99IncreasePercent <= 20);
  line('(f) stored size after pruning vs retained', `${r.storedMb.afterPruning} vs ${r.storedMb.retained} MB`, '≤ +10%', r.finished && r.aboveRetainedPercent <= 10);
  line('(f) deliveries not received', String(r.lost), '0', r.lost === 0);
}

async function rawCeiling(sink: Sink, bodies: string[], count: number): Promise<{ requestsPerSecond: number; cpuMsPerRequest: number }> {
  const agent = new Agent({ connections: 32, keepAliveTimeout: 10_000 });
  const m = meter();
  let next = 0;
  await Promise.all(
    Array.from({ length: ENGINE_CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const response = await request(`${sink.url}/s${i % SUBSCRIBERS}`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'x-raw-id': `raw-${i}` },
          body: bodies[i % bodies.length],
        });
        await response.body.dump();
      }
    }),
  );
  const seconds = m.elapsedMs() / 1000;
  await agent.close();
  return { requestsPerSecond: round(count / seconds, 1), cpuMsPerRequest: round(m.cpuMs() / count, 3) };
}

/** A body of the size Herald sends for these events (standard envelope, one encrypted field). */
function representativeBody(i: number): string {
  const { card: _card, ...rest } = orderData(i);
  return JSON.stringify({
    type: 'order.created', timestamp: new Date().toISOString(), id: randomBytes(16).toString('hex'), orgId: 'bench', aggregateType: 'order',
    aggregateId: `order-${i}`, encryptedFields: ['card'],
    data: { ...rest, card: { iv: randomBytes(12).toString('base64'), tag: randomBytes(16).toString('base64'), ciphertext: randomBytes(16).toString('base64') } },
  });
}

/**
 * Herald's client in the bench, as the host creates it: operations are counted from the pool's
 * check-outs, which every client emits. Command events cost CPU on every reply (the driver decodes
 * it once more for the event), so they are on only when BENCH_PROFILE_COMMANDS or
 * BENCH_TRACE_COMMANDS asks for what they tell.
 */
function benchClient(uri: string, counted = true): { client: MongoClient; outstanding: Map<number, string> } {
  const client = new MongoClient(uri, { monitorCommands: PROFILE_COMMANDS || TRACE_COMMANDS });
  if (counted) client.on('connectionCheckedOut', () => { commandCount += 1; });
  const outstanding = new Map<number, string>();
  client.on('commandStarted', (event) => {
    const command = event.command as Record<string, unknown>;
    const shape = PROFILE_SHAPES ? ` ${commandShape(command)}` : '';
    // A getMore names its cursor: grouped by its collection instead, one line for all of them.
    const target = event.commandName === 'getMore' ? command.collection : command[event.commandName];
    outstanding.set(event.requestId, `${event.commandName} ${String(target)}${shape} @${Date.now()} ${TRACE_COMMANDS ? JSON.stringify(event.command).slice(0, 3000) : ''}`);
  });
  client.on('commandSucceeded', (event) => {
    const started = outstanding.get(event.requestId);
    outstanding.delete(event.requestId);
    if (PROFILE_COMMANDS && started) {
      const key = started.split(' @')[0]!;
      const entry = commandProfile.get(key) ?? { n: 0, ms: 0 };
      entry.n += 1;
      entry.ms += event.duration;
      commandProfile.set(key, entry);
    }
  });
  client.on('commandFailed', (event) => outstanding.delete(event.requestId));
  return { client, outstanding };
}

/**
 * BENCH_PROFILE_COMMANDS=1: per command and collection, how many and how long (printed per
 * scenario); `shape`: per filter shape too, so two queries of one collection are told apart.
 */
const PROFILE_COMMANDS = process.env.BENCH_PROFILE_COMMANDS === '1' || process.env.BENCH_PROFILE_COMMANDS === 'shape';
const PROFILE_SHAPES = process.env.BENCH_PROFILE_COMMANDS === 'shape';
const TRACE_COMMANDS = Boolean(process.env.BENCH_TRACE_COMMANDS);
const commandProfile = new Map<string, { n: number; ms: number }>();

function printCommandProfile(scenario: string): void {
  if (!PROFILE_COMMANDS) return;
  const rows = [...commandProfile].sort((a, b) => b[1].ms - a[1].ms);
  console.log(`  commands of ${scenario} (count, total ms, mean ms):`);
  for (const [key, { n, ms }] of rows) console.log(`    ${key.padEnd(48)} ${String(n).padStart(7)} ${ms.toFixed(0).padStart(8)} ${(ms / n).toFixed(2).padStart(8)}`);
  commandProfile.clear();
}

/**
 * HTTP fan-out beside the in-process fan-out of the same number of events: (a) when it had as
 * many, else an in-process run of its own first, on the benchmark's Herald.
 */
async function httpScenario(uri: string, bench: Bench, inProcess?: ScenarioResult): Promise<HttpFanOutResult> {
  const reference = inProcess && inProcess.deliveries === HTTP_EVENTS * SUBSCRIBERS ? inProcess : await fanOut(bench, HTTP_EVENTS, `(a) in-process ${HTTP_EVENTS} events × ${SUBSCRIBERS}, beside HTTP`);
  if (reference !== inProcess) console.log(JSON.stringify(reference));
  return httpFanOut({
    uri,
    sinkUrl: bench.sink.url,
    receipts: (since) => bench.sink.receipts(since),
    events: HTTP_EVENTS,
    subscribers: SUBSCRIBERS,
    publishers: PUBLISH_CONCURRENCY,
    batchSize: HTTP_BATCH,
    warmUpEvents: WARMUP_EVENTS,
    timeoutMs: TIMEOUT_MS,
    event: (i) => ({ eventType: 'order.created', aggregateId: `order-${i}`, data: orderData(i) }),
    host: { eventTypes: [{ type: 'order.created', sensitive: ['card'] }], retryScheduleMs: [250, 500, 1_000, 2_000, 4_000], maxAttempts: 20 },
    inProcess: {
      events: HTTP_EVENTS,
      deliveriesPerSecond: reference.deliveriesPerSecond,
      eventsPerSecond: round(HTTP_EVENTS / (reference.extra?.publishSeconds ?? Number.NaN), 1),
      cpuMsPerDelivery: reference.cpuMsPerDelivery,
    },
  });
}

/** `engine`: settings of a scenario's own, over the benchmark's (volume: its retries and breaker). */
async function openBench(uri: string, dbName: string, sink: Sink, engine: DeliveryOptions = {}): Promise<Bench & { close(): Promise<void> }> {
  const { client, outstanding } = benchClient(uri);
  await client.connect();
  const db = client.db(dbName);
  const herald = await createHerald({
    mongo: { db },
    masterKeys,
    eventTypes: [{ type: 'order.created', sensitive: ['card'] }, { type: 'hol.tick' }, { type: 'fail.tick' }, { type: 'ret.tick' }, { type: 'history.recorded' }],
    logger: {
      debug() {},
      info() {},
      warn: (obj, msg) => console.warn('warn', msg, JSON.stringify(obj)),
      error: (obj, msg) => console.error('error', msg, JSON.stringify(obj)),
    },
    delivery: {
      ssrfAllowList: ['127.0.0.0/8'],
      concurrency: ENGINE_CONCURRENCY,
      perSubscriberConcurrency: num('BENCH_PER_SUBSCRIBER_CONCURRENCY', 16),
      batchSize: num('BENCH_BATCH', 200),
      retrySchedule: [250, 500, 1_000, 2_000, 4_000],
      maxAttempts: 20,
      pollIntervalMs: 250,
      // The engine's own hourly pass would prune scenario (f)'s seeded history whenever it first runs;
      // (f) runs the pass itself, when it measures it.
      retentionMs: 0,
      ...engine,
    },
  });
  for (let i = 0; i < SUBSCRIBERS; i += 1) {
    await herald.subscribers.create(scope, { displayName: `bench ${i}`, targetUrl: `${sink.url}/s${i}`, secret: `bench-secret-${i}-0123456789`, events: ['order.*'] });
  }
  await herald.start();
  return {
    herald,
    db,
    sink,
    async diagnose() {
      if (TRACE_COMMANDS || PROFILE_COMMANDS) console.log(`  database commands still waiting for an answer at ${Date.now()}:`, JSON.stringify([...outstanding.values()]));
      const byStatus = await Promise.all(['herald_delivery_queue', 'herald_deliveries'].map((name) => db.collection(name).aggregate([{ $group: { _id: '$status', n: { $sum: 1 } } }]).toArray()));
      console.log('  rows by status:', JSON.stringify(byStatus), 'engine:', JSON.stringify(herald.metrics()));
    },
    async close() {
      await herald.close();
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * DB commands per published event, from a publisher that runs no engine (its own client), and how
 * long each publish takes when that client reaches the store through `uri` (the latency proxy:
 * every round trip in series adds BENCH_DB_LATENCY_MS).
 */
async function publishCost(uri: string, dbName: string, bench: Bench): Promise<{ commandsPerEvent: number; latencyMs: ReturnType<typeof latencySummary> }> {
  const { client } = benchClient(uri, false);
  let commands = 0;
  client.on('connectionCheckedOut', () => { commands += 1; });
  await client.connect();
  const publisher = await createHerald({ mongo: { db: client.db(dbName) }, masterKeys, eventTypes: [{ type: 'order.created', sensitive: ['card'] }] });
  const run = newRun();
  await publishOne(publisher, -1, run); // warms the matching cache, as a running publisher's is
  const log = new ReceiptLog(bench.sink);
  await log.start();
  commands = 0;
  const latencies: number[] = [];
  for (let i = 0; i < PUBLISH_COST_EVENTS; i++) {
    const started = performance.now();
    await publishOne(publisher, i, run);
    latencies.push(round(performance.now() - started, 1));
  }
  const perEvent = commands / PUBLISH_COST_EVENTS;
  await waitForAll(log, run.expected, TIMEOUT_MS, bench.diagnose);
  await publisher.close();
  await client.close();
  return { commandsPerEvent: round(perEvent, 2), latencyMs: latencySummary(latencies) };
}

/**
 * The V8 options Herald runs with here: `npm run bench:delivery` gives the ones the Helm chart gives
 * the host (`config.nodeOptions`), so the memory and CPU figures are the deployed host's.
 */
const V8_OPTIONS = process.execArgv.filter((option) => option.startsWith('--max-'));

const masterKeys = { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
const children: Array<() => void> = [];
process.on('exit', () => { for (const stop of children) stop(); });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** The volume scenario (bench/volume.ts) runs this file's scenarios, on a database of its own. */
function volumeKit(uri: string, dbName: string, sink: Sink): VolumeKit {
  return {
    scope,
    timeoutMs: TIMEOUT_MS,
    open: () => openBench(uri, `${dbName}_volume`, sink, VOLUME_ENGINE),
    warmUp: async (bench) => {
      if (VOLUME_WARMUP_EVENTS > 0) await fanOut(bench, VOLUME_WARMUP_EVENTS, 'warm-up');
    },
    fanOut: (bench, name) => fanOut(bench, EVENTS, `${name}, ${EVENTS} events × ${SUBSCRIBERS}`),
    fixedRate: (bench, name) => fixedRate(bench, `${name}, ${RATE}/s for ${RATE_SECONDS} s`),
    publishMany,
    meter,
    phaseDone: printCommandProfile,
  };
}

function printVolumeTargets(volume: VolumeResult, rawCeilingRps: number): void {
  console.log(`\nTargets, volume (raw undici ceiling in this run: ${rawCeilingRps} req/s)`);
  for (const { label, figure, target, ok } of volumeTargets(volume)) console.log(`  ${label.padEnd(60)} ${figure.padEnd(34)} target ${target.padEnd(10)} ${target === '—' ? '' : verdict(ok)}`);
}

async function main(): Promise<void> {
  let ferret: (RunningFerretDb & { pid: number }) | undefined;
  const uri = process.env.MONGODB_URI ?? (ferret = MEMORY_MONGO ? await startMemoryMongo() : await startStoreProcess()).uri;
  storePid = ferret?.pid;
  if (ferret) children.push(() => void ferret?.stop());
  const sink = await startSink();
  children.push(() => sink.process.kill('SIGTERM'));
  const store = process.env.MONGODB_URI ? 'MONGODB_URI' : MEMORY_MONGO ? 'memory-mongo (in-memory, MongoDB path)' : 'FerretDB v1.24.2 (PostgreSQL 16 handler)';
  console.log(`Herald delivery benchmark — ${store}, ${SUBSCRIBERS} subscribers, node ${process.version} ${V8_OPTIONS.join(' ') || '(V8 defaults)'}${QUICK ? ', BENCH_QUICK' : ''}`);
  const dbName = `bench_${randomBytes(4).toString('hex')}`;

  const orderingOptions = {
    uri,
    quick: QUICK,
    masterKeys,
    timeoutMs: TIMEOUT_MS,
    publishConcurrency: PUBLISH_CONCURRENCY,
    engineConcurrency: ENGINE_CONCURRENCY,
    newClient: (clientUri: string) => benchClient(clientUri, false).client,
    runDone: printCommandProfile,
  };
  const printOrdering = (ordering: OrderingSummary): void => {
    for (const { label, figure, target, ok } of orderingTargets(ordering)) console.log(`  ${label.padEnd(52)} ${figure.padEnd(22)} target ${target.padEnd(16)} ${ok ? 'met' : 'MISSED'}`);
  };
  if (ONLY === 'ordering') {
    // In the full run the ordering scenarios come last, on warm processes. Alone, they get the
    // warm-up (a) gets, or their first phase (unordered) pays for memory-mongo's cold JVM.
    if (WARMUP_EVENTS > 0) {
      const warm = await openBench(uri, dbName, sink);
      await fanOut(warm, WARMUP_EVENTS, 'warm-up');
      await warm.close();
    }
    const ordering = await orderingScenarios(orderingOptions);
    // Alone, the figures join the summary of the last full run (or start one).
    mkdirSync('.data/bench', { recursive: true });
    const previous = existsSync('.data/bench/delivery.json') ? (JSON.parse(readFileSync('.data/bench/delivery.json', 'utf8')) as Record<string, unknown>) : { store };
    writeFileSync('.data/bench/delivery.json', `${JSON.stringify({ ...previous, ordering: { ...ordering, store, quick: QUICK } }, null, 2)}\n`);
    console.log(`\nTargets, per-key ordering (${store})`);
    printOrdering(ordering);
    console.log('\nWritten: .data/bench/delivery.json (ordering)');
    sink.process.kill('SIGTERM');
    await ferret?.stop();
    children.length = 0;
    process.exit(0);
  }
  const main = await openBench(uri, dbName, sink);
  const afterWrites = (bench: Bench): Promise<ApiAfterWritesResult> => apiAfterWrites(bench.herald, scope, bench.sink.url, AFTER_WRITES_ROUNDS, TIMEOUT_MS);
  const httpAlone = async (bench: Bench): Promise<HttpFanOutResult & { rawCeilingRps: number }> => {
    if (WARMUP_EVENTS > 0) await fanOut(bench, WARMUP_EVENTS, 'warm-up');
    const result = await httpScenario(uri, bench);
    // How fast the machine was during this run, as the full run reports it.
    const raw = await rawCeiling(bench.sink, Array.from({ length: 100 }, (_, i) => representativeBody(i)), HTTP_EVENTS * SUBSCRIBERS);
    return { ...result, rawCeilingRps: raw.requestsPerSecond };
  };
  const volumeAlone = async (bench: Bench): Promise<VolumeResult & { rawCeilingRps: number }> => {
    const result = await volumeScenario(volumeKit(uri, dbName, bench.sink));
    const raw = await rawCeiling(bench.sink, Array.from({ length: 100 }, (_, i) => representativeBody(i)), EVENTS * SUBSCRIBERS);
    return { ...result, rawCeilingRps: raw.requestsPerSecond };
  };
  const alone: Record<string, (bench: Bench) => Promise<unknown>> = { 'failing-publish': publishBesideFailing, 'head-of-line': headOfLine, retention: pruningUnderLoad, 'api-after-writes': afterWrites, 'http-fanout': httpAlone, volume: volumeAlone };
  if (ONLY !== undefined) {
    const scenario = alone[ONLY];
    if (!scenario) throw new Error(`BENCH_ONLY must be one of: ${Object.keys(alone).join(', ')}`);
    const outcome = await scenario(main);
    console.log(JSON.stringify({ [ONLY]: outcome }));
    printCommandProfile(ONLY);
    mkdirSync('.data/bench', { recursive: true });
    writeFileSync(`.data/bench/${ONLY}.json`, `${JSON.stringify({ store, quick: QUICK, [ONLY]: outcome }, null, 2)}\n`);
    if (ONLY === 'retention') printRetentionTargets(outcome as RetentionResult);
    if (ONLY === 'http-fanout') {
      console.log(`\nTargets, HTTP fan-out (${store}; raw undici ceiling in this run: ${(outcome as { rawCeilingRps: number }).rawCeilingRps} req/s)`);
      for (const { label, figure, target, ok } of httpFanOutTargets(outcome as HttpFanOutResult)) console.log(`  ${label.padEnd(52)} ${figure.padEnd(22)} target ${target.padEnd(16)} ${ok ? 'met' : 'MISSED'}`);
    }
    if (ONLY === 'volume') printVolumeTargets(outcome as VolumeResult, (outcome as { rawCeilingRps: number }).rawCeilingRps);
    if (ONLY === 'api-after-writes') for (const { label, figure, target, ok } of apiAfterWritesTargets(outcome as ApiAfterWritesResult)) console.log(`  ${label.padEnd(52)} ${figure.padEnd(22)} target ${target.padEnd(16)} ${ok ? 'met' : 'MISSED'}`);
    await main.close();
    sink.process.kill('SIGTERM');
    await ferret?.stop();
    children.length = 0;
    process.exit(0);
  }
  const results: ScenarioResult[] = [];
  const report = (result: ScenarioResult) => { results.push(result); console.log(JSON.stringify(result)); printCommandProfile(result.name); };
  if (WARMUP_EVENTS > 0) {
    await fanOut(main, WARMUP_EVENTS, 'warm-up');
    commandProfile.clear();
  }
  report(await fanOut(main, EVENTS, `(a) fan-out ${EVENTS} events × ${SUBSCRIBERS}`));
  const raw = await rawCeiling(sink, Array.from({ length: 100 }, (_, i) => representativeBody(i)), results[0]!.deliveries || EVENTS * SUBSCRIBERS);
  console.log(JSON.stringify({ rawCeiling: raw }));
  const http = await httpScenario(uri, main, results[0]);

  const proxy = await startProxyProcess(uri, DB_LATENCY_MS);
  const delayed = await openBench(proxy.uri, `${dbName}_latency`, sink);
  report(await fanOut(delayed, EVENTS, `(a) fan-out ${EVENTS} events × ${SUBSCRIBERS}, +${DB_LATENCY_MS} ms per DB round trip`));
  await delayed.close();

  report(await fixedRate(main));
  report(await failingThenRecovering(main));
  const hol = await headOfLine(main);
  console.log(JSON.stringify({ headOfLine: hol }));
  const failingPublish = await publishBesideFailing(main);
  console.log(JSON.stringify({ publishBesideFailing: failingPublish }));
  const afterWritesResult = await afterWrites(main);
  console.log(JSON.stringify({ apiAfterWrites: afterWritesResult }));
  // (f) on FerretDB takes many minutes (every query there reads whole collections): BENCH_ONLY=retention.
  const retention = MEMORY_MONGO || process.env.MONGODB_URI ? await pruningUnderLoad(main) : undefined;
  if (retention) console.log(JSON.stringify({ retention }));
  const publishing = await publishCost(proxy.uri, dbName, main);
  proxy.stop();
  const commandsPerEvent = publishing.commandsPerEvent;
  console.log(JSON.stringify({ publishCommandsPerEvent: commandsPerEvent, publishLatencyMs: publishing.latencyMs }));
  await main.close();
  const volume = await volumeScenario(volumeKit(uri, dbName, sink));
  console.log(JSON.stringify({ volume }));
  const ordering = await orderingScenarios(orderingOptions);

  const [fanOutResult, delayedResult, steady] = results as [ScenarioResult, ScenarioResult, ScenarioResult, ScenarioResult];
  const ratio = fanOutResult.deliveriesPerSecond / raw.requestsPerSecond;
  const latencyTolerance = round(delayedResult.deliveriesPerSecond / fanOutResult.deliveriesPerSecond, 2);
  const lost = results.reduce((n, r) => n + r.lost, 0) + hol.lost;
  const duplicates = results.reduce((n, r) => n + r.duplicates, 0);
  const summary = {
    store,
    quick: QUICK,
    subscribers: SUBSCRIBERS,
    node: process.version,
    v8Options: V8_OPTIONS,
    scenarios: results,
    rawCeilingRps: raw.requestsPerSecond,
    heraldToRaw: round(ratio, 4),
    // Herald's figure: the highest peak of the scenarios. The process's own peak also covers the
    // raw ceiling's undici client and the publish-cost phase's second Herald beside the first.
    peakRssMb: Math.max(hol.peakRssMb, ...results.map((r) => r.peakRssMb)),
    processPeakRssMb: round(peakRss / 1024 / 1024, 1),
    latencyTolerance,
    dbCommandsPerEvent: commandsPerEvent,
    publishLatencyMs: publishing.latencyMs,
    headOfLine: { healthyAloneP99Ms: hol.aloneP99, healthyBesideHangingP99Ms: hol.besideHangingP99 },
    publishBesideFailing: failingPublish,
    apiAfterWrites: afterWritesResult,
    httpFanOut: http,
    ...(retention ? { retention } : {}),
    volume,
    ordering,
    lost,
    duplicates,
  };
  mkdirSync('.data/bench', { recursive: true });
  writeFileSync('.data/bench/delivery.json', `${JSON.stringify(summary, null, 2)}\n`);

  console.log('\nResults');
  console.table(results.map((r) => ({
    scenario: r.name, deliveries: r.deliveries, 'deliv/s': r.deliveriesPerSecond, p50: r.latencyMs.p50, p95: r.latencyMs.p95, p99: r.latencyMs.p99,
    'cpu ms/deliv': r.cpuMsPerDelivery, 'store cpu ms/deliv': r.storeCpuMsPerDelivery ?? '-', 'db cmds/deliv': r.dbCommandsPerDelivery, 'peak RSS MB': r.peakRssMb, lost: r.lost, dups: r.duplicates, '500s': r.failedAttempts, 'publish errors': r.publishErrors,
  })));
  const line = (label: string, figure: string, target: string, ok: boolean) => console.log(`  ${label.padEnd(52)} ${figure.padEnd(22)} target ${target.padEnd(16)} ${verdict(ok)}`);
  console.log(`\nTargets (raw undici ceiling in this run: ${raw.requestsPerSecond} req/s; peak RSS ${summary.peakRssMb} MB in the scenarios, ${summary.processPeakRssMb} MB over the whole process)`);
  line('DB commands per published event', String(commandsPerEvent), '≤ 3', commandsPerEvent <= 3);
  console.log(`  ${`publish time, one publisher, +${DB_LATENCY_MS} ms per trip`.padEnd(52)} p50 ${publishing.latencyMs.p50} / p99 ${publishing.latencyMs.p99} ms (two round trips in series: ≥ ${2 * DB_LATENCY_MS} ms)`);
  line('DB commands per delivery, (a) fan-out', String(fanOutResult.dbCommandsPerDelivery), '≤ 0.5', fanOutResult.dbCommandsPerDelivery <= 0.5);
  line('Herald CPU ms per delivery, (a) fan-out', String(fanOutResult.cpuMsPerDelivery), '≤ 0.3', fanOutResult.cpuMsPerDelivery <= 0.3);
  if (fanOutResult.storeCpuMsPerDelivery !== null) {
    console.log(`  ${'CPU ms per delivery, Herald + store, (a) / (b)'.padEnd(52)} ${fanOutResult.cpuMsPerDelivery} + ${fanOutResult.storeCpuMsPerDelivery} / ${steady.cpuMsPerDelivery} + ${steady.storeCpuMsPerDelivery}`);
  }
  line(`latency tolerance (a) +${DB_LATENCY_MS} ms / (a) +0 ms`, String(latencyTolerance), '≥ 0.7', latencyTolerance >= 0.7);
  line('healthy beside hanging, same origin, p99', `${hol.besideHangingP99} ms (alone ${hol.aloneP99})`, '≤ 2× alone', hol.besideHangingP99 <= 2 * hol.aloneP99);
  const mongoClass = Boolean(process.env.MONGODB_URI) || MEMORY_MONGO;
  line('(a) throughput', `${fanOutResult.deliveriesPerSecond}/s`, mongoClass ? '≥ 30% of raw' : '≥ 100/s', mongoClass ? ratio >= 0.3 : fanOutResult.deliveriesPerSecond >= 100);
  const firstTenth = fanOutResult.extra?.firstTenthDeliveriesPerSecond ?? 0;
  const lastTenth = fanOutResult.extra?.lastTenthDeliveriesPerSecond ?? 0;
  line('(a) last tenth of events vs first tenth', `${lastTenth}/s vs ${firstTenth}/s`, 'as fast', lastTenth >= 0.8 * firstTenth);
  line('(a) Herald / raw ceiling', `${round(ratio * 100, 1)}%`, '≥ 30%', ratio >= 0.3);
  line(`(b) p50 / p99 at ${RATE}/s offered`, `${steady.latencyMs.p50} / ${steady.latencyMs.p99} ms`, '≤ 25 / 150 ms', steady.latencyMs.p50 <= 25 && steady.latencyMs.p99 <= 150);
  line('(b) completes with 0 publish errors', `${steady.publishErrors} errors, ${steady.lost} lost`, '0, 0', steady.publishErrors === 0 && steady.lost === 0);
  line('(e) publish beside a receiver failing every attempt', `${failingPublish.eventsPerSecond} events/s`, '≥ 100/s', failingPublish.eventsPerSecond >= 100);
  printOrdering(ordering);
  line('lost, duplicates', `${lost}, ${duplicates}`, '0, 0', lost === 0 && duplicates === 0);
  line('peak RSS, scenarios (a)–(d)', `${summary.peakRssMb} MB`, '≤ 300 MB', summary.peakRssMb <= 300);
  for (const { label, figure, target, ok } of apiAfterWritesTargets(afterWritesResult)) line(label, figure, target, ok);
  for (const { label, figure, target, ok } of httpFanOutTargets(http)) line(label, figure, target, ok);
  if (retention) printRetentionTargets(retention);
  printVolumeTargets(volume, raw.requestsPerSecond);
  console.log('\nWritten: .data/bench/delivery.json');
  // Stopped here, awaited, so the store shuts down idle and its files are removed; the exit
  // handler covers the other ways out.
  sink.process.kill('SIGTERM');
  await ferret?.stop();
  children.length = 0;
  process.exit(0);
}

await main();
