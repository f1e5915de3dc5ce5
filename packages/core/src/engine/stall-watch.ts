// Notices the quiet ways this engine's delivery can stop, from outside the poll loop it watches:
// - the loop is stuck: one step of a poll (a read, a claim) has not ended for `loopStuckAfterMs`.
//   Every store operation is bounded (storage/availability.ts withinDeadline), so this is a defect,
//   not a slow store. The engine then reports itself not live: the host's /healthz answers 503, and
//   Kubernetes restarts the pod; a busy loop finishes steps, so it is never reported.
// - delivery stalled: deliveries have been due for `stallAfterMs` and for as long this engine's poll
//   has not kept up — kept up meaning it claimed rows, found none it could take now (a subscriber's
//   own limits may hold its rows back), or had every slot busy. So a stall is a poll that is stuck,
//   whose reads keep failing, or whose claims never win. Said once when it begins (one log line and
//   a `herald.delivery_stalled` event to the org of the oldest waiting delivery) and once when it
//   ends.
// The check reads the queue only when the poll has not kept up for `stallAfterMs`, and outside the
// store lane: the lane may be what holds the engine up.
import { randomUUID } from 'node:crypto';
import type { Collections } from '../storage/collections.js';
import { withinDeadline } from '../storage/availability.js';
import type { EngineLogger } from '../shared/logger.js';

/** What the watch reads of the poll loop (the dispatcher answers it). */
export interface LoopState {
  stepForMs: number;
  sinceKeptUpMs: number;
  /** Subscribers whose rows the poll leaves out now (open breaker): their waiting rows are no stall. */
  closedSubscribers: readonly string[];
}

export interface StallNotice {
  stallId: string;
  /** When the oldest waiting delivery became due (ISO 8601). */
  dueSince: string;
  waitingSeconds: number;
  loopStuck: boolean;
}

export interface StallThresholds {
  stallAfterMs: number;
  loopStuckAfterMs: number;
}

export interface StallSignals {
  /** How long the poll in progress has been in one step; 0 between polls. */
  stepForMs: number;
  sinceKeptUpMs: number;
  /** How long the oldest due delivery this engine could take has waited (undefined: none waited `stallAfterMs`). */
  oldestWaitingMs: number | undefined;
}

export interface StallView {
  loopStuck: boolean;
  stalled: boolean;
}

export function judgeStall(signals: StallSignals, thresholds: StallThresholds): StallView {
  return {
    loopStuck: signals.stepForMs >= thresholds.loopStuckAfterMs,
    stalled: signals.sinceKeptUpMs >= thresholds.stallAfterMs && (signals.oldestWaitingMs ?? 0) >= thresholds.stallAfterMs,
  };
}

export interface StallWatch {
  /** The latest judgement; `loopStuck` is judged afresh on each call. */
  view(): StallView;
  stop(): void;
}

export interface StallWatchDeps {
  collections: Pick<Collections, 'queue'>;
  loop: () => LoopState | undefined;
  thresholds: StallThresholds;
  logger: EngineLogger;
  /** Publishes the stall to the org of the oldest waiting delivery (as `herald.delivery_stalled`). */
  emit?: (orgId: string, stall: StallNotice) => void;
  /** Bound on the check's own read. */
  readDeadlineMs: number;
}

export function watchForStalls(deps: StallWatchDeps): StallWatch {
  const { thresholds, logger } = deps;
  let stalledSince: number | undefined;
  let reportedStuck = false;
  let checking = false;

  const oldestWaiting = async (state: LoopState, now: number): Promise<{ orgId: string; dueAt: Date } | undefined> => {
    const row = await withinDeadline(
      deps.collections.queue
        .find(
          { status: 'PENDING', nextAttemptAt: { $lte: new Date(now - thresholds.stallAfterMs) }, ...(state.closedSubscribers.length > 0 ? { subscriberId: { $nin: [...state.closedSubscribers] } } : {}) },
          { projection: { orgId: 1, nextAttemptAt: 1 } },
        )
        .sort({ nextAttemptAt: 1 })
        .limit(1)
        .next(),
      deps.readDeadlineMs,
    );
    return row?.nextAttemptAt ? { orgId: row.orgId, dueAt: row.nextAttemptAt } : undefined;
  };

  const check = async () => {
    const state = deps.loop();
    if (!state) return;
    const now = Date.now();
    const stuck = state.stepForMs >= thresholds.loopStuckAfterMs;
    if (stuck !== reportedStuck) {
      reportedStuck = stuck;
      if (stuck) logger.error({ stepForMs: state.stepForMs }, 'delivery loop stuck: one step of a poll has not ended; this engine reports itself not live (/healthz 503) so it is restarted');
      else logger.info({}, 'delivery loop moves again');
    }
    const waiting = state.sinceKeptUpMs >= thresholds.stallAfterMs ? await oldestWaiting(state, now) : undefined;
    const view = judgeStall({ ...state, oldestWaitingMs: waiting ? now - waiting.dueAt.getTime() : undefined }, thresholds);
    if (view.stalled && stalledSince === undefined && waiting) {
      stalledSince = now;
      const waitingSeconds = Math.floor((now - waiting.dueAt.getTime()) / 1000);
      logger.error({ dueSince: waiting.dueAt.toISOString(), waitingSeconds, sinceKeptUpMs: state.sinceKeptUpMs, loopStuck: view.loopStuck }, 'delivery stalled: deliveries are due and this engine claims none');
      deps.emit?.(waiting.orgId, { stallId: randomUUID(), dueSince: waiting.dueAt.toISOString(), waitingSeconds, loopStuck: view.loopStuck });
    } else if (!view.stalled && stalledSince !== undefined) {
      logger.info({ stalledForMs: now - stalledSince }, 'delivery flows again after a stall');
      stalledSince = undefined;
    }
  };

  // Every 5 s, or a quarter of the shorter threshold when one is set that short.
  const checkEveryMs = Math.min(5_000, Math.max(100, Math.min(thresholds.stallAfterMs, thresholds.loopStuckAfterMs) / 4));
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    // A check that cannot read the queue says nothing: the store's own signals cover an outage.
    void check()
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, checkEveryMs);
  timer.unref();

  return {
    view() {
      const state = deps.loop();
      return { loopStuck: (state?.stepForMs ?? 0) >= thresholds.loopStuckAfterMs, stalled: stalledSince !== undefined };
    },
    stop() {
      clearInterval(timer);
    },
  };
}
