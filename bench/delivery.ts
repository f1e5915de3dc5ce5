// `make bench` → `npm run bench`: the delivery benchmark (not a test). Starts FerretDB (or uses
// MONGODB_URI) and a sink in a separate process, embeds Herald in this process, and measures:
//   (a) fan-out: BENCH_EVENTS events × BENCH_SUBSCRIBERS subscribers, published as fast as possible;
//   (b) fixed rate: BENCH_RATE deliveries/s for BENCH_RATE_SECONDS;
//   (c) the sink failing 50% with 500s, then recovering;
//   and the raw ceiling: plain undici POSTs of the same bodies to the same sink, no persistence.
// Knobs: BENCH_QUICK=1 (short runs), BENCH_EVENTS, BENCH_SUBSCRIBERS, BENCH_RATE,
// BENCH_RATE_SECONDS, BENCH_FAIL_EVENTS, BENCH_TIMEOUT_S, MONGODB_URI.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import { Agent, request } from 'undici';
import { createHerald, type Herald } from '@herald/core';
import { ferretDbBinary, freePort, type RunningFerretDb } from '../test/support/ferretdb.js';
import { latencySummary, round } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
// FerretDB v1 (sqlite) scans the whole collection on every update (only `_id` finds are pushed
// down), so the spec-sized run takes hours there; BENCH_QUICK sizes a run to finish in minutes.
const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_EVENTS', QUICK ? 100 : 10_000);
const SUBSCRIBERS = num('BENCH_SUBSCRIBERS', 10);
const RATE = num('BENCH_RATE', 500);
const RATE_SECONDS = num('BENCH_RATE_SECONDS', QUICK ? 5 : 60);
const FAIL_EVENTS = num('BENCH_FAIL_EVENTS', QUICK ? 30 : 1_000);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', QUICK ? 300 : 1_800) * 1000;
const ENGINE_CONCURRENCY = num('BENCH_ENGINE_CONCURRENCY', 32);
const PUBLISH_CONCURRENCY = num('BENCH_PUBLISH_CONCURRENCY', 4);
const scope = { orgId: 'bench', actor: 'bench' };

/**
 * FerretDB as test/support/ferretdb.ts starts it; BENCH_SQLITE_PARAMS appends SQLite connection
 * parameters to its --sqlite-url (e.g. '?_txlock=immediate') for experiments.
 */
async function startBenchFerretDb(): Promise<RunningFerretDb> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-ferretdb-'));
  const port = await freePort();
  const params = process.env.BENCH_SQLITE_PARAMS ?? '';
  const child = spawn(
    ferretDbBinary(),
    ['--handler=sqlite', `--sqlite-url=file:${dataDir}/${params}`, `--listen-addr=127.0.0.1:${port}`, '--telemetry=disable', '--log-level=error', '--debug-addr=-'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const uri = `mongodb://127.0.0.1:${port}/`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await probe.db('admin').command({ ping: 1 });
      break;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) throw error;
    } finally {
      await probe.close();
    }
  }
  return {
    uri,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Receipt = [deliveryId: string, eventId: string, receivedAtMs: number, status: number];

interface Sink {
  url: string;
  process: ChildProcess;
  control(failRate: number): Promise<void>;
  receipts(since: number): Promise<Receipt[]>;
}

async function startSink(): Promise<Sink> {
  const child = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`sink exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => done((JSON.parse(line) as { port: number }).port));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    process: child,
    async control(failRate) {
      await fetch(`${base}/control`, { method: 'POST', body: JSON.stringify({ failRate }) });
    },
    async receipts(since) {
      return (await (await fetch(`${base}/receipts?since=${since}`)).json()) as Receipt[];
    },
  };
}

/** Follows the sink's receipts incrementally. */
class ReceiptLog {
  private next = 0;
  readonly delivered = new Map<string, Receipt>(); // first 2xx receipt per delivery id
  okCount = 0;
  failedCount = 0;
  private readonly sink: Sink;
  constructor(sink: Sink) {
    this.sink = sink;
  }
  async start(): Promise<void> {
    this.next = (await this.sink.receipts(0)).length;
  }
  async poll(): Promise<void> {
    const fresh = await this.sink.receipts(this.next);
    this.next += fresh.length;
    for (const receipt of fresh) {
      if (receipt[3] >= 200 && receipt[3] < 300) {
        this.okCount += 1;
        if (!this.delivered.has(receipt[0])) this.delivered.set(receipt[0], receipt);
      } else {
        this.failedCount += 1;
      }
    }
  }
}

interface Meter {
  cpuMs(): number;
  commands(): number;
  elapsedMs(): number;
}

let commandCount = 0;
/** Set once Herald runs: prints where undelivered rows are stuck. */
let diagnose: (() => Promise<void>) | undefined;
let peakRss = 0;
setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 50).unref();

function meter(): Meter {
  const cpu = process.cpuUsage();
  const commands = commandCount;
  const started = performance.now();
  return {
    cpuMs: () => { const d = process.cpuUsage(cpu); return (d.user + d.system) / 1000; },
    commands: () => commandCount - commands,
    elapsedMs: () => performance.now() - started,
  };
}

interface ScenarioResult {
  name: string;
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  cpuMsPerDelivery: number;
  dbRoundTripsPerDelivery: number;
  lost: number;
  duplicates: number;
  failedAttempts: number;
  extra?: Record<string, number>;
}

async function waitForAll(log: ReceiptLog, expected: ReadonlySet<string>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await log.poll();
    let missing = 0;
    for (const id of expected) if (!log.delivered.has(id)) missing += 1;
    if (missing === 0) return;
    if (Date.now() > deadline) {
      console.log(`  … gave up waiting: ${missing} of ${expected.size} deliveries not received`);
      await diagnose?.();
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function summarize(name: string, log: ReceiptLog, expected: Set<string>, publishedAt: Map<string, number>, m: Meter, extra?: Record<string, number>): ScenarioResult {
  const latencies: number[] = [];
  let lastReceipt = 0;
  for (const id of expected) {
    const receipt = log.delivered.get(id);
    if (!receipt) continue;
    const published = publishedAt.get(receipt[1]);
    if (published !== undefined) latencies.push(receipt[2] - published);
    lastReceipt = Math.max(lastReceipt, receipt[2]);
  }
  const delivered = [...expected].filter((id) => log.delivered.has(id)).length;
  const firstPublish = Math.min(...publishedAt.values());
  // Throughput runs from the first publish to the last receipt (or to now, if nothing arrived).
  const seconds = ((delivered > 0 ? lastReceipt : Date.now()) - firstPublish) / 1000;
  return {
    name,
    deliveries: delivered,
    seconds: round(seconds),
    deliveriesPerSecond: round(delivered / seconds, 1),
    latencyMs: latencySummary(latencies),
    cpuMsPerDelivery: round(m.cpuMs() / Math.max(1, delivered), 3),
    dbRoundTripsPerDelivery: round(m.commands() / Math.max(1, delivered), 2),
    lost: expected.size - delivered,
    duplicates: log.okCount - log.delivered.size,
    failedAttempts: log.failedCount,
    ...(extra ? { extra } : {}),
  };
}

async function publishOne(herald: Herald, i: number, expected: Set<string>, publishedAt: Map<string, number>): Promise<void> {
  const started = Date.now();
  const { event } = await herald.events.publish(scope, {
    eventType: 'order.created',
    aggregateId: `order-${i}`,
    data: { orderId: `order-${i}`, total: 100 + i, currency: 'EUR', customer: { id: `c-${i % 97}`, tier: 'gold' }, card: '4111111111111111' },
  });
  publishedAt.set(event.eventId, started);
  for (const delivery of event.deliveries) expected.add(delivery.deliveryId);
}

/** Publishes `count` events with PUBLISH_CONCURRENCY publishers at once. */
async function publishMany(herald: Herald, count: number, expected: Set<string>, publishedAt: Map<string, number>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PUBLISH_CONCURRENCY }, async () => {
      while (next < count) await publishOne(herald, next++, expected, publishedAt);
    }),
  );
}

async function fanOut(herald: Herald, sink: Sink, events: number, name: string): Promise<ScenarioResult> {
  const log = new ReceiptLog(sink);
  await log.start();
  const expected = new Set<string>();
  const publishedAt = new Map<string, number>();
  const m = meter();
  await publishMany(herald, events, expected, publishedAt);
  const publishSeconds = m.elapsedMs() / 1000;
  await waitForAll(log, expected, TIMEOUT_MS);
  return summarize(name, log, expected, publishedAt, m, { publishSeconds: round(publishSeconds) });
}

async function fixedRate(herald: Herald, sink: Sink): Promise<ScenarioResult> {
  const log = new ReceiptLog(sink);
  await log.start();
  const expected = new Set<string>();
  const publishedAt = new Map<string, number>();
  const eventsPerSecond = RATE / SUBSCRIBERS;
  const total = Math.round(eventsPerSecond * RATE_SECONDS);
  const m = meter();
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (issued < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * eventsPerSecond) + 1);
    while (issued < due) {
      const publishing = publishOne(herald, issued++, expected, publishedAt).finally(() => inFlight.delete(publishing));
      inFlight.add(publishing);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inFlight);
  const achievedRate = (expected.size / (performance.now() - started)) * 1000;
  await waitForAll(log, expected, TIMEOUT_MS);
  return summarize(`(b) fixed ${RATE}/s for ${RATE_SECONDS} s`, log, expected, publishedAt, m, { offeredDeliveriesPerSecond: round(achievedRate, 1) });
}

async function failingThenRecovering(herald: Herald, sink: Sink): Promise<ScenarioResult> {
  await sink.control(0.5);
  const log = new ReceiptLog(sink);
  await log.start();
  const expected = new Set<string>();
  const publishedAt = new Map<string, number>();
  const m = meter();
  await publishMany(herald, FAIL_EVENTS, expected, publishedAt);
  // Let first attempts (and some retries) run into the failing sink, then recover it.
  const failingUntil = Date.now() + Math.max(3_000, m.elapsedMs());
  while (Date.now() < failingUntil) {
    await log.poll();
    await new Promise((r) => setTimeout(r, 100));
  }
  await sink.control(0);
  const recoveredAt = Date.now();
  await waitForAll(log, expected, TIMEOUT_MS);
  const lastReceipt = Math.max(...[...log.delivered.values()].map((r) => r[2]));
  return summarize('(c) 50% 500s, then recovery', log, expected, publishedAt, m, { secondsFromRecoveryToAllDelivered: round((lastReceipt - recoveredAt) / 1000) });
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

async function main(): Promise<void> {
  let ferret: RunningFerretDb | undefined;
  const uri = process.env.MONGODB_URI ?? (ferret = await startBenchFerretDb()).uri;
  const sink = await startSink();
  const client = new MongoClient(uri, { monitorCommands: true });
  const outstanding = new Map<number, string>();
  client.on('commandStarted', (event) => {
    commandCount += 1;
    outstanding.set(event.requestId, `${event.commandName} ${String((event.command as Record<string, unknown>)[event.commandName])} @${Date.now()}`);
  });
  client.on('commandSucceeded', (event) => outstanding.delete(event.requestId));
  client.on('commandFailed', (event) => outstanding.delete(event.requestId));
  await client.connect();
  const db = client.db(`bench_${randomBytes(4).toString('hex')}`);
  const herald = await createHerald({
    mongo: { db },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    eventTypes: [{ type: 'order.created', sensitive: ['card'] }],
    logger: {
      debug() {},
      info() {},
      warn: (obj, msg) => console.warn('warn', msg, JSON.stringify(obj)),
      error: (obj, msg) => console.error('error', msg, JSON.stringify(obj)),
    },
    delivery: {
      ssrfAllowList: ['127.0.0.0/8'],
      concurrency: ENGINE_CONCURRENCY,
      perSubscriberConcurrency: Math.max(1, Math.ceil(ENGINE_CONCURRENCY / 4)),
      batchSize: num('BENCH_BATCH', 32),
      retrySchedule: [250, 500, 1_000, 2_000, 4_000],
      maxAttempts: 20,
      pollIntervalMs: 250,
    },
  });
  for (let i = 0; i < SUBSCRIBERS; i += 1) {
    await herald.subscribers.create(scope, { displayName: `bench ${i}`, targetUrl: `${sink.url}/s${i}`, secret: `bench-secret-${i}-0123456789` });
  }
  await herald.start();
  diagnose = async () => {
    console.log(`  database commands still waiting for an answer at ${Date.now()}:`, JSON.stringify([...outstanding.values()]));
    const byStatus = await db.collection('herald_deliveries').aggregate([{ $group: { _id: '$status', n: { $sum: 1 } } }]).toArray();
    console.log('  rows by status:', JSON.stringify(byStatus), 'engine:', JSON.stringify(herald.metrics()));
  };
  console.log(`Herald delivery benchmark — ${process.env.MONGODB_URI ? 'MONGODB_URI' : 'FerretDB v1 (sqlite)'}, ${SUBSCRIBERS} subscribers, node ${process.version}${QUICK ? ', BENCH_QUICK' : ''}`);

  const results: ScenarioResult[] = [];
  results.push(await fanOut(herald, sink, EVENTS, `(a) fan-out ${EVENTS} events × ${SUBSCRIBERS}`));
  console.log(JSON.stringify(results.at(-1)));
  const bodies = (await db.collection<{ body: string }>('herald_deliveries').find({}, { projection: { body: 1 } }).limit(1_000).toArray()).map((row) => row.body);
  const raw = await rawCeiling(sink, bodies, results[0]!.deliveries || EVENTS * SUBSCRIBERS);
  console.log(JSON.stringify({ rawCeiling: raw }));
  results.push(await fixedRate(herald, sink));
  console.log(JSON.stringify(results.at(-1)));
  results.push(await failingThenRecovering(herald, sink));
  console.log(JSON.stringify(results.at(-1)));

  await herald.close();
  await client.close();
  sink.process.kill('SIGTERM');
  await ferret?.stop();

  const fanOutResult = results[0]!;
  const steady = results[1]!;
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  console.log('\nResults');
  console.table(results.map((r) => ({
    scenario: r.name, deliveries: r.deliveries, 'deliv/s': r.deliveriesPerSecond, p50: r.latencyMs.p50, p95: r.latencyMs.p95, p99: r.latencyMs.p99,
    'cpu ms/deliv': r.cpuMsPerDelivery, 'db trips/deliv': r.dbRoundTripsPerDelivery, 'not delivered': r.lost, dups: r.duplicates, '500s': r.failedAttempts,
  })));
  const ratio = fanOutResult.deliveriesPerSecond / raw.requestsPerSecond;
  console.log(`raw ceiling: ${raw.requestsPerSecond} req/s (${raw.cpuMsPerRequest} cpu ms/req); Herald/raw = ${round(ratio * 100, 1)}%`);
  console.log(`peak RSS: ${round(peakRss / 1024 / 1024, 1)} MB`);
  console.log('\nTargets');
  console.log(`  throughput ≥ 50% of raw ceiling:  ${round(ratio * 100, 1)}%  ${verdict(ratio >= 0.5)}`);
  console.log(`  p50 ≤ 20 ms at ${RATE}/s:           ${steady.latencyMs.p50} ms  ${verdict(steady.latencyMs.p50 <= 20)}`);
  console.log(`  p99 ≤ 100 ms at ${RATE}/s:          ${steady.latencyMs.p99} ms  ${verdict(steady.latencyMs.p99 <= 100)}`);
  console.log(`  peak RSS ≤ 300 MB:                 ${round(peakRss / 1024 / 1024, 1)} MB  ${verdict(peakRss <= 300 * 1024 * 1024)}`);
  const worstTrips = Math.max(...results.map((r) => r.dbRoundTripsPerDelivery));
  console.log(`  ≤ 3 DB round trips per delivery:   ${worstTrips}  ${verdict(worstTrips <= 3)}`);
  const lost = results.reduce((n, r) => n + r.lost, 0);
  const dups = results.reduce((n, r) => n + r.duplicates, 0);
  console.log(`  0 lost, 0 duplicates:              ${lost} not delivered by the end of the run, ${dups} duplicates  ${verdict(lost === 0 && dups === 0)}`);
  process.exit(0);
}

await main();
