// The pieces of one measured delivery run shared by the benchmark's scenarios: the receiver in its
// own process (bench/sink.ts) and its receipts, what a run expects to be delivered, and the shape
// of a scenario's figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export type Receipt = [deliveryId: string, eventId: string, receivedAtMs: number, status: number];

export interface Sink {
  url: string;
  process: ChildProcess;
  /** Answer `status` (500 unless given) to this fraction of deliveries from now on. */
  control(failRate: number, status?: number): Promise<void>;
  receipts(since: number): Promise<Receipt[]>;
}

export async function startSink(): Promise<Sink> {
  const child = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`sink exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => done((JSON.parse(line) as { port: number }).port));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    process: child,
    async control(failRate, status) {
      await fetch(`${base}/control`, { method: 'POST', body: JSON.stringify({ failRate, status }) });
    },
    async receipts(since) {
      return (await (await fetch(`${base}/receipts?since=${since}`)).json()) as Receipt[];
    },
  };
}

/** Follows the sink's receipts incrementally. */
export class ReceiptLog {
  private next = 0;
  readonly delivered = new Map<string, Receipt>(); // first 2xx receipt per delivery id
  okCount = 0;
  failedCount = 0;
  /** Delivery ids answered with anything but a 2xx at least once. */
  readonly failedIds = new Set<string>();
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
        this.failedIds.add(receipt[0]);
      }
    }
  }
}

export interface Meter {
  cpuMs(): number;
  /** The store's processes (FerretDB and PostgreSQL, or memory-mongo); NaN with MONGODB_URI. */
  storeCpuMs(): number;
  commands(): number;
  elapsedMs(): number;
  /** The highest resident set size sampled since the meter started, in bytes. */
  peakRss(): number;
}

export interface ScenarioResult {
  name: string;
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  cpuMsPerDelivery: number;
  /** null when the store is not the bench's own (MONGODB_URI). */
  storeCpuMsPerDelivery: number | null;
  dbCommandsPerDelivery: number;
  dbCommandsPerEvent: number;
  lost: number;
  duplicates: number;
  failedAttempts: number;
  publishErrors: number;
  peakRssMb: number;
  extra?: Record<string, number>;
}

export interface Run {
  expected: Set<string>;
  publishedAt: Map<string, number>;
  events: number;
  publishErrors: number;
}

export function newRun(): Run {
  return { expected: new Set(), publishedAt: new Map(), events: 0, publishErrors: 0 };
}

export async function waitForAll(log: ReceiptLog, expected: ReadonlySet<string>, timeoutMs: number, diagnose: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await log.poll();
    let missing = 0;
    for (const id of expected) if (!log.delivered.has(id)) missing += 1;
    if (missing === 0) return;
    if (Date.now() > deadline) {
      console.log(`  … gave up waiting: ${missing} of ${expected.size} deliveries not received`);
      await diagnose();
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
