// Endpoint health: a circuit breaker that holds deliveries instead of burning their attempts (pure).
//
// A subscriber whose attempts keep failing — at least `failures` in a row and no success for
// `windowMs` — is `open`: the engine stops claiming its rows, which stay PENDING with their
// attempts untouched, and tries one row (a probe) at a time on a growing backoff. A successful
// probe closes the breaker; the held backlog then drains with a concurrency that starts at 1 and
// doubles with each success up to the subscriber's cap, so a receiver that just came back is not
// hit by its whole backlog at once. Below the threshold a subscriber with recent failures is
// `failing`: visible, but sent to as usual. Retries that run out while failing still end FAILED;
// a recovery (deliveries/recovery.ts) sends them again.

export type HealthState = 'healthy' | 'failing' | 'open';

export interface BreakerPolicy {
  /** Consecutive failed attempts before the breaker may open. */
  failures: number;
  /** …and no success for this long. */
  windowMs: number;
  /** Delays between probes while open; the last repeats. */
  probeBackoffMs: readonly number[];
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  failures: 10,
  windowMs: 60_000,
  probeBackoffMs: [5_000, 15_000, 30_000, 60_000, 120_000, 300_000],
};

export interface Breaker {
  state: HealthState;
  /** When the current state began. */
  since: number;
  consecutiveFailures: number;
  /** The first failure of the current run of failures. */
  failingSince: number | null;
  lastError: string | null;
  /** Probes tried since the breaker opened. */
  probes: number;
  nextProbeAt: number | null;
  /** After recovery: how many attempts may run at once (doubles per success, up to the cap). */
  ramp: number | null;
}

export function healthyBreaker(now: number): Breaker {
  return { state: 'healthy', since: now, consecutiveFailures: 0, failingSince: null, lastError: null, probes: 0, nextProbeAt: null, ramp: null };
}

export type Transition = 'failing' | 'open' | 'recovered' | undefined;

/** An attempt's result: the next breaker and the state change it made, if any. */
export function recordResult(breaker: Breaker, result: { ok: boolean; error?: string; probe?: boolean }, now: number, policy: BreakerPolicy): { breaker: Breaker; transition: Transition } {
  if (result.ok) {
    if (breaker.state === 'healthy') {
      return { breaker: { ...breaker, consecutiveFailures: 0, failingSince: null, ramp: breaker.ramp === null ? null : breaker.ramp * 2 }, transition: undefined };
    }
    const recovered = breaker.state === 'open';
    return {
      breaker: { ...healthyBreaker(now), ramp: recovered ? 2 : null },
      transition: 'recovered',
    };
  }
  const failures = breaker.consecutiveFailures + 1;
  const failingSince = breaker.failingSince ?? now;
  const lastError = result.error ?? breaker.lastError;
  if (breaker.state === 'open') {
    if (!result.probe) return { breaker: { ...breaker, consecutiveFailures: failures, lastError }, transition: undefined };
    const probes = breaker.probes + 1;
    return { breaker: { ...breaker, consecutiveFailures: failures, lastError, probes, nextProbeAt: now + probeDelay(probes, policy) }, transition: undefined };
  }
  if (failures >= policy.failures && now - failingSince >= policy.windowMs) {
    return {
      breaker: { ...breaker, state: 'open', since: now, consecutiveFailures: failures, failingSince, lastError, probes: 0, nextProbeAt: now + probeDelay(0, policy), ramp: null },
      transition: 'open',
    };
  }
  if (breaker.state === 'healthy') {
    return { breaker: { ...breaker, state: 'failing', since: now, consecutiveFailures: failures, failingSince, lastError, ramp: null }, transition: 'failing' };
  }
  return { breaker: { ...breaker, consecutiveFailures: failures, failingSince, lastError }, transition: undefined };
}

function probeDelay(probesTried: number, policy: BreakerPolicy): number {
  return policy.probeBackoffMs[Math.min(probesTried, policy.probeBackoffMs.length - 1)] ?? 60_000;
}

/**
 * How many more attempts of this subscriber may start now, given those in flight and its cap:
 * none while open (but one probe when due), a ramp after recovery, the cap otherwise.
 */
export function allowance(breaker: Breaker | undefined, inFlight: number, cap: number, now: number): { slots: number; probe: boolean } {
  if (!breaker) return { slots: Math.max(0, cap - inFlight), probe: false };
  if (breaker.state === 'open') {
    // One probe at a time: only when nothing of this subscriber is in flight.
    const due = breaker.nextProbeAt !== null && now >= breaker.nextProbeAt && inFlight === 0;
    return { slots: due ? 1 : 0, probe: due };
  }
  const limit = breaker.ramp === null ? cap : Math.min(cap, breaker.ramp);
  return { slots: Math.max(0, limit - inFlight), probe: false };
}
