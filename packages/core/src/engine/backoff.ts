// Retry timing (DECISIONS §7): a capped exponential schedule with full jitter, so receivers that
// come back after an outage are not hit by every queued retry in the same second.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Ceilings of the delay before attempt 2, 3, …; the last one repeats until maxAttempts. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 1 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR,
];

/** One first attempt plus one retry per schedule step: 11 attempts over ≈ 2 days. */
export const DEFAULT_MAX_ATTEMPTS = DEFAULT_RETRY_SCHEDULE_MS.length + 1;

export interface RetryPolicy {
  scheduleMs: readonly number[];
  maxAttempts: number;
  /** Bounds a receiver's Retry-After is clamped to. */
  retryAfterMinMs: number;
  retryAfterMaxMs: number;
}

export function retryPolicy(options: { retrySchedule?: readonly number[] | undefined; maxAttempts?: number | undefined }): RetryPolicy {
  const scheduleMs = options.retrySchedule && options.retrySchedule.length > 0 ? [...options.retrySchedule] : [...DEFAULT_RETRY_SCHEDULE_MS];
  if (scheduleMs.some((ms) => !Number.isFinite(ms) || ms < 0)) throw new RangeError('retrySchedule entries must be finite, non-negative milliseconds');
  const maxAttempts = options.maxAttempts ?? scheduleMs.length + 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be an integer ≥ 1');
  return { scheduleMs, maxAttempts, retryAfterMinMs: Math.min(SECOND, Math.max(...scheduleMs)), retryAfterMaxMs: Math.max(...scheduleMs) };
}

/** Random number in [0, 1); injectable so tests are deterministic. */
export type Random = () => number;

/**
 * Delay before the next attempt after `attemptsMade` attempts (≥ 1). Full jitter: uniform in
 * [0, ceiling], but never below a tenth of the ceiling so a retry is never instantaneous.
 */
export function retryDelayMs(attemptsMade: number, policy: RetryPolicy, random: Random = Math.random): number {
  const step = Math.min(Math.max(attemptsMade, 1), policy.scheduleMs.length) - 1;
  const ceiling = policy.scheduleMs[step] ?? 0;
  const floor = ceiling / 10;
  return Math.round(floor + random() * (ceiling - floor));
}

export function attemptsExhausted(attemptsMade: number, policy: RetryPolicy): boolean {
  return attemptsMade >= policy.maxAttempts;
}
