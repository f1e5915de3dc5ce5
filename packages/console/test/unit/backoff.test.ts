import { describe, expect, it } from 'vitest';
import { LIVE_POLICY, nextDelay } from '../../src/live/backoff';

describe('live polling backoff', () => {
  it('polls again soon after a change', () => {
    expect(nextDelay(20_000, 'changed')).toBe(LIVE_POLICY.minMs);
  });

  it('slows down while nothing changes, up to the ceiling', () => {
    let delay = LIVE_POLICY.minMs;
    const seen: number[] = [];
    for (let poll = 0; poll < 10; poll += 1) seen.push((delay = nextDelay(delay, 'unchanged')));
    expect(seen.slice(0, 3)).toEqual([3000, 4500, 6750]);
    expect(seen.at(-1)).toBe(LIVE_POLICY.maxMs);
    expect(seen.every((value, index) => index === 0 || value >= (seen[index - 1] ?? 0))).toBe(true);
  });

  it('backs off faster when the host fails', () => {
    expect(nextDelay(2_000, 'failed')).toBe(4_000);
    expect(nextDelay(25_000, 'failed')).toBe(LIVE_POLICY.maxMs);
  });
});
