import { describe, expect, test } from 'vitest';
import { afterSettle, GAP_GRACE_MS, lowestPerKey, orderKeyOf, parseOrderKey, planKey, stalledHeads } from '../../src/ordering/keys.js';

describe('order keys', () => {
  test('a key names subscriber, aggregate type and id unambiguously, and parses back', () => {
    const parts = { subscriberId: 's1', aggregateType: 'order', aggregateId: 'a"b\n:c' };
    expect(parseOrderKey(orderKeyOf(parts))).toEqual(parts);
    // Separators inside the ids cannot make two keys equal.
    expect(orderKeyOf({ subscriberId: 's', aggregateType: 'a:b', aggregateId: 'c' })).not.toBe(orderKeyOf({ subscriberId: 's', aggregateType: 'a', aggregateId: 'b:c' }));
  });
});

describe('planKey', () => {
  test('a batch of rows of one key gets consecutive numbers ending at the counter', () => {
    expect(planKey(3, 7, 4).sequences).toEqual([5, 6, 7]);
  });
  test('the first row goes at once only when every row before it settled', () => {
    expect(planKey(1, 1, 0).firstReleased).toBe(true); // the key's first row ever
    expect(planKey(2, 6, 4).firstReleased).toBe(true); // 5 and 6; 4 settled
    expect(planKey(2, 6, 3).firstReleased).toBe(false); // 4 is still queued
    expect(planKey(1, 9, 0).firstReleased).toBe(false);
  });
});

describe('afterSettle', () => {
  test('each key moves to its highest settled number and releases the next', () => {
    const { done, release } = afterSettle([
      { orderKey: 'k1', orderSeq: 3 },
      { orderKey: 'k2', orderSeq: 1 },
      { orderKey: undefined, orderSeq: undefined },
      { orderKey: 'k1', orderSeq: 2 },
    ]);
    expect(Object.fromEntries(done)).toEqual({ k1: 3, k2: 1 });
    expect(release).toEqual([{ orderKey: 'k1', orderSeq: 4 }, { orderKey: 'k2', orderSeq: 2 }]);
  });
  test('unordered rows change nothing', () => {
    expect(afterSettle([{ orderKey: undefined, orderSeq: undefined }]).release).toEqual([]);
  });
});

describe('the sweep', () => {
  test('releases the lowest held row of keys with nothing claimable, in flight or retrying', () => {
    const lowest = lowestPerKey([
      { _id: 'b', orderKey: 'k1', orderSeq: 5 },
      { _id: 'a', orderKey: 'k1', orderSeq: 4 },
      { _id: 'c', orderKey: 'k2', orderSeq: 9 },
      { _id: 'd', orderKey: 'k3', orderSeq: 2 },
      { _id: 'x' },
    ]);
    expect(Object.fromEntries(lowest)).toEqual({ k1: { id: 'a', orderSeq: 4 }, k2: { id: 'c', orderSeq: 9 }, k3: { id: 'd', orderSeq: 2 } });
    const settledBefore = new Map([['k1', 3], ['k2', 8], ['k3', 1]]);
    expect(stalledHeads(lowest, new Set(['k2']), settledBefore, new Date())).toEqual(['a', 'd']);
    expect(stalledHeads(lowest, new Set(['k1', 'k2', 'k3']), settledBefore, new Date())).toEqual([]);
  });

  test('a head whose predecessor has not settled waits out the grace: that row may still be on its way', () => {
    const now = new Date('2030-01-01T00:10:00Z');
    const lowest = lowestPerKey([
      { _id: 'fresh', orderKey: 'k1', orderSeq: 5, createdAt: new Date(now.getTime() - 1_000) },
      { _id: 'old', orderKey: 'k2', orderSeq: 5, createdAt: new Date(now.getTime() - GAP_GRACE_MS - 1) },
      { _id: 'first', orderKey: 'k3', orderSeq: 1, createdAt: now },
      { _id: 'next', orderKey: 'k4', orderSeq: 7, createdAt: now },
    ]);
    // k1 and k2: number 4 never settled (a gap, an erased row, or a publish still writing it);
    // k3: nothing comes before 1; k4: 6 settled, so its release was lost in a crash.
    const done = new Map([['k1', 3], ['k2', 3], ['k4', 6]]);
    expect(stalledHeads(lowest, new Set(), done, now)).toEqual(['old', 'first', 'next']);
  });
});
