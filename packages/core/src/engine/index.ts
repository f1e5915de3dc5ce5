// Delivery engine entry point. herald.ts creates the engine through createDeliveryEngine and
// calls start/stop/metrics; the publisher uses its fast path; everything under src/engine/ belongs
// to the engine (README.md beside this file has the design).
//
//   publish: admit → rows written IN_FLIGHT → dispatch ─┐
//   poll (timer, notify, freed slots): find due → claim ─┴─> send (per-subscriber pools) ─> group-committed outcomes
//   Agenda (cluster-wide): lease recovery · fan-out completion · event reconciliation · retention
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from 'mongodb';
import type { EventPayload } from '../events/payload.js';
import type { StoreCompat } from '../storage/compat.js';
import type { EventDocument, SealedSecret } from '../storage/documents.js';
import { isOperationalEventType } from '../events/matching.js';
import { OPERATIONAL_EVENTS, type EmitOperational } from '../events/operational.js';
import type { BreakerPolicy } from './breaker.js';
import { DeliveryStats, type LatencyHistogram, type SubscriberFigures } from './stats.js';
import { resolveConfig } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { NO_FAST_PATH, type FastPath } from './fast-path.js';
import { createHttpSender, type HttpSender } from './http/sender.js';
import { createEgressProxies } from './egress/proxy-config.js';
import { createMaintenance } from './jobs.js';
import { createKeyCache } from './keys.js';
import { DeliveryStore } from './store.js';
import { watchForStalls, type StallWatch } from './stall-watch.js';
import type { EngineLogger } from '../logger.js';
import { parseOrderKey } from '../ordering/keys.js';
import type { DeliveryDocument } from '../storage/documents.js';

/** For a row of an ordered key: which key, its number, and that the key's next delivery now proceeds. */
function orderedNotice(row: DeliveryDocument): { ordering?: { aggregateType: string; aggregateId: string; sequence: number; nextProceeds: true } } {
  if (row.orderKey === undefined || row.orderSeq === undefined) return {};
  const { aggregateType, aggregateId } = parseOrderKey(row.orderKey);
  return { ordering: { aggregateType, aggregateId, sequence: row.orderSeq, nextProceeds: true } };
}

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
  /**
   * How long a settled event (ALL_DELIVERED or FAILED) is kept with its rows and attempts, ms after
   * it was created. Default 30 days; 0 keeps them forever. Unsettled events are never removed.
   */
  retentionMs?: number;
  /** Per event type, overriding `retentionMs` for that type (0 = forever), ms. */
  retentionByEventType?: Record<string, number>;
  /** Polling interval for due rows created by other processes and due retries, ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * Lease = subscriber timeout + this margin, ms. Default 15 000: with the default 5 s timeout and
   * maintenance interval, a crashed worker's rows are sent again within about 30 s.
   */
  leaseMarginMs?: number;
  /** Interval of the lease-recovery job (fan-out completion runs at twice it), ms. Default 10 000. */
  maintenanceIntervalMs?: number;
  /** How often Agenda looks for due jobs, ms. Default 5000. */
  jobPollIntervalMs?: number;
  /** Most rows per claim or outcome write. Default 200. */
  batchSize?: number;
  /** User-Agent of deliveries. Default `Herald/0.1.0`. */
  userAgent?: string;
  /**
   * Endpoint health: hold a subscriber's deliveries (PENDING, attempts untouched) after
   * `failures` (10) failed attempts in a row with no success for `windowMs` (60 s), probing one
   * at a time on `probeBackoffMs`; `false` turns it off. See engine/breaker.ts.
   */
  breaker?: Partial<BreakerPolicy> | false;
  /**
   * Due deliveries waiting this long while the engine's poll claims none are a stall: logged once and
   * published as `herald.delivery_stalled` (engine/stall-watch.ts), ms. Default 45 000.
   */
  stallAfterMs?: number;
  /** One step of a poll lasting this long means the loop is stuck and the engine not live, ms. Default 120 000. */
  loopStuckAfterMs?: number;
  /** Send a W3C `traceparent` header (the attempt's span) with each delivery. Default false. */
  traceparentHeader?: boolean;
  /**
   * The embedding host's own listen endpoint, e.g. `http://127.0.0.1:8080/internal/listen/`: target
   * URLs starting with exactly this prefix skip the SSRF guard (the host relays them to a CLI
   * listener). A function because the host knows its bound port only after the engine started.
   * Nothing else on loopback is exempted.
   */
  selfTargetPrefix?: () => string | undefined;
  /**
   * `http://[user:password@]host:port` of an HTTP CONNECT proxy every delivery goes through unless
   * its subscriber says otherwise (egress/proxy-config.ts; the SSRF guard still applies: http/tunnel-connector.ts).
   */
  egressProxy?: string;
  /** Proxies a subscriber may choose by name (`egressProxy` on the subscriber), name → URL as egressProxy. */
  egressProxies?: Record<string, string>;
}

export type { EngineLogger } from '../logger.js';

export interface EngineDeps {
  db: Db;
  /** Collection name prefix, e.g. 'herald_'. */
  prefix: string;
  signingProfile: 'standard' | 'api-portal';
  options: DeliveryOptions;
  logger: EngineLogger;
  /** The store-compatibility seam (storage/compat.ts). */
  compat: StoreCompat;
  /** Decrypts a subscriber secret sealed under the master key. */
  openSecret(sealed: SealedSecret): string;
  /** The event as an attempt needs it (sensitive values opened). */
  payloadOf(event: EventDocument): EventPayload;
  /** Finishes fan-outs interrupted by a crash (run by a periodic job). */
  completePendingFanOuts?: () => Promise<number>;
  /** Publishes Herald's own events (events/operational.ts). */
  emit?: EmitOperational;
  /** One step of the oldest unfinished recovery (deliveries/recovery.ts); rows requeued. */
  stepRecoveries?: () => Promise<number>;
  /** Replaces the HTTP sender (tests). */
  sender?: HttpSender;
}

export interface EngineMetrics {
  inFlight: number;
  delivered: number;
  failed: number;
  retried: number;
  /** The poll loop as the stall watch sees it (engine/stall-watch.ts). */
  loop: EngineLoopMetrics;
  /** Attempts of this process per subscriber, by outcome (engine/stats.ts). */
  bySubscriber: SubscriberFigures[];
  /** Publish to end of first attempt, this process. */
  firstAttemptLatency: LatencyHistogram;
  /** Settled events removed by retention runs of this process (absent: no engine jobs here). */
  prunedEvents?: number;
}

export interface EngineLoopMetrics {
  /** How long the poll in progress has been in one step; 0 between polls. */
  stepForMs: number;
  /** Since the poll last kept up: claimed rows, found none it could take now, or had no slot free. */
  sinceKeptUpMs: number;
  /** A step has lasted `loopStuckAfterMs`: the engine is not live. */
  stuck: boolean;
  /** Deliveries wait past `stallAfterMs` while the poll claims none. */
  stalled: boolean;
}

export interface DeliveryEngine extends FastPath {
  start(): Promise<void>;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
  readonly running: boolean;
  metrics(): EngineMetrics;
}

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
const STALL_CHECK_READ_DEADLINE_MS = 10_000;

export function createDeliveryEngine(deps: EngineDeps): DeliveryEngine {
  const config = resolveConfig(deps.options);
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const store = new DeliveryStore(deps.db, deps.prefix, deps.compat);
  const keys = createKeyCache(deps.signingProfile, deps.openSecret);
  let sender: HttpSender | undefined;
  let dispatcher: Dispatcher | undefined;
  let stallWatch: StallWatch | undefined;
  let running = false;
  let starting: Promise<void> | undefined;
  const totals = { delivered: 0, failed: 0, retried: 0 };
  const stats = new DeliveryStats();
  /** Health changes being recorded: a stop waits for them (the drain's last attempts may change it). */
  const healthWrites = new Set<Promise<void>>();

  const maintenance = createMaintenance({
    db: deps.db,
    prefix: deps.prefix,
    owner,
    store,
    config,
    logger: deps.logger,
    completePendingFanOuts: deps.completePendingFanOuts,
    stepRecoveries: deps.stepRecoveries,
    onRecovered: () => dispatcher?.notify(),
  });

  return {
    async start() {
      if (running) return;
      starting ??= (async () => {
        await store.ensureIndexes();
        sender = deps.sender ?? createHttpSender({
          ssrfAllowList: config.ssrfAllowList,
          connectionsPerOrigin: config.perSubscriberConcurrency,
          selfTargetPrefix: deps.options.selfTargetPrefix,
          egressProxies: createEgressProxies(deps.options),
        });
        dispatcher = new Dispatcher({
          store,
          sender,
          config,
          profile: deps.signingProfile,
          owner,
          logger: deps.logger,
          keys,
          payloadOf: deps.payloadOf,
          stats,
          onHealthChange: (subscriberId, breaker, transition, previous) => {
            const saving = store.saveHealth(subscriberId, breaker, new Date()).catch((error: unknown) =>
              deps.logger.warn({ subscriberId, err: { message: (error as Error).message } }, 'subscriber health not recorded'),
            );
            healthWrites.add(saving);
            void saving.finally(() => healthWrites.delete(saving));
            const notice = transition === 'open' ? OPERATIONAL_EVENTS.subscriberFailing : transition === 'recovered' && previous === 'open' ? OPERATIONAL_EVENTS.subscriberRecovered : undefined;
            if (notice && deps.emit) {
              const emit = deps.emit;
              void store.subscriberOrg(subscriberId).then((owner) => {
                if (!owner) return;
                const data = { subscriberId: owner.handle, state: breaker.state === 'open' ? ('open' as const) : ('healthy' as const), since: new Date(breaker.since).toISOString(), consecutiveFailures: breaker.consecutiveFailures, lastError: breaker.lastError };
                emit(owner.orgId, { type: notice, data }, `${subscriberId}:${breaker.since}`);
              }, () => undefined);
            }
          },
          onExhausted: (row, attempts, reason) => {
            if (!deps.emit || isOperationalEventType(row.eventType)) return; // no notices about notices
            deps.emit(
              row.orgId,
              { type: OPERATIONAL_EVENTS.deliveryExhausted, data: { deliveryId: row._id, eventId: row.eventId, eventType: row.eventType, subscriberId: row.subscriberHandle, attempts, lastError: reason, ...orderedNotice(row) } },
              `${row._id}:${attempts}`,
            );
          },
        });
        dispatcher.seedHealth(await store.loadHealth());
        dispatcher.start();
        stallWatch = watchForStalls({
          collections: store.collections,
          loop: () => dispatcher?.loop(),
          thresholds: { stallAfterMs: config.stallAfterMs, loopStuckAfterMs: config.loopStuckAfterMs },
          logger: deps.logger,
          emit: (orgId, stall) => deps.emit?.(orgId, { type: OPERATIONAL_EVENTS.deliveryStalled, data: stall }, stall.stallId),
          readDeadlineMs: STALL_CHECK_READ_DEADLINE_MS,
        });
        await maintenance.start();
        running = true;
      })().finally(() => { starting = undefined; });
      await starting;
    },
    async stop(options) {
      if (starting) await starting.catch(() => undefined);
      if (!running) return;
      running = false;
      stallWatch?.stop();
      stallWatch = undefined;
      await maintenance.stop();
      const current = dispatcher;
      if (current) {
        const drained = await current.stop(options?.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
        if (!drained) deps.logger.warn({}, 'drain timeout reached: attempts still in flight were aborted and handed back for retry');
        const final = current.metrics();
        totals.delivered += final.delivered;
        totals.failed += final.failed;
        totals.retried += final.retried;
      }
      dispatcher = undefined;
      await Promise.all(healthWrites);
      await store.flushEventCounters(new Date()).catch((error: unknown) => deps.logger.warn({ err: { message: (error as Error).message } }, 'event counters not written at stop: the reconciliation will recount those events'));
      if (!deps.sender) await sender?.close(true);
      sender = undefined;
    },
    admit: (requests, now) => (dispatcher ?? NO_FAST_PATH).admit(requests, now),
    dispatch: (admission, items, written) => (dispatcher ?? NO_FAST_PATH).dispatch(admission, items, written),
    release: (admission) => (dispatcher ?? NO_FAST_PATH).release(admission),
    notify: () => dispatcher?.notify(),
    get running() {
      return running;
    },
    metrics() {
      const live = dispatcher?.metrics() ?? { inFlight: 0, delivered: 0, failed: 0, retried: 0 };
      const loop = dispatcher?.loop();
      const view = stallWatch?.view() ?? { loopStuck: false, stalled: false };
      return {
        inFlight: live.inFlight,
        delivered: totals.delivered + live.delivered,
        failed: totals.failed + live.failed,
        retried: totals.retried + live.retried,
        loop: { stepForMs: loop?.stepForMs ?? 0, sinceKeptUpMs: loop?.sinceKeptUpMs ?? 0, stuck: view.loopStuck, stalled: view.stalled },
        bySubscriber: stats.bySubscriber(),
        firstAttemptLatency: stats.firstAttemptLatency(),
        prunedEvents: maintenance.pruned,
      };
    },
  };
}
