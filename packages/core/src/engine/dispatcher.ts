// The hot path, pipelined: claiming, sending and recording overlap, and none waits for another.
//
// Rows arrive two ways. Fresh rows come from the publisher in memory, already IN_FLIGHT under a
// token of ours (handover/fast-path.ts): no read, no claim. Everything else — rows written when we had no
// slot, due retries, rows recovered from a dead worker, rows written by other replicas — is found by
// the poll in due order. The fast path may fill only part of the slots (slots.ts), so the poll
// always has room and due retries are never starved by fresh work.
//
// Per subscriber at most `perSubscriberConcurrency` attempts are in flight — fewer under its own
// limits, an open breaker or a receiver's 429s (subscriber-gates.ts); a subscriber with no slot has
// its rows wait in the store, PENDING, and the poll leaves them out. Each subscriber has its own
// connection pool (http/sender.ts), so one hanging receiver holds only its own slots.
//
// This file is the engine's lifecycle (start, drain), its poll and the course of one attempt; slots
// and admission are slots.ts, the outcomes' group commit outcome-batcher.ts, and everything said
// about an attempt (span, figures, logs, diagnostics channels) goes through observation.ts.
import { randomUUID } from 'node:crypto';
import type { Admission, AdmitRequest, FastPath, HandOver, SubscriberForSend } from '../handover/fast-path.js';
import { buildSubscriberBody, type EventPayload } from '../model/payload.js';
import { cancellationReason } from '../model/cancellation-reasons.js';
import type { SigningProfile } from '../shared/signing.js';
import type { DeliveryDocument } from '../storage/documents.js';
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
import type { Random } from './backoff.js';
import type { Breaker, Transition } from './breaker.js';
import type { EngineConfig } from './config.js';
import type { EngineLogger, EngineMetrics } from './contract.js';
import { describeError } from './describe-error.js';
import { ClaimContention } from './claim-contention.js';
import { DueWindow } from './due-window.js';
import type { HttpSender } from './http/sender.js';
import type { ClientTlsCache } from './client-tls.js';
import type { KeyCache } from './keys.js';
import { sendWithBearer } from './oauth2/authorized-send.js';
import type { TokenSource } from './oauth2/token-cache.js';
import { AttemptObserver } from './observation.js';
import { decide } from './outcome.js';
import { OutcomeBatcher } from './outcome-batcher.js';
import { Slots } from './slots.js';
import type { LoopState } from './stall-watch.js';
import type { DeliveryStats } from './stats.js';
import type { DeliveryStore } from './store/index.js';
import type { SendableEvent } from './store/sendable-events.js';
import { wholeEventLimit } from './store/whole-event-claims.js';
import { SubscriberGates } from './subscriber-gates.js';

export interface DispatcherDeps {
  store: DeliveryStore;
  sender: HttpSender;
  config: EngineConfig;
  profile: SigningProfile;
  owner: string;
  logger: EngineLogger;
  keys: KeyCache;
  clientTls: ClientTlsCache;
  /** Access tokens of subscribers with OAuth2 credentials (oauth2/token-cache.ts). */
  tokens: TokenSource;
  /** The event as an attempt needs it (sensitive values opened). */
  payloadOf(event: SendableEvent): EventPayload;
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
  private readonly slots: Slots;
  private readonly window: DueWindow;
  private readonly contention = new ClaimContention();
  private readonly outcomes: OutcomeBatcher;
  private readonly observer: AttemptObserver;
  private tokenSeq = 0;
  private polling = false;
  /** Consecutive failed polls: an outage is logged once when it starts and once when it ends. */
  private failedPolls = 0;
  private pollAgain = false;
  /** The poll stopped short for want of slots: poll again when one frees. */
  private backlog = false;
  /** When the poll loop last finished a step (or began); how long it has not is what `loop()` reports. */
  private lastStepAt = Date.now();
  /** When the poll last kept up: claimed rows, found none it could take now, or had no slot free. */
  private lastKeptUpAt = Date.now();
  private pollTimer: NodeJS.Timeout | undefined;
  private accepting = false;
  /** Aborted when a shutdown passes its drain bound: in-flight exchanges end at once. */
  private readonly shutdown = new AbortController();
  private idleWaiters: Array<() => void> = [];
  private readonly now: () => Date;
  private readonly deps: DispatcherDeps;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
    this.window = new DueWindow(deps.store.compat.dueReadAhead.maxAgeMs);
    const gates = new SubscriberGates({
      config: deps.config,
      logger: deps.logger,
      onHealthChange: (subscriberId, breaker, transition, previous) => {
        deps.onHealthChange?.(subscriberId, breaker, transition, previous);
        if (transition === 'recovered') this.notify();
      },
    });
    this.slots = new Slots(deps.config, gates, () => deps.store.compat.deliveryBacklog(true));
    this.outcomes = new OutcomeBatcher({
      store: deps.store.outcomes,
      writeConcurrency: deps.store.compat.writeConcurrency,
      batchLimit: this.batchLimit(),
      now: this.now,
      logger: deps.logger,
      onReleased: () => this.notify(),
      onWritten: () => this.checkIdle(),
    });
    this.observer = new AttemptObserver({ logger: deps.logger, traceparentHeader: deps.config.traceparentHeader, stats: deps.stats });
  }

  /** Health learnt elsewhere (stored by another replica, or before a restart). */
  seedHealth(states: ReadonlyMap<string, Breaker>): void {
    this.slots.gates.seedHealth(states);
  }

  start(): void {
    this.accepting = true;
    this.pollTimer = setInterval(() => this.notify(), this.deps.config.pollIntervalMs);
    this.pollTimer.unref();
    this.notify();
  }

  metrics(): Pick<EngineMetrics, 'inFlight' | 'delivered' | 'failed' | 'retried'> {
    return { inFlight: this.slots.inFlight, ...this.observer.totals() };
  }

  /**
   * How the loop is doing, for the stall watch (stall-watch.ts): how long the poll in progress has
   * been in its current step (0 between polls), and since when it has not kept up. Attempts of the
   * fast path do not count: they are fresh rows, not the due ones a stall leaves waiting.
   */
  loop(): LoopState {
    const now = Date.now();
    return { stepForMs: this.polling ? now - this.lastStepAt : 0, sinceKeptUpMs: now - this.lastKeptUpAt, closedSubscribers: this.slots.gates.closed(now) };
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
    return this.slots.admit(requests, now, this.newToken(), this.accepting);
  }

  handOver({ admissions, started, leftToPoll }: HandOver): void {
    const starting = new Set<Admission>();
    for (const { admission, items, written, forPoll } of started) {
      // Rows left to the poll are sent without reading their event back.
      if (forPoll) this.deps.store.claims.rememberEvent(forPoll);
      if (items.length > 0 || forPoll) this.deps.store.counters.rememberWritten(written);
      if (items.length === 0) continue;
      starting.add(admission);
      this.slots.started(admission);
      for (const item of items) void this.attempt(item.row, item.subscriber, item.payload, true);
    }
    // Every other slot reserved for the batch: its rows were not written, or not by this batch.
    for (const admission of admissions) if (!starting.has(admission)) this.slots.release(admission);
    this.checkIdle();
    if (leftToPoll) this.notify();
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
          const free = this.slots.free(this.batchLimit());
          if (free <= 0) {
            this.lastKeptUpAt = Date.now();
            this.backlog = true;
            this.deps.store.compat.deliveryBacklog(true);
            break;
          }
          const { taken, due } = await this.pollOnce(free);
          this.lastStepAt = Date.now();
          this.deps.store.compat.deliveryBacklog(due >= free);
          if (taken < free) break; // no more due rows we can start right now
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

  /**
   * One batch: take due rows from the window read ahead, reading the queue when the window cannot
   * fill the free slots (due-window.ts); read what sending them needs, claim, launch. Returns how
   * many rows it tried to claim and how many due rows it knew.
   */
  private async pollOnce(free: number): Promise<{ taken: number; due: number }> {
    const now = this.now();
    const nowMs = now.getTime();
    const planned = this.slots.gates.plan(this.window.rows(nowMs), free, nowMs);
    if (this.window.wantsRead(free - planned.length, nowMs)) {
      // Left out: subscribers with no slot, and those whose held rows already wait for one.
      const leaveOut = [...new Set([...this.slots.gates.closed(nowMs), ...this.window.heldSubscribers(planned)])];
      const readStartedAt = Date.now();
      const read = await this.deps.store.claims.findDue(now, Math.max(free, this.deps.store.compat.dueReadAhead.rows), leaveOut);
      this.lastStepAt = Date.now();
      this.window.add(read, nowMs, this.lastStepAt - readStartedAt);
    }
    const known = this.window.rows(nowMs);
    const due = known.length;
    let candidates = this.contention.order(known, free, nowMs, this.deps.random ?? Math.random);
    let limit = free;
    if (this.deps.store.compat.pointReads) {
      // Where a whole event is claimed by one statement, a choice cut by its count ends on an
      // event's last row. The choice is planned once; choosing from the plan takes its first rows.
      candidates = this.slots.gates.plan(candidates, free, nowMs);
      limit = wholeEventLimit(candidates, known, free);
    }
    const chosen = this.slots.gates.choose(candidates, limit, nowMs);
    this.window.remove(chosen);
    // Nothing due, or only rows a subscriber's own limits hold back for now: the poll is keeping up.
    if (chosen.length === 0) this.lastKeptUpAt = this.lastStepAt;
    // Rows left out for a busy subscriber are taken once one of its slots frees.
    if (chosen.length < due) this.backlog = true;
    if (chosen.length === 0) return { taken: 0, due };
    for (const row of chosen) this.slots.occupy(row.subscriberId, +1);
    let launched = new Set<string>();
    try {
      const { subscribers, events } = await this.deps.store.claims.loadForSend(chosen);
      this.lastStepAt = Date.now();
      const sendable = await this.withoutOrphans(chosen, events);
      for (const [subscriberId, subscriber] of subscribers) this.slots.gates.learn(subscriberId, subscriber);
      const longest = Math.max(0, ...sendable.map((row) => subscribers.get(row.subscriberId)?.timeoutMs ?? 0));
      const token = this.newToken();
      const won = await this.deps.store.claims.claim(sendable, token, now, new Date(nowMs + longest + this.deps.config.leaseMarginMs), events);
      this.lastStepAt = Date.now();
      launched = new Set(won.map((row) => row._id));
      if (won.length > 0) this.lastKeptUpAt = this.lastStepAt;
      // Someone else is working the rows read ahead (another worker, a cancel, a retry): read afresh.
      if (won.length < sendable.length) {
        this.window.clear();
        this.contention.lost(nowMs);
      }
      // An event's sensitive values are opened once for all its rows in the batch.
      const payloads = new Map<string, EventPayload | undefined>();
      for (const row of won) {
        if (!payloads.has(row.eventId)) {
          const event = events.get(row.eventId);
          payloads.set(row.eventId, event ? this.payloadOrUndefined(event) : undefined);
        }
        void this.attempt(row, subscribers.get(row.subscriberId), payloads.get(row.eventId), false);
      }
    } catch (error) {
      this.window.clear();
      throw error;
    } finally {
      for (const row of chosen) if (!launched.has(row._id)) this.slots.occupy(row.subscriberId, -1);
    }
    return { taken: chosen.length, due };
  }

  /**
   * The rows whose event was found. A queued row outlives its event only when a redelivery moves
   * it back as retention or an erase removes that event: nothing can be sent for it, and claiming
   * it would only let its lease run out again and again. It leaves the queue instead, and the next
   * row of an ordered key it headed may go. Rows whose event the primary does hold stay queued for
   * the next batch.
   */
  private async withoutOrphans(rows: readonly DeliveryDocument[], events: ReadonlyMap<string, SendableEvent>): Promise<DeliveryDocument[]> {
    const orphans = rows.filter((row) => !events.has(row.eventId));
    if (orphans.length === 0) return [...rows];
    const removed = await this.deps.store.purging.removeRowsWithoutEvent(orphans, this.now());
    if (removed > 0) this.deps.logger.warn({ removed }, 'removed queued deliveries whose event no longer exists (pruned or erased during a redelivery)');
    return rows.filter((row) => events.has(row.eventId));
  }

  private payloadOrUndefined(event: SendableEvent): EventPayload | undefined {
    try {
      return this.deps.payloadOf(event);
    } catch (error) {
      this.deps.logger.error({ eventId: event._id, err: describeError(error) }, 'the event could not be opened (is its master key configured?)');
      return undefined;
    }
  }

  // ── one attempt ──────────────────────────────────────────────────────────────────────────────

  /** One attempt of one row; its slot comes back once its outcome is written (outcome-batcher.ts). */
  private async attempt(row: DeliveryDocument, subscriber: SubscriberForSend | undefined, payload: EventPayload | undefined, fast: boolean): Promise<void> {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.slots.endAttempt(row.subscriberId, fast);
      if (this.backlog) {
        this.backlog = false;
        this.notify();
      }
      this.checkIdle();
    };
    try {
      if (!subscriber || !subscriber.enabled) {
        this.observer.cancelled();
        this.outcomes.record({ row, fields: cancelledFields(cancellationReason(subscriber), this.now()) }, release);
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
        this.observer.handedBack(row);
        this.outcomes.record({ row, fields: handedBackFields(startedAt) }, release);
        return;
      }
      const gates = this.slots.gates;
      const probe = gates.isOpen(row.subscriberId);
      const keys = attemptKeys(subscriber, this.deps.profile, startedAt, this.deps.keys);
      const { body, encryptedFields } = buildSubscriberBody(payload, keys.field, this.deps.profile, row.orderSeq);
      const clientTls = subscriber.tls ? this.deps.clientTls.materialOf(subscriber.tls) : undefined;
      const outgoing = buildOutgoing({ row, subscriber, signing: keys.signing, clientTls, body, profile: this.deps.profile, now: startedAt, userAgent: this.deps.config.userAgent });
      const observed = this.observer.start(row, probe, startedAt);
      const { traceparent } = observed;
      const traced = { ...outgoing, headers: traceparent ? { ...outgoing.headers, traceparent } : outgoing.headers, signal: this.shutdown.signal };
      const result = subscriber.oauth2
        ? await sendWithBearer({ sender: this.deps.sender, tokens: this.deps.tokens, subscriberId: row.subscriberId, oauth2: subscriber.oauth2, outgoing: traced })
        : await this.deps.sender.send(traced);
      const finishedAt = this.now();
      const attemptsMade = row.attempts + 1;
      if (result.kind === 'error' && this.shutdown.signal.aborted) {
        observed.end(result, 'INTERRUPTED', finishedAt);
        const record = attemptRecord(attemptsMade, startedAt, { ...result, errorClass: 'INTERRUPTED', message: INTERRUPTED_BY_SHUTDOWN });
        this.outcomes.record({ row, fields: interruptedFields(row, startedAt, finishedAt), attempt: attemptDocument(row, record) }, release);
        return;
      }
      const verdict = decide(
        result.kind === 'response' ? { kind: 'response', status: result.status, retryAfter: result.retryAfter } : { kind: 'error', errorClass: result.errorClass },
        attemptsMade - (row.retryBudgetFrom ?? 0),
        this.deps.config.retry,
        finishedAt.getTime(),
        this.deps.random,
      );
      observed.end(result, verdict.status, finishedAt);
      gates.recordAnswer(row.subscriberId, {
        ok: verdict.status === 'DELIVERED',
        error: verdict.status === 'DELIVERED' ? undefined : verdict.reason,
        probe,
        overloaded: result.kind === 'response' ? result.status === 429 || result.status === 503 : undefined,
      }, finishedAt.getTime());
      if (verdict.status === 'FAILED') this.deps.onExhausted?.(row, attemptsMade, verdict.reason);
      const record = attemptRecord(attemptsMade, startedAt, result);
      this.outcomes.record({ row, fields: outcomeFields({ row, record, verdict, now: finishedAt, encryptedFields }), attempt: attemptDocument(row, record) }, release);
    } catch (error) {
      this.observer.notPrepared(row, error);
    } finally {
      // Not recorded (left for lease recovery): nothing to wait for.
      if (!this.outcomes.holds(release)) release();
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

  private isIdle(): boolean {
    return this.slots.inFlight === 0 && this.outcomes.idle && !this.polling;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
