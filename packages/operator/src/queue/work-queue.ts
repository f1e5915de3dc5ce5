// Rate-limited work queue keyed by object (edge: timers). Semantics of client-go's workqueue:
// a key is queued at most once; a key being processed is never processed concurrently, and if it
// is added meanwhile it runs again afterwards; failures are retried with per-key exponential backoff.
import { retryDelayMs, type BackoffPolicy, DEFAULT_BACKOFF } from './backoff.js';
import { initialBucket, takeToken, type TokenBucketPolicy, type TokenBucketState } from './token-bucket.js';

export type KeyHandler = (key: string) => Promise<{ requeueAfterMs?: number } | void>;

export interface WorkQueueOptions {
  concurrency: number;
  backoff?: BackoffPolicy;
  rateLimit?: TokenBucketPolicy;
  onError?: (key: string, error: unknown, failures: number) => void;
}

const DEFAULT_RATE_LIMIT: TokenBucketPolicy = { ratePerSecond: 50, burst: 200 };

export class WorkQueue {
  private readonly ready: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirtyWhileProcessing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private bucket: TokenBucketState;
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly handler: KeyHandler, private readonly options: WorkQueueOptions) {
    this.bucket = initialBucket(options.rateLimit ?? DEFAULT_RATE_LIMIT, Date.now());
  }

  get depth(): number {
    return this.ready.length + this.delayed.size;
  }

  get retrying(): number {
    return this.failures.size;
  }

  add(key: string): void {
    if (this.stopped) return;
    const timer = this.delayed.get(key);
    if (timer) {
      clearTimeout(timer);
      this.delayed.delete(key);
    }
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ready.push(key);
    this.pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) return this.add(key);
    if (this.queued.has(key) || this.delayed.has(key)) return;
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, timer);
  }

  /** Forget a key's failure count (it succeeded, or it no longer exists). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Resolves when nothing is queued or running (used by tests and the benchmark). */
  async idle(): Promise<void> {
    if (this.active === 0 && this.ready.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking work and waits for running handlers. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.ready.length = 0;
    this.queued.clear();
    while (this.active > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private pump(): void {
    while (!this.stopped && this.active < this.options.concurrency && this.ready.length > 0) {
      const key = this.ready.shift() as string;
      this.queued.delete(key);
      this.processing.add(key);
      this.active += 1;
      void this.run(key);
    }
    if (this.active === 0 && this.ready.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async run(key: string): Promise<void> {
    const { state, waitMs } = takeToken(this.bucket, this.options.rateLimit ?? DEFAULT_RATE_LIMIT, Date.now());
    this.bucket = state;
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    let retryAfterMs: number | undefined;
    try {
      const result = await this.handler(key);
      this.failures.delete(key);
      retryAfterMs = result?.requeueAfterMs;
    } catch (error) {
      const count = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, count);
      this.options.onError?.(key, error, count);
      retryAfterMs = retryDelayMs(count, this.options.backoff ?? DEFAULT_BACKOFF, Math.random());
    } finally {
      this.processing.delete(key);
      this.active -= 1;
    }
    if (this.dirtyWhileProcessing.delete(key)) this.add(key);
    else if (retryAfterMs !== undefined) this.addAfter(key, retryAfterMs);
    this.pump();
  }
}
