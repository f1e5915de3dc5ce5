// The hot path, pipelined: claiming, sending and recording overlap, and none waits for another.
//
// Rows arrive two ways. Fresh rows come from the publisher in memory, already IN_FLIGHT under a
// token of ours (fast-path.ts): no read, no claim. Everything else — rows written when we had no
// slot, due retries, rows recovered from a dead worker, rows written by other replicas — is found by
// the poll in due order. The fast path may fill at most `FAST_PATH_SHARE` of the slots, so the poll
// always has room and due retries are never starved by fresh work.
//
// Per subscriber at most `perSubscriberConcurrency` attempts are in flight — fewer under its own
// limits, an open breaker or a receiver's 429s (subscriber-gates.ts); a subscriber with no slot has
// its rows wait in the store, PENDING, and the poll leaves them out. Each subscriber has its own
// connection pool (http/sender.ts), so one hanging receiver holds only its own slots.
//
// Outcomes are group-committed: buffered, and written a batch per command (store.writeOutcomes),
// with up to `compat.writeConcurrency` batches in flight.
import { randomUUID } from 'node:crypto';
import { buildSubscriberBody, type EventPayload } from '../model/payload.js';
import type { DeliveryDocument, EventDocument } from '../storage/documents.js';
import {
  attemptDocument,
  attemptKeys,
  attemptRecord,
  buildOutgoing,
  cancelledFields,
  handedBackFields,
  INTERRUPTED_BY_SHUTDOWN,
  interruptedFields,
  outcomeFields,
} from './attempt.js';
import type { SigningProfile } from '../shared/signing.js';
import type { Random } from './backoff.js';
import type { Breaker, Transition } from './breaker.js';
import type { DeliveryStats } from './stats.js';
import { SubscriberGates } from './subscriber-gates.js';
import type { EngineConfig } from './config.js';
import type { Admission, AdmitRequest, FastPath, HandOver, SubscriberForSend } from '../handover/fast-path.js';
import type { HttpSender, SendResult } from './http/sender.js';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { contextFromTraceparent, traceparentOf, tracer } from '../shared/tracing.js';
import type { EngineLogger, EngineMetrics } from './contract.js';
import type { KeyCache } from './keys.js';
import { decide } from './outcome.js';
import type { DeliveryStore, Outcome } from './store/index.js';
import type { LoopState } from './stall-watch.js';

/** Share of the global slots fresh rows may take without a poll. */
const FAST_PATH_SHARE = 0.75;

export interface DispatcherDeps {
  store: DeliveryStore;
  sender: HttpSender;
  config: EngineConfig;
  profile: SigningProfile;
  owner: string;
  logger: EngineLogger;
  keys: KeyCache;
  /** The event as an attempt needs it (sensitive values opened). */
  payloadOf(event: EventDocument): EventPayload;
  now?: () => Date;
  random?: Random;
  /** A subscriber's health changed state (breaker.ts): persist it, tell the operators. */
  onHealthChange?(subscriberId: string, breaker: Breaker, transition: Exclude<Transition, undefined>, previous: Breaker['state']): void;
  /** This process's delivery figures (stats.ts). */
  stats?: DeliveryStats;
  /** A delivery ended FAILED after being attempted (its retries ran out, or the receiver said 410). */
  onExhausted?(row: DeliveryDocument, attempts: number, reason: string): void;
}

export class Dispatcher implements FastPath {
  /** Per-subscriber admission: slots in use, endpoint health, own limits (subscriber-gates.ts). */
  private readonly gates: SubscriberGates;
  /** Slots of admissions whose rows are being written (released by `release` if that fails). */
  private readonly admitted = new WeakMap<Admission, string[]>();
  /** Outcomes waiting to be written, each with the release of its slot. */
  private readonly outcomes: Array<{ outcome: Outcome; release: () => void }> = [];
  private inFlight = 0;
  private fastInFlight = 0;
  private tokenSeq = 0;
  private polling = false;
  /** Consecutive failed polls: an outage is logged once when it starts and once when it ends. */
  private failedPolls = 0;
  private pollAgain = false;
  /** The poll stopped short for want of slots: poll again when one frees. */
  private backlog = false;
  private flushes = 0;
  /** When the poll loop last finished a step (or began); how long it has not is what `loop()` reports. */
  private lastStepAt = Date.now();
  /** When the poll last kept up: claimed rows, found none it could take now, or had no slot free. */
  private lastKeptUpAt = Date.now();
  private flushScheduled = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private accepting = false;
  /** Aborted when a shutdown passes its drain bound: in-flight exchanges end at once. */
  private readonly shutdown = new AbortController();
  private idleWaiters: Array<() => void> = [];
  private readonly counters = { delivered: 0, failed: 0, retried: 0 };
  private readonly now: () => Date;
  private readonly deps: DispatcherDeps;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
    this.gates = new SubscriberGates({
      config: deps.config,
      logger: deps.logger,
      onHealthChange: (subscriberId, breaker, transition, previous) => {
        deps.onHealthChange?.(subscriberId, breaker, transition, previous);
        if (transition === 'recovered') this.notify();
      },
    });
  }

  /** Health learnt elsewhere (stored by another replica, or before a restart). */
  seedHealth(states: ReadonlyMap<string, Breaker>): void {
    this.gates.seedHealth(states);
  }

  start(): void {
    this.accepting = true;
    this.pollTimer = setInterval(() => this.notify(), this.deps.config.pollIntervalMs);
    this.pollTimer.unref();
    this.notify();
  }

  metrics(): Pick<EngineMetrics, 'inFlight' | 'delivered' | 'failed' | 'retried'> {
    return { inFlight: this.inFlight, ...this.counters };
  }

  /**
   * How the loop is doing, for the stall watch (stall-watch.ts): how long the poll in progress has
   * been in its current step (0 between polls), and since when it has not kept up. Attempts of the
   * fast path do not count: they are fresh rows, not the due ones a stall leaves waiting.
   */
  loop(): LoopState {
    const now = Date.now();
    return { stepForMs: this.polling ? now - this.lastStepAt : 0, sinceKeptUpMs: now - this.lastKeptUpAt, closedSubscribers: this.gates.closed(now) };
  }

  /**
   * Stops taking work and waits up to `drainTimeoutMs` for in-flight attempts to finish and be
   * recorded. Past the bound the exchanges still open are aborted and their rows handed back
   * (PENDING, due now, the attempt recorded as interrupted), which takes at most `recordMs` more.
   * Resolves whether everything finished within the bound.
   */
  async stop(drainTimeoutMs: number, recordMs = 2_000): Promise<boolean> {
    this.accepting = false;
    clearInterval(this.pollTimer);
    if (await this.idleWithin(drainTimeoutMs)) return true;
    this.shutdown.abort(new Error('shutdown'));
    await this.idleWithin(recordMs);
    return false;
  }

  private async idleWithin(ms: number): Promise<boolean> {
    const drained = new Promise<void>((resolve) => {
      if (this.isIdle()) resolve();
      else this.idleWaiters.push(resolve);
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
    const result = await Promise.race([drained.then(() => true), timedOut]);
    clearTimeout(timer);
    return result;
  }

  // ── fast path ────────────────────────────────────────────────────────────────────────────────

  admit(requests: readonly AdmitRequest[], now: Date): Admission {
    const token = this.newToken();
    const { concurrency, leaseMarginMs } = this.deps.config;
    const fastCap = Math.max(1, Math.floor(concurrency * FAST_PATH_SHARE));
    let longest = 0;
    const slots: string[] = [];
    const accepted = requests.map(({ subscriberId, timeoutMs, maxConcurrency, rateLimitPerSecond }) => {
      this.gates.learn(subscriberId, { maxConcurrency, rateLimitPerSecond });
      if (!this.accepting) return false;
      if (this.inFlight >= concurrency || this.fastInFlight >= fastCap) {
        this.deps.store.compat.deliveryBacklog(true);
        return false;
      }
      if (!this.gates.admitOne(subscriberId, now.getTime())) return false;
      this.occupy(subscriberId, +1);
      this.fastInFlight += 1;
      slots.push(subscriberId);
      longest = Math.max(longest, timeoutMs);
      return true;
    });
    const admission = { token, leaseUntil: new Date(now.getTime() + longest + leaseMarginMs), accepted };
    if (slots.length > 0) this.admitted.set(admission, slots);
    return admission;
  }

  handOver({ admissions, started, leftToPoll }: HandOver): void {
    const starting = new Set<Admission>();
    for (const { admission, items, written } of started) {
      if (items.length === 0) continue;
      starting.add(admission);
      // From here each slot is released by its attempt.
      this.admitted.delete(admission);
      this.deps.store.counters.rememberWritten(written);
      for (const item of items) void this.attempt(item.row, item.subscriber, item.payload, true);
    }
    // Every other slot reserved for the batch: its rows were not written, or not by this batch.
    for (const admission of admissions) if (!starting.has(admission)) this.release(admission);
    if (leftToPoll) this.notify();
  }

  private release(admission: Admission): void {
    for (const subscriberId of this.admitted.get(admission) ?? []) {
      this.occupy(subscriberId, -1);
      this.fastInFlight -= 1;
    }
    this.admitted.delete(admission);
    this.checkIdle();
  }

  notify(): void {
    if (!this.accepting) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    this.lastStepAt = Date.now();
    setImmediate(() => void this.poll());
  }

  // ── poll ─────────────────────────────────────────────────────────────────────────────────────

  private async poll(): Promise<void> {
    try {
      do {
        this.pollAgain = false;
        while (this.accepting) {
          const free = Math.min(this.deps.config.concurrency - this.inFlight, this.batchLimit());
          if (free <= 0) {
            this.lastKeptUpAt = Date.now();
            this.backlog = true;
            this.deps.store.compat.deliveryBacklog(true);
            break;
          }
          const taken = await this.pollOnce(free);
          this.lastStepAt = Date.now();
          this.deps.store.compat.deliveryBacklog(taken >= free);
          if (taken < free) break; // the store has no more due rows for us right now
        }
      } while (this.pollAgain && this.accepting);
      if (this.failedPolls > 0) this.deps.logger.info({ failedPolls: this.failedPolls }, 'delivery poll succeeded again; delivery resumed');
      this.failedPolls = 0;
    } catch (error) {
      this.failedPolls += 1;
      if (this.failedPolls === 1) this.deps.logger.error({ err: describeError(error) }, 'delivery poll failed; polling goes on at the usual interval until the store answers');
    } finally {
      this.polling = false;
      this.checkIdle();
    }
  }

  /** One batch: find due rows, read what sending them needs, claim, launch. Returns rows found. */
  private async pollOnce(free: number): Promise<number> {
    const now = this.now();
    const found = await this.deps.store.claims.findDue(now, free, this.gates.closed(now.getTime()));
    this.lastStepAt = Date.now();
    const chosen = this.gates.choose(found, free, now.getTime());
    // Nothing due, or only rows a subscriber's own limits hold back for now: the poll is keeping up.
    if (chosen.length === 0) this.lastKeptUpAt = this.lastStepAt;
    // Rows left out for a busy subscriber are found again once one of its slots frees.
    if (chosen.length < found.length) this.backlog = true;
    if (chosen.length === 0) return 0;
    for (const row of chosen) this.occupy(row.subscriberId, +1);
    let launched = new Set<string>();
    try {
      const { subscribers, events } = await this.deps.store.claims.loadForSend(chosen);
      this.lastStepAt = Date.now();
      for (const [subscriberId, subscriber] of subscribers) this.gates.learn(subscriberId, subscriber);
      const longest = Math.max(0, ...chosen.map((row) => subscribers.get(row.subscriberId)?.timeoutMs ?? 0));
      const token = this.newToken();
      const won = await this.deps.store.claims.claim(chosen, token, now, new Date(now.getTime() + longest + this.deps.config.leaseMarginMs));
      this.lastStepAt = Date.now();
      launched = new Set(won.map((row) => row._id));
      if (won.length > 0) this.lastKeptUpAt = this.lastStepAt;
      // An event's sensitive values are opened once for all its rows in the batch.
      const payloads = new Map<string, EventPayload | undefined>();
      for (const row of won) {
        if (!payloads.has(row.eventId)) {
          const event = events.get(row.eventId);
          payloads.set(row.eventId, event ? this.payloadOrUndefined(event) : undefined);
        }
        void this.attempt(row, subscribers.get(row.subscriberId), payloads.get(row.eventId), false);
      }
    } finally {
      for (const row of chosen) if (!launched.has(row._id)) this.occupy(row.subscriberId, -1);
    }
    return found.length;
  }

  private payloadOrUndefined(event: EventDocument): EventPayload | undefined {
    try {
      return this.deps.payloadOf(event);
    } catch (error) {
      this.deps.logger.error({ eventId: event._id, err: describeError(error) }, 'the event could not be opened (is its master key configured?)');
      return undefined;
    }
  }

  // ── one attempt ──────────────────────────────────────────────────────────────────────────────

  /**
   * An attempt holds its slot until its outcome is written, not only while it sends: so at most
   * `concurrency` attempts can be repeated after a crash, and a subscriber's cap covers them too.
   */
  private async attempt(row: DeliveryDocument, subscriber: SubscriberForSend | undefined, payload: EventPayload | undefined, fast: boolean): Promise<void> {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.occupy(row.subscriberId, -1);
      if (fast) this.fastInFlight -= 1;
      if (this.backlog) {
        this.backlog = false;
        this.notify();
      }
      this.checkIdle();
    };
    try {
      if (!subscriber || !subscriber.enabled) {
        const reason = subscriber
          ? 'Cancelled: the subscriber was disabled before this delivery was attempted'
          : 'Cancelled: the subscriber was deleted before this delivery was attempted';
        this.counters.failed += 1;
        this.record({ row, fields: cancelledFields(reason, this.now()) }, release);
        return;
      }
      // No event to build the body from (its master key is gone): the lease expires and the row is
      // retried once the key is configured again; the error was logged when the event was opened.
      if (!payload) return;
      const startedAt = this.now();
      // Slow database calls may have eaten into the lease; an exchange that could outlive it risks
      // a second worker sending the same row after recovery.
      // Hand it back at once (not counted as an attempt) rather than wait for the lease to expire.
      if (row.leaseUntil && startedAt.getTime() + subscriber.timeoutMs > row.leaseUntil.getTime()) {
        this.deps.logger.debug({ deliveryId: row._id }, 'lease too short to attempt safely; handed back');
        this.record({ row, fields: handedBackFields(startedAt) }, release);
        return;
      }
      const probe = this.gates.isOpen(row.subscriberId);
      const keys = attemptKeys(subscriber, this.deps.profile, startedAt, this.deps.keys);
      const { body, encryptedFields } = buildSubscriberBody(payload, keys.field, this.deps.profile, row.orderSeq);
      const outgoing = buildOutgoing({ row, subscriber, signing: keys.signing, body, profile: this.deps.profile, now: startedAt, userAgent: this.deps.config.userAgent });
      const span = startAttemptSpan(row, probe, startedAt);
      const traceparent = this.deps.config.traceparentHeader ? traceparentOf(span) : undefined;
      const result = await this.deps.sender
        .send({ ...outgoing, headers: traceparent ? { ...outgoing.headers, traceparent } : outgoing.headers, signal: this.shutdown.signal });
      const finishedAt = this.now();
      const attemptsMade = row.attempts + 1;
      if (result.kind === 'error' && this.shutdown.signal.aborted) {
        endAttemptSpan(span, result, 'INTERRUPTED', finishedAt);
        const record = attemptRecord(attemptsMade, startedAt, { ...result, errorClass: 'INTERRUPTED', message: INTERRUPTED_BY_SHUTDOWN });
        this.record({ row, fields: interruptedFields(row, startedAt, finishedAt), attempt: attemptDocument(row, record) }, release);
        return;
      }
      const verdict = decide(
        result.kind === 'response' ? { kind: 'response', status: result.status, retryAfter: result.retryAfter } : { kind: 'error', errorClass: result.errorClass },
        attemptsMade - (row.retryBudgetFrom ?? 0),
        this.deps.config.retry,
        finishedAt.getTime(),
        this.deps.random,
      );
      endAttemptSpan(span, result, verdict.status, finishedAt);
      const outcome = verdict.status === 'DELIVERED' ? 'delivered' : verdict.status === 'FAILED' ? 'failed' : 'retried';
      this.counters[outcome] += 1;
      this.deps.stats?.record(row, outcome, finishedAt);
      this.gates.recordAnswer(row.subscriberId, {
        ok: verdict.status === 'DELIVERED',
        error: verdict.status === 'DELIVERED' ? undefined : verdict.reason,
        probe,
        overloaded: result.kind === 'response' ? result.status === 429 || result.status === 503 : undefined,
      }, finishedAt.getTime());
      if (verdict.status === 'FAILED') this.deps.onExhausted?.(row, attemptsMade, verdict.reason);
      const record = attemptRecord(attemptsMade, startedAt, result);
      this.record({ row, fields: outcomeFields({ row, record, verdict, now: finishedAt, encryptedFields }), attempt: attemptDocument(row, record) }, release);
    } catch (error) {
      // Signing or opening a secret failed (e.g. a master key was removed): the lease will expire
      // and the row will be retried; say why once per attempt.
      this.deps.logger.error({ deliveryId: row._id, err: describeError(error) }, 'delivery attempt could not be prepared');
    } finally {
      // Not recorded (left for lease recovery): nothing to wait for.
      if (!this.recording.has(release)) release();
    }
  }

  // ── outcomes ─────────────────────────────────────────────────────────────────────────────────

  private readonly recording = new Set<() => void>();

  private record(outcome: Outcome, release: () => void): void {
    this.outcomes.push({ outcome, release });
    this.recording.add(release);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.outcomes.length > 0 && this.flushes < this.deps.store.compat.writeConcurrency) {
      const pending = this.outcomes.splice(0, this.batchLimit());
      const batch = pending.map((entry) => entry.outcome);
      this.flushes += 1;
      void this.deps.store
        .outcomes.writeOutcomes(batch, this.now())
        .then(({ written, released }) => {
          // The next rows of ordered keys became due.
          if (released > 0) this.notify();
          if (written < batch.length) this.deps.logger.warn({ lost: batch.length - written }, 'some outcomes were not recorded: their leases had been taken over');
        })
        .catch((error: unknown) => {
          // The rows stay IN_FLIGHT; lease recovery returns them to PENDING and they are resent.
          this.deps.logger.error({ err: describeError(error), rows: batch.length }, 'writing delivery outcomes failed');
        })
        .finally(() => {
          this.flushes -= 1;
          for (const { release } of pending) {
            this.recording.delete(release);
            release();
          }
          this.flush();
          this.checkIdle();
        });
    }
  }

  // ── bookkeeping ──────────────────────────────────────────────────────────────────────────────

  private batchLimit(): number {
    return Math.min(this.deps.config.batchSize, this.deps.store.compat.maxWriteBatch);
  }

  private newToken(): string {
    this.tokenSeq += 1;
    return `${this.deps.owner}/${this.tokenSeq}/${randomUUID().slice(0, 8)}`;
  }

  private occupy(subscriberId: string, delta: number): void {
    this.inFlight += delta;
    this.gates.occupy(subscriberId, delta);
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.outcomes.length === 0 && this.flushes === 0 && !this.polling;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

/** One attempt as a span of its event's publish trace (tracing.ts). */
function startAttemptSpan(row: DeliveryDocument, probe: boolean, startedAt: Date): Span {
  return tracer().startSpan(
    'herald.deliver',
    {
      kind: SpanKind.CLIENT,
      startTime: startedAt,
      attributes: {
        'herald.delivery_id': row._id,
        'herald.event_id': row.eventId,
        'herald.event_type': row.eventType,
        'herald.subscriber_id': row.subscriberHandle,
        'herald.attempt': row.attempts + 1,
        ...(probe ? { 'herald.probe': true } : {}),
      },
    },
    contextFromTraceparent(row.traceparent),
  );
}

function endAttemptSpan(span: Span, result: SendResult, outcome: string, finishedAt: Date): void {
  span.setAttribute('herald.outcome', outcome);
  if (result.kind === 'response') span.setAttribute('http.response.status_code', result.status);
  else span.setAttribute('error.type', result.errorClass);
  if (outcome !== 'DELIVERED') span.setStatus({ code: SpanStatusCode.ERROR, message: result.kind === 'response' ? `HTTP ${result.status}` : result.errorClass });
  span.end(finishedAt);
}

function describeError(error: unknown): { code?: unknown; message: string } {
  if (error instanceof Error) return { code: (error as { code?: unknown }).code, message: error.message };
  return { message: String(error) };
}
