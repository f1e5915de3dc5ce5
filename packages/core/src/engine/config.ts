// Engine options with their defaults resolved once (pure).
import { retryPolicy, type RetryPolicy } from './backoff.js';
import { DEFAULT_BREAKER_POLICY, type BreakerPolicy } from './breaker.js';
import type { DeliveryOptions } from './contract.js';
import { DEFAULT_AUTO_DISABLE_AFTER_MS } from '../rules/auto-disable.js';

export interface EngineConfig {
  retry: RetryPolicy;
  concurrency: number;
  perSubscriberConcurrency: number;
  ssrfAllowList: readonly string[];
  /** 0: settled events are kept forever (see retention.ts). */
  retentionMs: number;
  retentionByEventType: Readonly<Record<string, number>>;
  pollIntervalMs: number;
  secretRotationOverlapMs: number;
  /** Lease = the subscriber's timeout + this margin; an attempt older than that is presumed dead. */
  leaseMarginMs: number;
  /** How often the cluster-wide maintenance jobs run (lease recovery, fan-out completion). */
  maintenanceIntervalMs: number;
  /** How often Agenda looks for due jobs. */
  jobPollIntervalMs: number;
  /** Largest number of rows claimed or written in one database command. */
  batchSize: number;
  attemptHistoryLimit: number;
  /** Sent as the Herald user agent. */
  userAgent: string;
  /** Send the attempt span's W3C `traceparent` header with each delivery. */
  traceparentHeader: boolean;
  stallAfterMs: number;
  loopStuckAfterMs: number;
  /** Endpoint health (breaker.ts); null: never hold a subscriber's deliveries. */
  breaker: BreakerPolicy | null;
  /** Disable a subscriber failing this long (rules/auto-disable.ts); 0: never. */
  autoDisableAfterMs: number;
}

const DAY = 24 * 60 * 60 * 1000;

export function resolveConfig(options: DeliveryOptions): EngineConfig {
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    const resolved = value ?? fallback;
    if (!Number.isFinite(resolved) || resolved <= 0) throw new RangeError(`delivery.${name} must be a positive number`);
    return resolved;
  };
  return {
    retry: retryPolicy(options),
    concurrency: positive('concurrency', options.concurrency, 128),
    perSubscriberConcurrency: positive('perSubscriberConcurrency', options.perSubscriberConcurrency, 16),
    ssrfAllowList: options.ssrfAllowList ?? [],
    retentionMs: nonNegative('delivery.retentionMs', options.retentionMs, 30 * DAY),
    retentionByEventType: Object.fromEntries(
      Object.entries(options.retentionByEventType ?? {}).map(([type, ms]) => [type, nonNegative(`delivery.retentionByEventType["${type}"]`, ms, 0)]),
    ),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs, 1_000),
    secretRotationOverlapMs: positive('secretRotationOverlapMs', options.secretRotationOverlapMs, DAY),
    leaseMarginMs: positive('leaseMarginMs', options.leaseMarginMs, 15_000),
    maintenanceIntervalMs: positive('maintenanceIntervalMs', options.maintenanceIntervalMs, 10_000),
    jobPollIntervalMs: positive('jobPollIntervalMs', options.jobPollIntervalMs, 5_000),
    batchSize: positive('batchSize', options.batchSize, 200),
    attemptHistoryLimit: 50,
    userAgent: options.userAgent ?? 'Herald/0.1.0',
    traceparentHeader: options.traceparentHeader ?? false,
    stallAfterMs: positive('stallAfterMs', options.stallAfterMs, 45_000),
    loopStuckAfterMs: positive('loopStuckAfterMs', options.loopStuckAfterMs, 120_000),
    breaker: options.breaker === false ? null : resolveBreaker(options.breaker ?? {}),
    autoDisableAfterMs: resolveAutoDisable(options.autoDisableAfterMs),
  };
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isFinite(resolved) || resolved < 0) throw new RangeError(`${name} must be a number ≥ 0 (0 keeps forever)`);
  return resolved;
}

function resolveAutoDisable(value: number | undefined): number {
  const resolved = value ?? DEFAULT_AUTO_DISABLE_AFTER_MS;
  if (!Number.isFinite(resolved) || resolved < 0) throw new RangeError('delivery.autoDisableAfterMs must be a number ≥ 0 (0 turns auto-disable off)');
  return resolved;
}

function resolveBreaker(options: Partial<BreakerPolicy>): BreakerPolicy {
  const policy = { ...DEFAULT_BREAKER_POLICY, ...options };
  if (!Number.isInteger(policy.failures) || policy.failures < 1) throw new RangeError('delivery.breaker.failures must be an integer ≥ 1');
  if (!Number.isFinite(policy.windowMs) || policy.windowMs < 0) throw new RangeError('delivery.breaker.windowMs must be non-negative milliseconds');
  if (policy.probeBackoffMs.length === 0 || policy.probeBackoffMs.some((ms) => !Number.isFinite(ms) || ms <= 0)) {
    throw new RangeError('delivery.breaker.probeBackoffMs must list positive milliseconds');
  }
  return policy;
}
