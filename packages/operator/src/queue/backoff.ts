// Per-key retry delays (pure): exponential from a base, capped, with optional jitter.

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 300_000 };

/**
 * Delay before retry number `failures` (1 = first retry): base·2^(failures-1), capped.
 * `random` in [0,1) spreads retries by up to ±10% so a host outage does not end in a thundering herd.
 */
export function retryDelayMs(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random = 0.5): number {
  if (failures <= 0) return 0;
  const exponent = Math.min(failures - 1, 30);
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const jitter = 1 + (random - 0.5) * 0.2;
  return Math.min(policy.maxMs, Math.round(raw * jitter));
}
