// Engine options with their defaults resolved once (pure).
import { retryPolicy, type RetryPolicy } from './backoff.js';
import type { DeliveryOptions } from './index.js';

export interface EngineConfig {
  retry: RetryPolicy;
  concurrency: number;
  perSubscriberConcurrency: number;
  ssrfAllowList: readonly string[];
  retentionMs: number;
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
    retentionMs: positive('retentionMs', options.retentionMs, 30 * DAY),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs, 1_000),
    secretRotationOverlapMs: positive('secretRotationOverlapMs', options.secretRotationOverlapMs, DAY),
    leaseMarginMs: positive('leaseMarginMs', options.leaseMarginMs, 15_000),
    maintenanceIntervalMs: positive('maintenanceIntervalMs', options.maintenanceIntervalMs, 10_000),
    jobPollIntervalMs: positive('jobPollIntervalMs', options.jobPollIntervalMs, 5_000),
    batchSize: positive('batchSize', options.batchSize, 200),
    attemptHistoryLimit: 50,
    userAgent: options.userAgent ?? 'Herald/0.1.0',
  };
}
