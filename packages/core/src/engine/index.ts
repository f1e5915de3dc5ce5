// Delivery engine entry point. herald.ts creates the engine through createDeliveryEngine and
// calls start/stop/notify/metrics; everything under src/engine/ belongs to the engine.
//
//   notify(ids) ─┐                       ┌─ sender (undici, SSRF guard) ─┐
//   poll timer ──┴─> Dispatcher: claim ──┤                               ├─> batched outcome writes
//                                        └─ per-subscriber/global caps ──┘    + event re-aggregation
//   Agenda (cluster-wide): lease recovery · fan-out completion · retention
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from 'mongodb';
import { resolveConfig } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { createHttpSender, type HttpSender } from './http/sender.js';
import { createMaintenance } from './jobs.js';
import { DeliveryStore } from './store.js';

export interface DeliveryOptions {
  /** Retry delays in ms before attempt 2, 3, …; the last one repeats until maxAttempts. */
  retrySchedule?: number[];
  maxAttempts?: number;
  /** How long a previous secret keeps signing after a rotation (standard profile). Default 24 h. */
  secretRotationOverlapMs?: number;
  /** Global and per-subscriber concurrency caps. Defaults 128 and 16. */
  concurrency?: number;
  perSubscriberConcurrency?: number;
  /** CIDRs exempt from the SSRF guard (e.g. ['127.0.0.0/8'] in the dev stack). */
  ssrfAllowList?: string[];
  /** Retention of finished events and deliveries, ms. Default 30 days. */
  retentionMs?: number;
  /** Polling interval for due rows created by other processes and due retries, ms. Default 1000. */
  pollIntervalMs?: number;
  /** Lease = subscriber timeout + this margin, ms. Default 30 000. */
  leaseMarginMs?: number;
  /** Interval of the lease-recovery job (fan-out completion runs at twice it), ms. Default 15 000. */
  maintenanceIntervalMs?: number;
  /** How often Agenda looks for due jobs, ms. Default 5000. */
  jobPollIntervalMs?: number;
  /** Most rows per claim or outcome write. Default 200. */
  batchSize?: number;
  /** User-Agent of deliveries. Default `Herald/0.1.0`. */
  userAgent?: string;
}

export interface EngineLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EngineDeps {
  db: Db;
  /** Collection name prefix, e.g. 'herald_'. */
  prefix: string;
  signingProfile: 'standard' | 'api-portal';
  options: DeliveryOptions;
  logger: EngineLogger;
  /** Decrypts a subscriber secret sealed under the master key. */
  openSecret(sealed: { keyId: string; iv: string; tag: string; ciphertext: string }): string;
  /** Finishes fan-outs interrupted by a crash (run by a periodic job). */
  completePendingFanOuts?: () => Promise<number>;
  /** Replaces the HTTP sender (tests). */
  sender?: HttpSender;
}

export interface EngineMetrics {
  inFlight: number;
  delivered: number;
  failed: number;
  retried: number;
}

export interface DeliveryEngine {
  start(): Promise<void>;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
  /** Fast-path hint: these rows were just written as PENDING. Rows are also found by polling. */
  notify(deliveryIds: string[]): void;
  readonly running: boolean;
  metrics(): EngineMetrics;
}

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export function createDeliveryEngine(deps: EngineDeps): DeliveryEngine {
  const config = resolveConfig(deps.options);
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const store = new DeliveryStore(deps.db, deps.prefix);
  let sender: HttpSender | undefined;
  let dispatcher: Dispatcher | undefined;
  let running = false;
  let starting: Promise<void> | undefined;
  const totals = { delivered: 0, failed: 0, retried: 0 };

  const maintenance = createMaintenance({
    db: deps.db,
    prefix: deps.prefix,
    owner,
    store,
    config,
    logger: deps.logger,
    completePendingFanOuts: deps.completePendingFanOuts,
    onRecovered: () => dispatcher?.requestPoll(),
  });

  return {
    async start() {
      if (running) return;
      starting ??= (async () => {
        await store.ensureIndexes();
        sender = deps.sender ?? createHttpSender({ ssrfAllowList: config.ssrfAllowList, connectionsPerOrigin: config.perSubscriberConcurrency });
        dispatcher = new Dispatcher({
          store,
          sender,
          config,
          profile: deps.signingProfile,
          owner,
          logger: deps.logger,
          openSecret: deps.openSecret,
        });
        dispatcher.start();
        await maintenance.start();
        running = true;
      })().finally(() => { starting = undefined; });
      await starting;
    },
    async stop(options) {
      if (starting) await starting.catch(() => undefined);
      if (!running) return;
      running = false;
      await maintenance.stop();
      const current = dispatcher;
      if (current) {
        const drained = await current.stop(options?.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
        if (!drained) deps.logger.warn({}, 'stopped before every in-flight delivery finished; their leases will expire and they will be retried');
        const final = current.metrics();
        totals.delivered += final.delivered;
        totals.failed += final.failed;
        totals.retried += final.retried;
      }
      dispatcher = undefined;
      if (!deps.sender) await sender?.close();
      sender = undefined;
    },
    notify(deliveryIds) {
      dispatcher?.notify(deliveryIds);
    },
    get running() {
      return running;
    },
    metrics() {
      const live = dispatcher?.metrics() ?? { inFlight: 0, delivered: 0, failed: 0, retried: 0 };
      return {
        inFlight: live.inFlight,
        delivered: totals.delivered + live.delivered,
        failed: totals.failed + live.failed,
        retried: totals.retried + live.retried,
      };
    },
  };
}
