// Which of a subscriber's rows may start now: its slots in use against its cap, its endpoint health
// (breaker.ts) and its own limits with the adaptive cap (limits.ts). In memory, per engine process;
// the dispatcher asks before claiming or admitting and reports every answer.
import type { DeliveryDocument } from '../storage/documents.js';
import { allowance, healthyBreaker, recordResult, type Breaker, type Transition } from './breaker.js';
import type { EngineConfig } from './config.js';
import type { EngineLogger } from '../shared/logger.js';
import { adapt, concurrencyCap, refill, take, tokensAvailable, type Bucket, type SubscriberLimits } from './limits.js';

export interface SubscriberGatesDeps {
  config: EngineConfig;
  logger: EngineLogger;
  onHealthChange(subscriberId: string, breaker: Breaker, transition: Exclude<Transition, undefined>, previous: Breaker['state']): void;
}

export interface Answer {
  ok: boolean;
  error?: string | undefined;
  /** The attempt was an open breaker's probe. */
  probe: boolean;
  /** The receiver said 429 or 503; undefined when it gave no HTTP answer. */
  overloaded?: boolean | undefined;
}

export class SubscriberGates {
  private readonly inFlight = new Map<string, number>();
  /** Subscribers whose health is not plainly healthy; absent means healthy. */
  private readonly breakers = new Map<string, Breaker>();
  private readonly limits = new Map<string, SubscriberLimits>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly adaptive = new Map<string, number>();
  private readonly deps: SubscriberGatesDeps;

  constructor(deps: SubscriberGatesDeps) {
    this.deps = deps;
  }

  occupy(subscriberId: string, delta: number): void {
    const next = (this.inFlight.get(subscriberId) ?? 0) + delta;
    if (next <= 0) this.inFlight.delete(subscriberId);
    else this.inFlight.set(subscriberId, next);
  }

  /** The subscriber's own limits, as last read from its document. */
  learn(subscriberId: string, limits: SubscriberLimits): void {
    if (limits.maxConcurrency === undefined && limits.rateLimitPerSecond === undefined) {
      this.limits.delete(subscriberId);
      this.buckets.delete(subscriberId);
    } else {
      this.limits.set(subscriberId, { maxConcurrency: limits.maxConcurrency, rateLimitPerSecond: limits.rateLimitPerSecond });
    }
  }

  isOpen(subscriberId: string): boolean {
    return this.breakers.get(subscriberId)?.state === 'open';
  }

  /** Health learnt elsewhere (stored by another replica, or before a restart). */
  seedHealth(states: ReadonlyMap<string, Breaker>): void {
    for (const [subscriberId, breaker] of states) if (!this.breakers.has(subscriberId)) this.breakers.set(subscriberId, breaker);
  }

  /** How many more attempts may start now. */
  allowance(subscriberId: string, now: number): number {
    const limits = this.limits.get(subscriberId);
    const cap = concurrencyCap(this.deps.config.perSubscriberConcurrency, limits, this.adaptive.get(subscriberId));
    const { slots } = allowance(this.breakers.get(subscriberId), this.inFlight.get(subscriberId) ?? 0, cap, now);
    const rate = limits?.rateLimitPerSecond;
    if (rate === undefined) return slots;
    const bucket = refill(this.buckets.get(subscriberId), rate, now);
    this.buckets.set(subscriberId, bucket);
    return Math.min(slots, tokensAvailable(bucket));
  }

  /** A fresh row from the publisher: taken if a slot is free; an open breaker's probes are the poll's. */
  admitOne(subscriberId: string, now: number): boolean {
    if (this.isOpen(subscriberId) || this.allowance(subscriberId, now) <= 0) return false;
    this.takeTokens(subscriberId, 1);
    return true;
  }

  /** Subscribers the poll must leave out: no slot free, or an open breaker with no probe due. */
  closed(now: number): string[] {
    const known = new Set([...this.inFlight.keys(), ...this.breakers.keys(), ...this.limits.keys()]);
    return [...known].filter((id) => this.allowance(id, now) <= 0);
  }

  /** The due rows that may start, oldest first, at most `free`; they take their subscribers' rate tokens. */
  choose(rows: readonly DeliveryDocument[], free: number, now: number): DeliveryDocument[] {
    const chosen = this.plan(rows, free, now);
    const planned = new Map<string, number>();
    for (const row of chosen) planned.set(row.subscriberId, (planned.get(row.subscriberId) ?? 0) + 1);
    for (const [subscriberId, count] of planned) this.takeTokens(subscriberId, count);
    return chosen;
  }

  /** What `choose` would choose, taking nothing. */
  plan(rows: readonly DeliveryDocument[], free: number, now: number): DeliveryDocument[] {
    const planned = new Map<string, number>();
    // Asked once per subscriber: a window of due rows may hold thousands of one busy subscriber's.
    const allowances = new Map<string, number>();
    const chosen: DeliveryDocument[] = [];
    for (const row of rows) {
      if (chosen.length >= free) break;
      const already = planned.get(row.subscriberId) ?? 0;
      let allowed = allowances.get(row.subscriberId);
      if (allowed === undefined) allowances.set(row.subscriberId, (allowed = this.allowance(row.subscriberId, now)));
      if (already >= allowed) continue;
      planned.set(row.subscriberId, already + 1);
      chosen.push(row);
    }
    return chosen;
  }

  /** An attempt's answer moves the subscriber's breaker and adaptive cap. */
  recordAnswer(subscriberId: string, answer: Answer, now: number): void {
    if (answer.overloaded !== undefined) this.noteLoad(subscriberId, answer.overloaded);
    this.noteHealth(subscriberId, answer, now);
  }

  private takeTokens(subscriberId: string, count: number): void {
    const bucket = this.buckets.get(subscriberId);
    if (bucket && this.limits.get(subscriberId)?.rateLimitPerSecond !== undefined) this.buckets.set(subscriberId, take(bucket, count));
  }

  /** 429/503 halve the subscriber's cap; each other answer raises it again by one. */
  private noteLoad(subscriberId: string, overloaded: boolean): void {
    const cap = concurrencyCap(this.deps.config.perSubscriberConcurrency, this.limits.get(subscriberId), undefined);
    const next = adapt(this.adaptive.get(subscriberId), overloaded, cap);
    if (next === undefined) this.adaptive.delete(subscriberId);
    else this.adaptive.set(subscriberId, next);
    if (overloaded && next !== undefined) this.deps.logger.debug({ subscriberId, concurrency: next }, 'receiver overloaded: concurrency lowered');
  }

  /** A change of health state is logged and reported once. */
  private noteHealth(subscriberId: string, answer: Answer, now: number): void {
    const policy = this.deps.config.breaker;
    if (!policy) return;
    const current = this.breakers.get(subscriberId);
    if (!current && answer.ok) return;
    const { breaker, transition } = recordResult(current ?? healthyBreaker(now), answer, now, policy);
    const settled = breaker.state === 'healthy' && breaker.consecutiveFailures === 0 && (breaker.ramp === null || breaker.ramp >= this.deps.config.perSubscriberConcurrency);
    if (settled) this.breakers.delete(subscriberId);
    else this.breakers.set(subscriberId, breaker);
    if (!transition) return;
    const fields = { subscriberId, state: breaker.state, consecutiveFailures: breaker.consecutiveFailures, lastError: breaker.lastError };
    if (transition === 'open') this.deps.logger.warn(fields, 'subscriber keeps failing: its deliveries are held (PENDING, attempts untouched) and probed one at a time');
    else if (transition === 'recovered') this.deps.logger.info(fields, 'subscriber answers again: its held deliveries drain');
    this.deps.onHealthChange(subscriberId, breaker, transition, current?.state ?? 'healthy');
  }
}
