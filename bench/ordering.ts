// The per-key ordering scenarios of the delivery benchmark (issue 23), run by bench/delivery.ts
// (alone: BENCH_ONLY=ordering). Each run gets a Herald of its own on a fresh database and a
// receiver process of its own (bench/ordering-sink.ts).
//   (g) throughput: BENCH_ORDER_EVENTS events over BENCH_ORDER_KEYS aggregates to one subscriber
//       (its concurrency BENCH_ORDER_CONCURRENCY), the receiver failing BENCH_ORDER_FAIL_RATE of the
//       attempts at random — once ordered, once not: every key in order, none lost, ordered
//       throughput against unordered;
//   (h) one failing key: BENCH_ORDER_RATE events/s over BENCH_ORDER_RATE_KEYS aggregates for
//       BENCH_ORDER_STUCK_SECONDS, once as is and once with one more aggregate whose deliveries the
//       receiver refuses for that whole time: the other keys' p99, publish to 2xx.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { MongoClient } from 'mongodb';
import { createHerald, type Herald } from '@herald/core';
import { latencySummary, round } from './stats.js';

type Receipt = [deliveryId: string, aggregateId: string, sequence: number | null, receivedAtMs: number, status: number];

export interface OrderingOptions {
  uri: string;
  quick: boolean;
  masterKeys: { current: string; keys: Record<string, string> };
  timeoutMs: number;
  publishConcurrency: number;
  engineConcurrency: number;
  /** The bench's client (bench/delivery.ts benchClient), so BENCH_PROFILE_COMMANDS sees these runs too. */
  newClient(uri: string): MongoClient;
  /** Called with each run's name once it ends (the command profile is printed per run). */
  runDone(name: string): void;
}

export interface ThroughputRun {
  events: number;
  keys: number;
  seconds: number;
  deliveriesPerSecond: number;
  lost: number;
  /** Keys whose 2xx deliveries did not arrive as 1, 2, 3, … (repeats of a number aside). */
  keysOutOfOrder: number;
  failedAttempts: number;
  latencyMs: ReturnType<typeof latencySummary>;
}

export interface OrderingSummary {
  failRate: number;
  unordered: ThroughputRun;
  ordered: ThroughputRun;
  /** ordered / unordered throughput. */
  throughputRatio: number;
  failingKey: { seconds: number; ratePerSecond: number; keys: number; otherKeysP99Ms: number; otherKeysP99WithoutFailingKeyMs: number; failingKeyAttempts: number; otherKeysLost: number; otherKeysOutOfOrder: number };
}

const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

interface OrderingSink {
  url: string;
  child: ChildProcess;
  control(body: { failRate: number; failKey?: string; failKeyUntil?: number }): Promise<void>;
  receipts(since: number): Promise<Receipt[]>;
}

async function startOrderingSink(): Promise<OrderingSink> {
  const child = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'ordering-sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`ordering sink exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => done((JSON.parse(line) as { port: number }).port));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    child,
    async control(body) {
      await fetch(`${base}/control`, { method: 'POST', body: JSON.stringify(body) });
    },
    async receipts(since) {
      return (await (await fetch(`${base}/receipts?since=${since}`)).json()) as Receipt[];
    },
  };
}

interface Instance {
  herald: Herald;
  sink: OrderingSink;
  close(): Promise<void>;
}

async function open(options: OrderingOptions, ordered: boolean): Promise<Instance> {
  const client = options.newClient(options.uri);
  await client.connect();
  const db = client.db(`bench_order_${randomBytes(4).toString('hex')}`);
  const sink = await startOrderingSink();
  const herald = await createHerald({
    mongo: { db },
    masterKeys: options.masterKeys,
    eventTypes: [{ type: 'order.changed' }],
    logger: { debug() {}, info() {}, warn: (obj, msg) => console.warn('warn', msg, JSON.stringify(obj)), error: (obj, msg) => console.error('error', msg, JSON.stringify(obj)) },
    // As the other scenarios' Herald (bench/delivery.ts openBench).
    delivery: {
      ssrfAllowList: ['127.0.0.0/8'],
      concurrency: options.engineConcurrency,
      // One subscriber takes every event here, so its cap, not the engine's, bounds both runs: at the
      // other scenarios' 16 the unordered run is held to 16 rows per claim round trip.
      perSubscriberConcurrency: num('BENCH_ORDER_CONCURRENCY', 64),
      batchSize: num('BENCH_BATCH', 200),
      retrySchedule: [250, 500, 1_000, 2_000, 4_000],
      maxAttempts: 20,
      pollIntervalMs: 250,
    },
  });
  await herald.subscribers.create({ orgId: 'bench', actor: 'bench' }, { displayName: 'ordering bench', targetUrl: `${sink.url}/in`, secret: 'bench-ordering-secret-0123456789', events: ['order.*'], ...(ordered ? { ordering: 'aggregate' as const } : {}) });
  await herald.start();
  return {
    herald,
    sink,
    async close() {
      await herald.close();
      sink.child.kill('SIGTERM');
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

/** Per delivery id its first 2xx receipt; per key the sequence of 2xx numbers; failures counted. */
class Receipts {
  private next = 0;
  readonly delivered = new Map<string, Receipt>();
  readonly byKey = new Map<string, number[]>();
  failed = 0;
  private readonly sink: OrderingSink;
  constructor(sink: OrderingSink) {
    this.sink = sink;
  }
  async poll(): Promise<void> {
    const fresh = await this.sink.receipts(this.next);
    this.next += fresh.length;
    for (const receipt of fresh) {
      if (receipt[4] < 200 || receipt[4] >= 300) {
        this.failed += 1;
        continue;
      }
      if (this.delivered.has(receipt[0])) continue;
      this.delivered.set(receipt[0], receipt);
      if (receipt[2] !== null) this.byKey.set(receipt[1], [...(this.byKey.get(receipt[1]) ?? []), receipt[2]]);
    }
  }
  /** Keys whose numbers, in arrival order, are not 1, 2, 3, … `expected` (or, without it, not increasing). */
  outOfOrder(keys: Iterable<string>, expected?: ReadonlyMap<string, number>): number {
    let bad = 0;
    for (const key of keys) {
      const numbers = this.byKey.get(key) ?? [];
      const inOrder = numbers.every((number, index) => number === index + 1) && (expected === undefined || numbers.length === expected.get(key));
      if (!inOrder) bad += 1;
    }
    return bad;
  }
}

interface Published {
  deliveries: Map<string, { key: string; at: number }>;
  perKey: Map<string, number>;
  /** How long each publish call took. */
  publishMs?: number[];
}

/**
 * (h)'s other keys split at the moment the failing key recovers (the end of publishing): their
 * p99 publish → 2xx by when the 2xx came, and the p99 of the publish calls themselves.
 */
interface SteadyPhases {
  p99BeforeRecoveryMs: number;
  p99AfterRecoveryMs: number;
  deliveredAfterRecovery: number;
  publishP99Ms: number;
}

async function publishOne(herald: Herald, key: string, index: number, published: Published): Promise<void> {
  const at = Date.now();
  const { event } = await herald.events.publish({ orgId: 'bench', actor: 'bench' }, { eventType: 'order.changed', aggregateType: 'order', aggregateId: key, data: { index, note: 'x'.repeat(200) } });
  published.publishMs?.push(Date.now() - at);
  for (const delivery of event.deliveries) published.deliveries.set(delivery.deliveryId, { key, at });
  published.perKey.set(key, (published.perKey.get(key) ?? 0) + 1);
}

async function waitForAll(receipts: Receipts, ids: Iterable<string>, timeoutMs: number): Promise<void> {
  const wanted = [...ids];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await receipts.poll();
    const missing = wanted.filter((id) => !receipts.delivered.has(id)).length;
    if (missing === 0) return;
    if (Date.now() > deadline) {
      console.log(`  … gave up waiting: ${missing} of ${wanted.length} deliveries not received`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function throughput(options: OrderingOptions, ordered: boolean, keys: number, events: number, failRate: number): Promise<ThroughputRun> {
  const instance = await open(options, ordered);
  try {
    await instance.sink.control({ failRate });
    const receipts = new Receipts(instance.sink);
    const published: Published = { deliveries: new Map(), perKey: new Map() };
    const started = Date.now();
    let next = 0;
    // Keys interleaved, as a real producer's are: event i belongs to key i mod keys.
    await Promise.all(Array.from({ length: options.publishConcurrency }, async () => {
      while (next < events) {
        const index = next++;
        await publishOne(instance.herald, `k${index % keys}`, index, published);
      }
    }));
    await waitForAll(receipts, published.deliveries.keys(), options.timeoutMs);
    const arrived = [...published.deliveries.keys()].flatMap((id) => (receipts.delivered.has(id) ? [receipts.delivered.get(id)!] : []));
    const last = Math.max(...arrived.map((receipt) => receipt[3]));
    const seconds = (last - started) / 1000;
    return {
      events,
      keys,
      seconds: round(seconds),
      deliveriesPerSecond: round(arrived.length / seconds, 1),
      lost: published.deliveries.size - arrived.length,
      keysOutOfOrder: ordered ? receipts.outOfOrder(published.perKey.keys(), published.perKey) : 0,
      failedAttempts: receipts.failed,
      latencyMs: latencySummary(arrived.map((receipt) => receipt[3] - published.deliveries.get(receipt[0])!.at)),
    };
  } finally {
    await instance.close();
  }
}

/** Steady publishing over `keys` keys for `seconds`; with `stuck`, one more key the receiver refuses all along. */
async function steady(options: OrderingOptions, keys: number, perSecond: number, seconds: number, stuck: boolean): Promise<{ p99: number; lost: number; outOfOrder: number; stuckAttempts: number; phases: SteadyPhases }> {
  const instance = await open(options, true);
  try {
    const receipts = new Receipts(instance.sink);
    const recovery = Date.now() + seconds * 1000;
    await instance.sink.control({ failRate: 0, ...(stuck ? { failKey: 'stuck', failKeyUntil: recovery } : {}) });
    const published: Published = { deliveries: new Map(), perKey: new Map(), publishMs: [] };
    const stuckPublished: Published = { deliveries: new Map(), perKey: new Map() };
    const started = performance.now();
    const total = Math.round(perSecond * seconds);
    const inFlight = new Set<Promise<void>>();
    for (let issued = 0; issued < total; ) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
      while (issued < due) {
        const index = issued++;
        // A tenth of the stuck key's share: it keeps some events waiting behind its head all along.
        const publishing = (stuck && index % 20 === 0 ? publishOne(instance.herald, 'stuck', index, stuckPublished) : publishOne(instance.herald, `k${index % keys}`, index, published)).finally(() => inFlight.delete(publishing));
        inFlight.add(publishing);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(inFlight);
    await waitForAll(receipts, published.deliveries.keys(), options.timeoutMs);
    const timed = [...published.deliveries].flatMap(([id, { at }]) => (receipts.delivered.has(id) ? [{ receivedAt: receipts.delivered.get(id)![3], ms: receipts.delivered.get(id)![3] - at }] : []));
    const latencies = timed.map((t) => t.ms);
    const after = timed.filter((t) => t.receivedAt >= recovery).map((t) => t.ms);
    const phases: SteadyPhases = {
      p99BeforeRecoveryMs: latencySummary(timed.filter((t) => t.receivedAt < recovery).map((t) => t.ms)).p99,
      p99AfterRecoveryMs: after.length > 0 ? latencySummary(after).p99 : 0,
      deliveredAfterRecovery: after.length,
      publishP99Ms: latencySummary(published.publishMs!).p99,
    };
    const stuckAttempts = stuck ? (await instance.sink.receipts(0)).filter((receipt) => receipt[1] === 'stuck').length : 0;
    return {
      phases,
      p99: latencySummary(latencies).p99,
      lost: published.deliveries.size - latencies.length,
      outOfOrder: receipts.outOfOrder(published.perKey.keys(), published.perKey),
      stuckAttempts,
    };
  } finally {
    await instance.close();
  }
}

export async function orderingScenarios(options: OrderingOptions): Promise<OrderingSummary> {
  const keys = num('BENCH_ORDER_KEYS', options.quick ? 200 : 1_000);
  const events = num('BENCH_ORDER_EVENTS', options.quick ? 2_000 : 10_000);
  const failRate = num('BENCH_ORDER_FAIL_RATE', 0.2);
  const unordered = await throughput(options, false, keys, events, failRate);
  console.log(JSON.stringify({ orderingUnordered: unordered }));
  options.runDone('(g) unordered');
  const ordered = await throughput(options, true, keys, events, failRate);
  console.log(JSON.stringify({ orderingOrdered: ordered }));
  options.runDone('(g) ordered');
  const stuckSeconds = num('BENCH_ORDER_STUCK_SECONDS', options.quick ? 15 : 60);
  const rate = num('BENCH_ORDER_RATE', 50);
  const rateKeys = num('BENCH_ORDER_RATE_KEYS', 100);
  const alone = await steady(options, rateKeys, rate, stuckSeconds, false);
  options.runDone('(h) without the failing key');
  const beside = await steady(options, rateKeys, rate, stuckSeconds, true);
  options.runDone('(h) beside the failing key');
  console.log(JSON.stringify({ orderingFailingKey: { alone, beside } }));
  return {
    failRate,
    unordered,
    ordered,
    throughputRatio: round(ordered.deliveriesPerSecond / unordered.deliveriesPerSecond, 2),
    failingKey: {
      seconds: stuckSeconds,
      ratePerSecond: rate,
      keys: rateKeys,
      otherKeysP99Ms: beside.p99,
      otherKeysP99WithoutFailingKeyMs: alone.p99,
      failingKeyAttempts: beside.stuckAttempts,
      otherKeysLost: beside.lost + alone.lost,
      otherKeysOutOfOrder: beside.outOfOrder + alone.outOfOrder,
    },
  };
}

/** The targets of issue 23 for these scenarios, as printed lines. */
export function orderingTargets(summary: OrderingSummary): Array<{ label: string; figure: string; target: string; ok: boolean }> {
  const { ordered, unordered, failingKey } = summary;
  return [
    { label: `(g) ordered: ${ordered.keys} keys, ${ordered.events} events, ${summary.failRate * 100}% failing`, figure: `${ordered.keysOutOfOrder} keys out of order, ${ordered.lost} lost`, target: '0, 0', ok: ordered.keysOutOfOrder === 0 && ordered.lost === 0 },
    { label: '(g) ordered / unordered throughput', figure: `${ordered.deliveriesPerSecond}/s vs ${unordered.deliveriesPerSecond}/s (${round(summary.throughputRatio * 100, 0)}%)`, target: '≥ 50%', ok: summary.throughputRatio >= 0.5 },
    { label: `(h) other keys' p99 beside a key failing ${failingKey.seconds} s`, figure: `${failingKey.otherKeysP99Ms} ms (without: ${failingKey.otherKeysP99WithoutFailingKeyMs})`, target: '≤ 2× without', ok: failingKey.otherKeysP99Ms <= 2 * failingKey.otherKeysP99WithoutFailingKeyMs && failingKey.otherKeysLost === 0 },
  ];
}
