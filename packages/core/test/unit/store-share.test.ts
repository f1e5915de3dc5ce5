// How work that is not a delivery shares the store (rules/store-share.ts), pure.
import { describe, expect, it } from 'vitest';
import { restAfterRun, ShareOfTime } from '../../src/rules/store-share.js';

describe('restAfterRun', () => {
  it('rests so that runs hold the store for at most their share of the time', () => {
    for (const share of [0.1, 0.2, 0.25, 0.5]) {
      for (const runMs of [1, 7.5, 40, 1_000]) {
        const rest = restAfterRun(runMs, share);
        expect(runMs / (runMs + rest)).toBeLessThanOrEqual(share + 1e-9);
        expect(rest).toBeLessThan(runMs * (1 / share - 1) + 1);
      }
    }
    expect(restAfterRun(30, 0.5)).toBe(30);
    expect(restAfterRun(1_000, 0.1)).toBe(9_000);
  });

  it('does not rest after a run that took no measurable time', () => {
    expect(restAfterRun(0, 0.1)).toBe(0);
    expect(restAfterRun(Number.NaN, 0.1)).toBe(0);
  });
});

describe('ShareOfTime', () => {
  it('is ready at first, then once the rest after the last run is over, however long that run took', () => {
    const share = new ShareOfTime(0.1);
    expect(share.ready(0)).toBe(true);
    share.ran(0, 1_000); // a sweep that decoded a queue: 1 s, then 9 s of rest
    expect(share.ready(9_999)).toBe(false);
    expect(share.ready(10_000)).toBe(true);
    share.ran(10_000, 10_003); // an index range: 3 ms, then 27 ms
    expect(share.ready(10_029)).toBe(false);
    expect(share.ready(10_030)).toBe(true);
  });
});
