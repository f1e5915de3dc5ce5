// Delivery engine entry point. herald.ts creates the engine through createDeliveryEngine and
// calls start/stop/metrics; the publisher uses its fast path; everything under src/engine/ belongs
// to the engine (README.md beside this file has the design).
//
//   publish: admit → rows written IN_FLIGHT → handOver ─┐
//   poll (timer, notify, freed slots): find due → claim ─┴─> send (per-subscriber pools) ─> group-committed outcomes
//   Agenda (cluster-wide): lease recovery · fan-out completion · event reconciliation · retention
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isOperationalEventType } from '../rules/matching.js';
import { OPERATIONAL_EVENTS } from '../model/operational.js';
import { DeliveryStats } from './stats.js';
import { resolveConfig } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { NO_FAST_PATH } from '../handover/fast-path.js';
import { createHttpSender, type HttpSender } from './http/sender.js';
import { createEgressProxies } from './egress/proxy-config.js';
import { createMaintenance } from './jobs.js';
import { checkAutoDisable } from './auto-disable.js';
import { createClientTlsCache } from './client-tls.js';
import { createKeyCache } from './keys.js';
import { createTokenSource } from './oauth2/token-cache.js';
import { DeliveryStore } from './store/index.js';
import { watchForStalls, type StallWatch } from './stall-watch.js';
import { parseOrderKey } from '../ordering/keys.js';
import type { DeliveryEngine, EngineDeps } from './contract.js';
import type { DeliveryDocument } from '../storage/documents.js';

/** For a row of an ordered key: which key, its number, and that the key's next delivery now proceeds. */
function orderedNotice(row: DeliveryDocument): { ordering?: { aggregateType: string; aggregateId: string; sequence: number; nextProceeds: true } } {
  if (row.orderKey === undefined || row.orderSeq === undefined) return {};
  const { aggregateType, aggregateId } = parseOrderKey(row.orderKey);
  return { ordering: { aggregateType, aggregateId, sequence: row.orderSeq, nextProceeds: true } };
}

export type { DeliveryEngine, DeliveryOptions, EngineDeps, EngineLogger, EngineLoopMetrics, EngineMetrics } from './contract.js';

export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
const STALL_CHECK_READ_DEADLINE_MS = 10_000;

export function createDeliveryEngine(deps: EngineDeps): DeliveryEngine {
  const config = resolveConfig(deps.options);
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const store = new DeliveryStore(deps.db, deps.prefix, deps.compat);
  const keys = createKeyCache(deps.signingProfile, deps.openSecret);
  const clientTls = createClientTlsCache(deps.openSecret);
  let sender: HttpSender | undefined;
  let dispatcher: Dispatcher | undefined;
  let stallWatch: StallWatch | undefined;
  let counterFlush: NodeJS.Timeout | undefined;
  let running = false;
  let starting: Promise<void> | undefined;
  const totals = { delivered: 0, failed: 0, retried: 0 };
  const stats = new DeliveryStats();
  /** Health changes being recorded: a stop waits for them (the drain's last attempts may change it). */
  const healthWrites = new Set<Promise<void>>();

  const disableSubscriber = deps.disableSubscriber;
  // Without the breaker no health is stored, so nothing could ever be found failing.
  if (!config.breaker && deps.options.autoDisableAfterMs !== undefined && config.autoDisableAfterMs > 0) {
    deps.logger.warn({ autoDisableAfterMs: config.autoDisableAfterMs }, 'auto-disable is configured but the breaker is off: without endpoint health nothing is ever auto-disabled');
  }
  const autoDisableCheck = disableSubscriber && config.breaker && config.autoDisableAfterMs > 0
    ? () => checkAutoDisable({ health: store.health, afterMs: config.autoDisableAfterMs, now: deps.now ?? (() => new Date()), disable: disableSubscriber, emit: deps.emit, logger: deps.logger })
    : undefined;
  const maintenance = createMaintenance({
    db: deps.db,
    prefix: deps.prefix,
    owner,
    store,
    config,
    logger: deps.logger,
    completePendingFanOuts: deps.completePendingFanOuts,
    stepRecoveries: deps.stepRecoveries,
    checkAutoDisable: autoDisableCheck,
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
        const tokens = createTokenSource({ request: { sender, userAgent: config.userAgent, now: () => (deps.now ?? (() => new Date()))().getTime() }, open: deps.openSecret });
        dispatcher = new Dispatcher({
          store,
          sender,
          config,
          profile: deps.signingProfile,
          owner,
          logger: deps.logger,
          keys,
          clientTls,
          tokens,
          payloadOf: deps.payloadOf,
          stats,
          onHealthChange: (subscriberId, breaker, transition, previous) => {
            const saving = store.health.saveHealth(subscriberId, breaker, new Date()).catch((error: unknown) =>
              deps.logger.warn({ subscriberId, err: { message: (error as Error).message } }, 'subscriber health not recorded'),
            );
            healthWrites.add(saving);
            void saving.finally(() => healthWrites.delete(saving));
            const notice = transition === 'open' ? OPERATIONAL_EVENTS.subscriberFailing : transition === 'recovered' && previous === 'open' ? OPERATIONAL_EVENTS.subscriberRecovered : undefined;
            if (notice && deps.emit) {
              const emit = deps.emit;
              void store.health.subscriberOrg(subscriberId).then((owner) => {
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
        dispatcher.seedHealth(await store.health.loadHealth());
        dispatcher.start();
        stallWatch = watchForStalls({
          collections: store.collections,
          loop: () => dispatcher?.loop(),
          thresholds: { stallAfterMs: config.stallAfterMs, loopStuckAfterMs: config.loopStuckAfterMs },
          logger: deps.logger,
          emit: (orgId, stall) => deps.emit?.(orgId, { type: OPERATIONAL_EVENTS.deliveryStalled, data: stall }, stall.stallId),
          readDeadlineMs: STALL_CHECK_READ_DEADLINE_MS,
        });
        // Counter changes held in memory (FerretDB v1) are written within half the reconciliation's
        // quiet time, whichever engine runs it: a recount must never precede a change it counted.
        if (store.counters.held) {
          const every = config.maintenanceIntervalMs / 4;
          counterFlush = setInterval(() => {
            const now = new Date();
            store.counters.flushHeldSince(new Date(now.getTime() - every), now).catch((error: unknown) => deps.logger.warn({ err: { message: (error as Error).message } }, 'held event counters not written yet; retried shortly'));
          }, every);
          counterFlush.unref();
        }
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
      clearInterval(counterFlush);
      counterFlush = undefined;
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
      await store.counters.flushEventCounters(new Date()).catch((error: unknown) => deps.logger.warn({ err: { message: (error as Error).message } }, 'event counters not written at stop: the reconciliation will recount those events'));
      if (!deps.sender) await sender?.close(true);
      sender = undefined;
    },
    admit: (requests, now) => (dispatcher ?? NO_FAST_PATH).admit(requests, now),
    handOver: (handOver) => (dispatcher ?? NO_FAST_PATH).handOver(handOver),
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
