import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/queue/backoff.js';
import { initialBucket, takeToken } from '../../src/queue/token-bucket.js';

describe('retryDelayMs', () => {
  it('doubles from the base and caps at the maximum', () => {
    const policy = { baseMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 10].map((failures) => retryDelayMs(failures, policy))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(retryDelayMs(0, policy)).toBe(0);
  });

  it('jitters by at most ten percent and never beyond the cap', () => {
    const policy = { baseMs: 1_000, maxMs: 5_000 };
    expect(retryDelayMs(1, policy, 0)).toBe(900);
    expect(retryDelayMs(1, policy, 0.999)).toBeLessThanOrEqual(1_100);
    expect(retryDelayMs(10, policy, 0.999)).toBe(5_000);
  });
});

describe('token bucket', () => {
  const policy = { ratePerSecond: 10, burst: 2 };
  it('allows a burst, then spaces requests at the rate', () => {
    let state = initialBucket(policy, 0);
    const waits: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const step = takeToken(state, policy, 0);
      state = step.state;
      waits.push(step.waitMs);
    }
    expect(waits).toEqual([0, 0, 100, 200]);
  });

  it('refills over time up to the burst', () => {
    const drained = takeToken(takeToken(initialBucket(policy, 0), policy, 0).state, policy, 0).state;
    expect(takeToken(drained, policy, 100).waitMs).toBe(0);
    expect(takeToken(drained, policy, 60_000).state.tokens).toBe(1);
  });
});
