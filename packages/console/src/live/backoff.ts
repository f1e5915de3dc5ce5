// How long to wait before the next poll (pure). There is no server push endpoint, so live views
// poll: quickly while things change, then less and less often while nothing does (or while the
// host fails), so an idle console left open costs the host about one request every 30 s.

export interface BackoffPolicy {
  minMs: number;
  maxMs: number;
  /** Growth while nothing changes. */
  idleFactor: number;
  /** Growth after a failed poll: an unwell host is left alone sooner. */
  errorFactor: number;
}

export const LIVE_POLICY: BackoffPolicy = { minMs: 2_000, maxMs: 30_000, idleFactor: 1.5, errorFactor: 2 };

export type PollOutcome = 'changed' | 'unchanged' | 'failed';

export function nextDelay(currentMs: number, outcome: PollOutcome, policy: BackoffPolicy = LIVE_POLICY): number {
  if (outcome === 'changed') return policy.minMs;
  const factor = outcome === 'failed' ? policy.errorFactor : policy.idleFactor;
  return Math.min(policy.maxMs, Math.max(policy.minMs, Math.round(currentMs * factor)));
}
