// HTTP fan-out (issue 31): the built host in its own process (bench/host-process.ts) on the
// benchmark's store, the benchmark's subscribers created through its API, pointing at the same
// sink; events published over HTTP, first one per request by several concurrent publishers, then
// in batches through POST /webhook-events/batch. Each phase gets a fresh host and database, as the
// in-process fan-out (a) starts on an empty one, warmed up as (a)'s Herald is
// (`BENCH_WARMUP_EVENTS`, published the phase's way and delivered before it is measured). Figures: events/s accepted (first request → last
// answer), deliveries/s (first request → last receipt), the host's CPU per delivery, beside (a).
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Agent, request } from 'undici';
import { startHostProcess, type HostProcess, type HostSettings } from './host-process.js';
import { treeCpuMs } from './process-tree-cpu.js';
import { latencySummary, round } from './stats.js';

type Receipt = [deliveryId: string, eventId: string, receivedAtMs: number, status: number];

export interface HttpFanOutOptions {
  uri: string;
  sinkUrl: string;
  receipts(since: number): Promise<Receipt[]>;
  events: number;
  subscribers: number;
  /** Concurrent requests, in both phases. */
  publishers: number;
  batchSize: number;
  /** Events published the phase's way and delivered on each fresh host before it is measured. */
  warmUpEvents: number;
  timeoutMs: number;
  event(i: number): { eventType: string; aggregateId: string; data: Record<string, unknown> };
  host: Omit<HostSettings, 'mongodbUri' | 'dbName'>;
  /** The in-process fan-out (a) of the same events and subscribers, in this run. */
  inProcess: { events: number; deliveriesPerSecond: number; eventsPerSecond: number; cpuMsPerDelivery: number };
}

export interface HttpPhase {
  requests: number;
  accepted: number;
  publishErrors: number;
  publishSeconds: number;
  eventsPerSecond: number;
  deliveries: number;
  lost: number;
  deliveriesPerSecond: number;
  latencyMs: ReturnType<typeof latencySummary>;
  /** The host process's CPU (publishing and delivering) per delivery. */
  hostCpuMsPerDelivery: number;
}

export interface HttpFanOutResult {
  events: number;
  batchSize: number;
  publishers: number;
  inProcess: HttpFanOutOptions['inProcess'];
  onePerRequest: HttpPhase;
  batches: HttpPhase;
  /** Batches' events/s ÷ one-per-request events/s (goal ≥ 10). */
  batchToSingleEvents: number;
  /** Batches' deliveries/s ÷ the in-process fan-out's (goal ≥ 0.9). */
  batchToInProcessDeliveries: number;
}

async function api(host: HostProcess, agent: Agent, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await request(`${host.origin}/api/v0.9${path}`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, json: await response.body.json() };
}

/** The sink's 2xx receipts of the given events, first per delivery id, followed incrementally. */
class Deliveries {
  private next = 0;
  readonly firstReceipt = new Map<string, Receipt>();
  private readonly options: HttpFanOutOptions;
  private readonly events: ReadonlyMap<string, number>;
  constructor(options: HttpFanOutOptions, events: ReadonlyMap<string, number>) {
    this.options = options;
    this.events = events;
  }
  async start(): Promise<void> {
    this.next = (await this.options.receipts(0)).length;
  }
  async poll(): Promise<void> {
    const fresh = await this.options.receipts(this.next);
    this.next += fresh.length;
    for (const receipt of fresh) {
      if (receipt[3] >= 200 && receipt[3] < 300 && this.events.has(receipt[1]) && !this.firstReceipt.has(receipt[0])) this.firstReceipt.set(receipt[0], receipt);
    }
  }
}

/**
 * Publishes events `from` … `to` − 1 by `options.publishers` concurrent callers, `batchSize` per
 * request; each accepted event's id goes into `publishedAt` with the time its request was sent.
 */
async function publishRange(options: HttpFanOutOptions, host: HostProcess, agent: Agent, batchSize: number, from: number, to: number, publishedAt: Map<string, number>): Promise<{ requests: number; publishErrors: number }> {
  let requests = 0;
  let publishErrors = 0;
  const failed = (message: string) => {
    publishErrors += 1;
    if (publishErrors <= 3) console.error(`  publish failed: ${message}`);
  };
  let next = from;
  await Promise.all(
    Array.from({ length: options.publishers }, async () => {
      while (next < to) {
        const first = next;
        next = Math.min(to, next + batchSize);
        const items = Array.from({ length: next - first }, (_, k) => options.event(first + k));
        const sentAt = Date.now();
        requests += 1;
        try {
          if (batchSize === 1) {
            const answer = await api(host, agent, '/webhook-events', items[0]);
            if (answer.status === 201) publishedAt.set((answer.json as { eventId: string }).eventId, sentAt);
            else failed(`${answer.status} ${JSON.stringify(answer.json)}`);
          } else {
            const answer = await api(host, agent, '/webhook-events/batch', { events: items });
            if (answer.status !== 200) {
              for (const _item of items) failed(`${answer.status} ${JSON.stringify(answer.json)}`);
              continue;
            }
            for (const result of (answer.json as { list: Array<{ eventId?: string; error?: unknown }> }).list) {
              if (result.eventId) publishedAt.set(result.eventId, sentAt);
              else failed(JSON.stringify(result.error));
            }
          }
        } catch (error) {
          for (const _item of items) failed((error as Error).message);
        }
      }
    }),
  );
  return { requests, publishErrors };
}

/** Polls the sink until every delivery of `deliveries`' events arrived or the timeout passed; false if not. */
async function awaitDeliveries(options: HttpFanOutOptions, deliveries: Deliveries, expected: number): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    await deliveries.poll();
    if (deliveries.firstReceipt.size >= expected) return true;
    if (Date.now() > deadline) return false;
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function phase(options: HttpFanOutOptions, batchSize: number): Promise<HttpPhase> {
  const dbName = `bench_http_${randomBytes(4).toString('hex')}`;
  const host = await startHostProcess({ ...options.host, mongodbUri: options.uri, dbName });
  const agent = new Agent({ connections: options.publishers, keepAliveTimeout: 10_000 });
  try {
    for (let i = 0; i < options.subscribers; i += 1) {
      const created = await api(host, agent, '/webhook-subscribers', { displayName: `bench ${i}`, targetUrl: `${options.sinkUrl}/s${i}`, secret: `bench-secret-${i}-0123456789`, events: ['order.*'] });
      if (created.status !== 201) throw new Error(`creating a subscriber answered ${created.status}: ${JSON.stringify(created.json)}`);
    }
    // A fresh host's first requests run cold code (as the in-process Herald's would before its
    // warm-up): events past the measured ones go the same way first, and are delivered, untimed.
    if (options.warmUpEvents > 0) {
      const warmedAt = new Map<string, number>();
      const warmUp = new Deliveries(options, warmedAt);
      await warmUp.start();
      await publishRange(options, host, agent, batchSize, options.events, options.events + options.warmUpEvents, warmedAt);
      if (!(await awaitDeliveries(options, warmUp, warmedAt.size * options.subscribers))) console.log('  … warm-up deliveries still arriving when the measured publishing started');
    }
    const publishedAt = new Map<string, number>();
    const deliveries = new Deliveries(options, publishedAt);
    await deliveries.start();
    const cpuBefore = treeCpuMs(host.pid);
    const started = Date.now();
    const { requests, publishErrors } = await publishRange(options, host, agent, batchSize, 0, options.events, publishedAt);
    const publishSeconds = (Date.now() - started) / 1000;
    const expected = publishedAt.size * options.subscribers;
    if (!(await awaitDeliveries(options, deliveries, expected))) console.log(`  … gave up waiting: ${expected - deliveries.firstReceipt.size} of ${expected} deliveries not received`);
    const receipts = [...deliveries.firstReceipt.values()];
    const lastReceipt = Math.max(started, ...receipts.map((receipt) => receipt[2]));
    const hostCpu = treeCpuMs(host.pid) - cpuBefore;
    return {
      requests,
      accepted: publishedAt.size,
      publishErrors,
      publishSeconds: round(publishSeconds),
      eventsPerSecond: round(publishedAt.size / publishSeconds, 1),
      deliveries: receipts.length,
      lost: expected - receipts.length,
      deliveriesPerSecond: round(receipts.length / ((lastReceipt - started) / 1000), 1),
      latencyMs: latencySummary(receipts.map((receipt) => receipt[2] - publishedAt.get(receipt[1])!)),
      hostCpuMsPerDelivery: round(hostCpu / Math.max(1, receipts.length), 3),
    };
  } finally {
    await agent.close();
    await host.stop();
    const client = new MongoClient(options.uri);
    await client.db(dbName).dropDatabase().catch(() => undefined);
    await client.close();
  }
}

export async function httpFanOut(options: HttpFanOutOptions): Promise<HttpFanOutResult> {
  const onePerRequest = await phase(options, 1);
  console.log(JSON.stringify({ httpFanOutOnePerRequest: onePerRequest }));
  const batches = await phase(options, options.batchSize);
  console.log(JSON.stringify({ httpFanOutBatches: batches }));
  return {
    events: options.events,
    batchSize: options.batchSize,
    publishers: options.publishers,
    inProcess: options.inProcess,
    onePerRequest,
    batches,
    batchToSingleEvents: round(batches.eventsPerSecond / onePerRequest.eventsPerSecond, 2),
    batchToInProcessDeliveries: round(batches.deliveriesPerSecond / options.inProcess.deliveriesPerSecond, 2),
  };
}

export function httpFanOutTargets(r: HttpFanOutResult): Array<{ label: string; figure: string; target: string; ok: boolean }> {
  const one = r.onePerRequest;
  const batch = r.batches;
  return [
    { label: `HTTP, one event per request (${r.publishers} publishers)`, figure: `${one.eventsPerSecond} ev/s, ${one.deliveriesPerSecond} del/s`, target: '(reference)', ok: one.lost === 0 && one.publishErrors === 0 },
    { label: `HTTP, batches of ${r.batchSize} (${r.publishers} at once)`, figure: `${batch.eventsPerSecond} ev/s, ${batch.deliveriesPerSecond} del/s`, target: '(reference)', ok: batch.lost === 0 && batch.publishErrors === 0 },
    { label: 'in-process fan-out (a), same events', figure: `${r.inProcess.eventsPerSecond} ev/s, ${r.inProcess.deliveriesPerSecond} del/s`, target: '(reference)', ok: true },
    { label: 'HTTP events/s: batches ÷ one per request', figure: String(r.batchToSingleEvents), target: '≥ 10', ok: r.batchToSingleEvents >= 10 },
    { label: 'HTTP fan-out with batches ÷ in-process, deliv/s', figure: String(r.batchToInProcessDeliveries), target: '≥ 0.9', ok: r.batchToInProcessDeliveries >= 0.9 },
    { label: 'host CPU ms per delivery: one per request / batches', figure: `${one.hostCpuMsPerDelivery} / ${batch.hostCpuMsPerDelivery}`, target: `(in-process ${r.inProcess.cpuMsPerDelivery})`, ok: true },
    { label: 'HTTP lost, publish errors', figure: `${one.lost + batch.lost}, ${one.publishErrors + batch.publishErrors}`, target: '0, 0', ok: one.lost + batch.lost === 0 && one.publishErrors + batch.publishErrors === 0 },
  ];
}
