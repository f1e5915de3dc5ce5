// The hot path. Rows reach it two ways: notify(ids) right after publish (fast path: no poll
// wait) and a short-interval poll for rows written elsewhere or due for a retry. It claims only
// as many rows as it has free slots (global and per subscriber), sends them concurrently over
// the shared sender, and writes outcomes back in batches (one bulkWrite per batch, then one
// re-aggregation of the touched events), so database round trips per delivery stay low.
import type { Random } from './backoff.js';
import { attemptRecord, buildOutgoing, cancelledFields, signingSecrets, type SigningProfile } from './attempt.js';
import { outcomeFields } from './attempt.js';
import type { EngineConfig } from './config.js';
import type { HttpSender } from './http/sender.js';
import type { EngineLogger, EngineMetrics } from './index.js';
import { decide } from './outcome.js';
import type { DeliveryStore, RowWrite, SubscriberForSend } from './store.js';
import type { DeliveryDocument, SealedSecret } from '../storage/documents.js';

export interface DispatcherDeps {
  store: DeliveryStore;
  sender: HttpSender;
  config: EngineConfig;
  profile: SigningProfile;
  owner: string;
  logger: EngineLogger;
  openSecret(sealed: SealedSecret): string;
  now?: () => Date;
  random?: Random;
}

export class Dispatcher {
  private readonly hinted = new Set<string>();
  private readonly perSubscriber = new Map<string, number>();
  private readonly outcomes: RowWrite[] = [];
  private inFlight = 0;
  private pumping = false;
  private pumpRequested = false;
  private rerunPump = false;
  private deferredWork = false;
  private pollRequested = true;
  private flushing: Promise<void> | undefined;
  private flushScheduled = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private idleWaiters: Array<() => void> = [];
  private readonly counters = { delivered: 0, failed: 0, retried: 0 };
  private readonly now: () => Date;
  private readonly deps: DispatcherDeps;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
  }

  start(): void {
    this.stopping = false;
    this.pollTimer = setInterval(() => this.requestPoll(), this.deps.config.pollIntervalMs);
    this.pollTimer.unref();
    this.requestPoll();
  }

  notify(ids: readonly string[]): void {
    if (this.stopping) return;
    for (const id of ids) this.hinted.add(id);
    this.schedulePump();
  }

  requestPoll(): void {
    this.pollRequested = true;
    this.schedulePump();
  }

  metrics(): EngineMetrics {
    return { inFlight: this.inFlight, ...this.counters };
  }

  /** Stops claiming; resolves when in-flight attempts are recorded or the bound passes. */
  async stop(drainTimeoutMs: number): Promise<boolean> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    this.hinted.clear();
    const drained = new Promise<void>((resolve) => {
      if (this.isIdle()) resolve();
      else this.idleWaiters.push(resolve);
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), drainTimeoutMs); });
    const result = await Promise.race([drained.then(() => true), timedOut]);
    clearTimeout(timer);
    return result;
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.outcomes.length === 0 && !this.flushing && !this.pumping;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private schedulePump(): void {
    if (this.pumpRequested) return;
    this.pumpRequested = true;
    setImmediate(() => {
      this.pumpRequested = false;
      void this.pump();
    });
  }

  private freeSlots(): number {
    return Math.min(this.deps.config.concurrency - this.inFlight, this.deps.config.batchSize);
  }

  private saturatedSubscribers(): string[] {
    const cap = this.deps.config.perSubscriberConcurrency;
    return [...this.perSubscriber].filter(([, count]) => count >= cap).map(([id]) => id);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.rerunPump = true; // the running pass picks the new work up before it ends
      return;
    }
    this.pumping = true;
    try {
      for (;;) {
        if (this.stopping) break;
        const free = this.freeSlots();
        if (free <= 0) break;
        const now = this.now();
        let candidates: DeliveryDocument[];
        let fromPoll = false;
        if (this.hinted.size > 0) {
          const ids = [...this.hinted].slice(0, free);
          ids.forEach((id) => this.hinted.delete(id));
          candidates = await this.deps.store.findDueByIds(ids, now);
        } else if (this.pollRequested) {
          this.pollRequested = false;
          fromPoll = true;
          candidates = await this.deps.store.findDue(now, free, this.saturatedSubscribers());
        } else {
          break;
        }
        const chosen = this.withinSubscriberLimits(candidates, free);
        // Rows left out for a busy subscriber are found again by a poll once one of its slots frees.
        if (chosen.length < candidates.length) this.deferredWork = true;
        if (chosen.length === 0) continue;
        // Subscribers are read fresh for every batch: a disabled one must not be sent to, and
        // the lease is sized from each subscriber's own timeout.
        const subscribers = await this.deps.store.subscribers([...new Set(chosen.map((row) => row.subscriberId))]);
        const leaseMs = (row: DeliveryDocument): number =>
          (subscribers.get(row.subscriberId)?.timeoutMs ?? 0) + this.deps.config.leaseMarginMs;
        const claimed = await this.deps.store.claim(chosen, this.deps.owner, now, leaseMs);
        this.launch(claimed, subscribers);
        // A full page from the poll means more rows may be due right now.
        if (fromPoll && candidates.length >= free) this.pollRequested = true;
      }
    } catch (error) {
      this.deps.logger.error({ err: describeError(error) }, 'delivery dispatcher pass failed; will retry on the next poll');
    } finally {
      this.pumping = false;
      if (this.rerunPump) {
        this.rerunPump = false;
        this.schedulePump();
      }
      this.checkIdle();
    }
  }

  private withinSubscriberLimits(rows: readonly DeliveryDocument[], free: number): DeliveryDocument[] {
    const cap = this.deps.config.perSubscriberConcurrency;
    const planned = new Map<string, number>();
    const chosen: DeliveryDocument[] = [];
    for (const row of rows) {
      if (chosen.length >= free) break;
      const used = (this.perSubscriber.get(row.subscriberId) ?? 0) + (planned.get(row.subscriberId) ?? 0);
      if (used >= cap) continue;
      planned.set(row.subscriberId, (planned.get(row.subscriberId) ?? 0) + 1);
      chosen.push(row);
    }
    return chosen;
  }

  private launch(rows: readonly DeliveryDocument[], subscribers: ReadonlyMap<string, SubscriberForSend>): void {
    for (const row of rows) {
      this.occupy(row.subscriberId, +1);
      void this.attempt(row, subscribers.get(row.subscriberId));
    }
  }

  private occupy(subscriberId: string, delta: number): void {
    this.inFlight += delta;
    const next = (this.perSubscriber.get(subscriberId) ?? 0) + delta;
    if (next <= 0) this.perSubscriber.delete(subscriberId);
    else this.perSubscriber.set(subscriberId, next);
  }

  private async attempt(row: DeliveryDocument, subscriber: SubscriberForSend | undefined): Promise<void> {
    try {
      if (!subscriber || !subscriber.enabled) {
        const reason = subscriber ? 'subscriber disabled before the attempt; not sent' : 'subscriber deleted before the attempt; not sent';
        this.counters.failed += 1;
        this.record({ row, fields: cancelledFields(reason, this.now()) });
        return;
      }
      const startedAt = this.now();
      // The lease was set when the claim began; if slow database calls have eaten into it so
      // far that this exchange could outlive it, sending now would risk a second worker sending
      // the same row after recovery. Leave it: recovery returns it to PENDING.
      if (row.leaseUntil && startedAt.getTime() + subscriber.timeoutMs > row.leaseUntil.getTime()) {
        this.deps.logger.warn({ deliveryId: row._id }, 'lease too short to attempt safely; left for recovery');
        return;
      }
      const secrets = signingSecrets(subscriber, this.deps.profile, startedAt, this.deps.openSecret);
      const outgoing = buildOutgoing({ row, subscriber, secrets, profile: this.deps.profile, now: startedAt, userAgent: this.deps.config.userAgent });
      const result = await this.deps.sender.send(outgoing);
      const finishedAt = this.now();
      const attemptsMade = row.attempts + 1;
      const verdict = decide(
        result.kind === 'response' ? { kind: 'response', status: result.status, retryAfter: result.retryAfter } : { kind: 'error', errorClass: result.errorClass },
        attemptsMade,
        this.deps.config.retry,
        finishedAt.getTime(),
        this.deps.random,
      );
      this.counters[verdict.status === 'DELIVERED' ? 'delivered' : verdict.status === 'FAILED' ? 'failed' : 'retried'] += 1;
      const record = attemptRecord(attemptsMade, startedAt, result);
      this.record({ row, fields: outcomeFields({ row, record, verdict, now: finishedAt, historyLimit: this.deps.config.attemptHistoryLimit }) });
    } catch (error) {
      // Signing or opening a secret failed (e.g. a master key was removed): the lease will expire
      // and the row will be retried; say why once per attempt.
      this.deps.logger.error({ deliveryId: row._id, err: describeError(error) }, 'delivery attempt could not be prepared');
    } finally {
      this.occupy(row.subscriberId, -1);
      if (this.deferredWork) {
        this.deferredWork = false;
        this.pollRequested = true;
      }
      if (this.hinted.size > 0 || this.pollRequested) this.schedulePump();
      this.checkIdle();
    }
  }

  private record(write: RowWrite): void {
    this.outcomes.push(write);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.outcomes.length > 0) {
        const batch = this.outcomes.splice(0, this.deps.config.batchSize);
        try {
          const written = await this.deps.store.writeOutcomes(batch);
          if (written < batch.length) {
            this.deps.logger.warn({ lost: batch.length - written }, 'some outcomes were not recorded: their leases had been taken over');
          }
          const finishedEvents = batch.filter((write) => write.fields.status === 'DELIVERED' || write.fields.status === 'FAILED').map((write) => write.row.eventId);
          await this.deps.store.refreshEvents([...new Set(finishedEvents)], this.now());
        } catch (error) {
          // The rows stay IN_FLIGHT; lease recovery returns them to PENDING and they are resent.
          this.deps.logger.error({ err: describeError(error), rows: batch.length }, 'writing delivery outcomes failed');
        }
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
      this.checkIdle();
      if (this.outcomes.length > 0) void this.flush();
    }
  }
}

function describeError(error: unknown): { code?: unknown; message: string } {
  if (error instanceof Error) return { code: (error as { code?: unknown }).code, message: error.message };
  return { message: String(error) };
}
