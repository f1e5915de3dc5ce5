// Overall rate limit of the work queue (pure state + step): a token bucket.

export interface TokenBucketState {
  tokens: number;
  updatedAtMs: number;
}

export interface TokenBucketPolicy {
  ratePerSecond: number;
  burst: number;
}

export function initialBucket(policy: TokenBucketPolicy, nowMs: number): TokenBucketState {
  return { tokens: policy.burst, updatedAtMs: nowMs };
}

/** Takes one token: the new state and how long to wait before the taken token is due (0 = now). */
export function takeToken(state: TokenBucketState, policy: TokenBucketPolicy, nowMs: number): { state: TokenBucketState; waitMs: number } {
  const refilled = Math.min(policy.burst, state.tokens + ((nowMs - state.updatedAtMs) / 1000) * policy.ratePerSecond);
  const tokens = refilled - 1;
  const waitMs = tokens >= 0 ? 0 : Math.ceil((-tokens / policy.ratePerSecond) * 1000);
  return { state: { tokens, updatedAtMs: nowMs }, waitMs };
}
