// Cluster-wide periodic work on Agenda (DECISIONS §7): lease recovery, completion of interrupted
// fan-outs, re-aggregation of events a dead worker left DISPATCHED, recoveries asked for through
// the API, retention, and auto-disable of subscribers that have failed for too long. Agenda's
// `every` keeps one job document per name, so each job runs on one replica at a time — on
// MongoDB. Its lock is a findOneAndUpdate, which FerretDB v1 does not make atomic under concurrent
// writers (DECISIONS §8), so every job here is written to be harmless if two replicas do run it at
// once: each is a set of conditional, idempotent updates.
// Correctness never depends on Agenda's exclusivity, only efficiency does.
//
// Retries are not Agenda jobs: a retry is the row's own `nextAttemptAt`, written in the same
// update that records the failed attempt, and the dispatcher's poll claims rows when they fall
// due. One Agenda job per retry would be a second durable record of the same fact that, without
// transactions, could disagree with the row.
import { setTimeout as sleep } from 'node:timers/promises';
import { effectiveRetention } from '../rules/retention-policy.js';
import { retentionGroups, RETENTION_PACE, type RetentionPace } from '../rules/retention-windows.js';
import { restAfterRun, ShareOfTime } from '../rules/store-share.js';
import { Agenda, type Job } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Db } from 'mongodb';
import { finishErasures } from '../model/erasure-notes.js';
import { SUBSCRIBER_LIMITS } from '../schemas/subscribers.js';
import type { EngineConfig } from './config.js';
import { isEndedRunLockCheck } from './job-lock-check.js';
import { guardUnawaitedUnlocks } from './job-unlock-guard.js';
import type { EngineLogger } from '../shared/logger.js';
import type { DeliveryStore } from './store/index.js';

/**
 * How long claims, sequence markers and write turns (FerretDB v1 only: the seam's
 * `uniqueKeyClaims`) are kept, whatever the event retention. Each decides between writers of one
 * incarnation, number or revision, which has moved on within seconds: a claimed row is marked
 * IN_FLIGHT at once, or released by stranded-claim recovery after `strandedAfterMs` (45 s by
 * default); a turn is given up after `ABANDONED_TURN_MS`. A claim purged while its row is still
 * stranded only makes the row claimable again, which is what recovery would do. The bound is what
 * each purge costs there: a range is matched in Go after every document kept is decoded.
 */
export const MARKER_LIFETIME_MS = 60 * 60 * 1000;

export const JOB_NAMES = {
  recoverLeases: 'herald:recover-expired-leases',
  reconcileEvents: 'herald:reconcile-event-status',
  completeFanOuts: 'herald:complete-pending-fan-outs',
  retention: 'herald:retention',
  recoveries: 'herald:recoveries',
  autoDisable: 'herald:auto-disable',
} as const;

/**
 * Every job's Agenda lock: a run holds it while it lasts (JOB_KEEP_ALIVE_MS renews it), and a
 * lock left by a run whose end could not be written (a crash, the store gone meanwhile) frees
 * within seconds, so lease recovery resumes soon after an outage. It is short because Agenda
 * arms a timer of half of it beside every run, which it never clears: it would hold the event
 * loop of an application that has closed Herald for that long (half of 10 minutes, with Agenda's
 * default). A run that cannot renew its lock in time is abandoned by Agenda, and another replica
 * may start the job beside it: harmless, as the header says.
 */
const JOB_LOCK_MS = 6_000;
const JOB_KEEP_ALIVE_MS = JOB_LOCK_MS / 3;

/**
 * The share of the time each of lease recovery's two sweeps of PENDING rows may hold the store (the
 * two together a tenth): the stranded claims (rows overdue by a range of `nextAttemptAt`) and the
 * ordered keys whose turn was not passed on (rows with no `nextAttemptAt`). Both are safety nets for
 * a worker's crash. On MongoDB each is an index range of milliseconds and runs every interval; where
 * the store narrows them only by status and decodes every PENDING row (FerretDB v1: about a second
 * at 20,000 queued), each would otherwise take that out of every interval while a backlog waits to
 * be drained.
 */
export const SAFETY_NET_SHARE = 0.05;

/** How often a recovery takes a step (each step requeues at most RECOVERY_ROWS_PER_STEP rows). */
export const RECOVERY_STEP_INTERVAL_MS = 1_000;

export interface MaintenanceDeps {
  db: Db;
  prefix: string;
  owner: string;
  store: DeliveryStore;
  config: EngineConfig;
  logger: EngineLogger;
  completePendingFanOuts?: (() => Promise<number>) | undefined;
  stepRecoveries?: (() => Promise<number>) | undefined;
  /** How the retention pass shares the store (RETENTION_PACE unless a test sets its own). */
  retentionPace?: RetentionPace | undefined;
  /** One pass of the auto-disable check (engine/auto-disable.ts); absent: off. */
  checkAutoDisable?: (() => Promise<number>) | undefined;
  /** Rows returned to PENDING become due at once: tell the local dispatcher. */
  onRecovered(): void;
}

export interface Maintenance {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The jobs' bodies, runnable directly (tests, start-up). */
  recoverLeases(): Promise<number>;
  reconcileEvents(): Promise<number>;
  retention(): Promise<number>;
  /** Settled events the retention job removed in this process, with their rows and attempts. */
  readonly pruned: number;
}

/** Waits `ms`, or less if `signal` aborts first. */
async function rest(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}

export function createMaintenance(deps: MaintenanceDeps): Maintenance {
  const { store, config, logger } = deps;
  const pace = deps.retentionPace ?? RETENTION_PACE;
  let agenda: Agenda | undefined;
  // Ended by stop(): a retention pass resting between its steps ends at once instead of touching
  // a store the application is about to close.
  let lifetime = new AbortController();

  // A claim older than the longest possible lease can no longer be on its way to IN_FLIGHT.
  const strandedAfterMs = SUBSCRIBER_LIMITS.timeoutMsMax + config.leaseMarginMs;
  // Only the sweeps are paced: expired leases are read among the IN_FLIGHT rows, at most the
  // engines' slots, on every run.
  const strandedSweep = new ShareOfTime(SAFETY_NET_SHARE);
  const keysSweep = new ShareOfTime(SAFETY_NET_SHARE);
  const paced = async (share: ShareOfTime, sweep: () => Promise<number>): Promise<number> => {
    const startedAt = performance.now();
    if (!share.ready(startedAt)) return 0;
    try {
      return await sweep();
    } finally {
      share.ran(startedAt, performance.now());
    }
  };
  const recoverLeases = async (): Promise<number> => {
    const now = new Date();
    const expired = await store.recovery.recoverExpiredLeases(now);
    if (expired > 0) logger.warn({ recovered: expired }, 'returned deliveries with expired leases to PENDING');
    const stranded = await paced(strandedSweep, () => store.recovery.recoverStrandedClaims(now, strandedAfterMs));
    if (stranded > 0) logger.warn({ recovered: stranded }, 'released deliveries whose claimer died before sending');
    const stalled = await paced(keysSweep, () => store.recovery.releaseStalledKeys(now));
    if (stalled > 0) logger.info({ released: stalled }, 'released the next delivery of ordered keys whose turn had not been passed on (a crash, a gap or an erased delivery)');
    // Attempts outlive no lease: past the longest one, an erased event's late outcomes are all written.
    const erasedLate = await finishErasures(store.collections, store.compat, new Date(now.getTime() - strandedAfterMs));
    if (erasedLate > 0) logger.info({ removed: erasedLate }, 'removed what attempts on the wire wrote after their event was erased');
    if (expired + stranded + stalled > 0) deps.onRecovered();
    return expired + stranded + stalled;
  };
  let reconcileCursor = new Date(0);
  const reconcileEvents = async (): Promise<number> => {
    const { checked, cursor } = await store.recovery.reconcileEvents(new Date(), config.maintenanceIntervalMs, reconcileCursor);
    reconcileCursor = cursor;
    return checked;
  };
  let pruned = 0;
  const retention = async (): Promise<number> => {
    const markersBefore = new Date(Date.now() - MARKER_LIFETIME_MS);
    await store.purging.purgeClaimsBefore(markersBefore);
    await store.purging.purgeSequenceMarkersBefore(markersBefore);
    let total = 0;
    const orgPolicies = new Map([...(await store.purging.orgRetentionPolicies())].map(([orgId, stored]) => [orgId, effectiveRetention(config, stored)]));
    const stopping = lifetime.signal;
    for (const group of retentionGroups(config, new Date(), orgPolicies)) {
      while (!stopping.aborted) {
        const started = performance.now();
        const purged = await store.purging.purgeFinishedBefore(group.cutoff, pace.batchEvents, group.match);
        total += purged;
        pruned += purged;
        if (purged === 0) break;
        await rest(restAfterRun(performance.now() - started, pace.share), stopping);
      }
    }
    return total;
  };

  return {
    recoverLeases,
    reconcileEvents,
    retention,
    get pruned() {
      return pruned;
    },
    async start() {
      if (lifetime.signal.aborted) lifetime = new AbortController();
      const backend = new MongoBackend({ mongo: deps.db, collection: `${deps.prefix}jobs` });
      guardUnawaitedUnlocks(backend.repository);
      agenda = new Agenda({ backend, name: deps.owner, processEvery: config.jobPollIntervalMs, defaultLockLifetime: JOB_LOCK_MS });
      // While the store is away every scheduler tick and job run fails: the first failure is
      // logged, the rest are counted and reported once a job runs again.
      let failures = 0;
      const failed = (fields: Record<string, unknown>, message: string): void => {
        if (failures === 0) logger.error(fields, message);
        failures += 1;
      };
      // A run can end well with the store still away (its reads all came before the cut, or it had
      // nothing to read), so the report ends only once the store itself answers.
      const endReport = async (): Promise<void> => {
        if (failures === 0 || !(await deps.db.command({ ping: 1 }).then(() => true, () => false))) return;
        // Another run may have ended it while this one waited for the answer.
        if (failures === 0) return;
        logger.info({ failures }, 'maintenance jobs run again');
        failures = 0;
      };
      // Agenda starts a job again when a run outlives its lock; within this process the new run
      // is skipped while the old one still works, so a slow store never gets the same job twice.
      const running = new Set<string>();
      agenda.on('error', (error: Error) => {
        if (!isEndedRunLockCheck(error, running)) failed({ err: error.message }, 'job scheduler error');
      });
      const guarded = (name: string, body: () => Promise<unknown>) => async (job: Job) => {
        if (running.has(name)) return;
        running.add(name);
        const keepAlive = setInterval(() => void job.touch().catch(() => undefined), JOB_KEEP_ALIVE_MS).unref();
        try {
          await body();
        } catch (error) {
          // A run cut short by stop() (its connection closing) is not a failure worth reporting.
          if (agenda) failed({ job: name, err: error instanceof Error ? error.message : String(error) }, 'maintenance job failed');
          throw error;
        } finally {
          clearInterval(keepAlive);
          running.delete(name);
        }
        await endReport();
      };
      const define = (name: string, body: () => Promise<unknown>): void => {
        agenda!.define(name, guarded(name, body), { concurrency: 1 });
      };
      define(JOB_NAMES.recoverLeases, recoverLeases);
      define(JOB_NAMES.reconcileEvents, reconcileEvents);
      define(JOB_NAMES.completeFanOuts, async () => deps.completePendingFanOuts?.());
      define(JOB_NAMES.retention, retention);
      define(JOB_NAMES.recoveries, async () => {
        if (((await deps.stepRecoveries?.()) ?? 0) > 0) deps.onRecovered();
      });
      if (deps.checkAutoDisable) define(JOB_NAMES.autoDisable, deps.checkAutoDisable);
      await agenda.start();
      await agenda.every(config.maintenanceIntervalMs, JOB_NAMES.recoverLeases);
      await agenda.every(config.maintenanceIntervalMs * 2, JOB_NAMES.completeFanOuts);
      await agenda.every(config.maintenanceIntervalMs * 2, JOB_NAMES.reconcileEvents);
      await agenda.every('1 hour', JOB_NAMES.retention);
      if (deps.checkAutoDisable) {
        await agenda.every(config.maintenanceIntervalMs * 6, JOB_NAMES.autoDisable);
      }
      if (deps.stepRecoveries) await agenda.every(Math.max(RECOVERY_STEP_INTERVAL_MS, config.jobPollIntervalMs), JOB_NAMES.recoveries);
    },
    async stop() {
      const running = agenda;
      agenda = undefined;
      lifetime.abort();
      // Not closing the connection: it belongs to the embedding app.
      await running?.stop(false);
    },
  };
}
