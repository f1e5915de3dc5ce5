// Per-subscriber limits (pure): the subscriber's own `maxConcurrency` and `rateLimitPerSecond`, and
// an adaptive cap that backs off when the receiver says it is overloaded.
//
// The rate is a token bucket (burst = one second's worth, at least 1). On 429 or 503 the adaptive
// cap halves (at least 1); each success after that raises it by one until it reaches the
// configured cap again — additive increase, multiplicative decrease. The row itself waits for the
// receiver's Retry-After (engine/outcome.ts). All of it is per engine process: N replicas may
// together start up to N × the rate; set the limit accordingly.

export interface SubscriberLimits {
  maxConcurrency?: number | undefined;
  rateLimitPerSecond?: number | undefined;
}

export interface Bucket {
  tokens: number;
  at: number;
}

function burst(rate: number): number {
  return Math.max(1, rate);
}

/** The bucket refilled up to `now`. */
export function refill(bucket: Bucket | undefined, rate: number, now: number): Bucket {
  if (!bucket) return { tokens: burst(rate), at: now };
  const tokens = Math.min(burst(rate), bucket.tokens + ((now - bucket.at) / 1000) * rate);
  return { tokens, at: now };
}

/** Whole attempts the bucket allows now. */
export function tokensAvailable(bucket: Bucket): number {
  return Math.floor(bucket.tokens + 1e-9);
}

export function take(bucket: Bucket, count: number): Bucket {
  return { tokens: bucket.tokens - count, at: bucket.at };
}

/** The adaptive cap after an answer: halved on overload, +1 after a success, undefined once back at `cap`. */
export function adapt(current: number | undefined, overloaded: boolean, cap: number): number | undefined {
  if (overloaded) return Math.max(1, Math.floor((current ?? cap) / 2));
  if (current === undefined) return undefined;
  const next = current + 1;
  return next >= cap ? undefined : next;
}

/** The concurrency cap of a subscriber: the engine's, its own, and the adaptive one, whichever is least. */
export function concurrencyCap(engineCap: number, limits: SubscriberLimits | undefined, adaptive: number | undefined): number {
  return Math.min(engineCap, limits?.maxConcurrency ?? Number.POSITIVE_INFINITY, adaptive ?? Number.POSITIVE_INFINITY);
}
