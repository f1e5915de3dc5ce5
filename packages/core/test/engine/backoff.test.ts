import { describe, expect, test } from 'vitest';
import { attemptsExhausted, DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs, retryPolicy } from '../../src/engine/backoff.js';

const almostOne = 1 - Number.EPSILON;

describe('retry backoff', () => {
  const policy = retryPolicy({});

  test('default schedule is 5 s … 24 h with 11 attempts', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS[0]).toBe(5_000);
    expect(DEFAULT_RETRY_SCHEDULE_MS.at(-1)).toBe(86_400_000);
    expect(policy.maxAttempts).toBe(DEFAULT_MAX_ATTEMPTS);
    expect(DEFAULT_MAX_ATTEMPTS).toBe(11);
  });

  test('full jitter: the random draw spans a tenth of the ceiling up to the ceiling', () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(500);
    expect(retryDelayMs(1, policy, () => almostOne)).toBe(5_000);
    expect(retryDelayMs(2, policy, () => 0.5)).toBe(16_500);
  });

  test('the delay is capped by the last step of the schedule', () => {
    expect(retryDelayMs(50, policy, () => almostOne)).toBe(86_400_000);
    expect(retryDelayMs(0, policy, () => almostOne)).toBe(5_000);
  });

  test('jittered delays vary and never exceed the ceiling', () => {
    const delays = Array.from({ length: 200 }, () => retryDelayMs(3, policy));
    expect(Math.max(...delays)).toBeLessThanOrEqual(120_000);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(12_000);
    expect(new Set(delays).size).toBeGreaterThan(100);
  });

  test('a configured schedule sets the attempts, unless maxAttempts says otherwise', () => {
    expect(retryPolicy({ retrySchedule: [10, 20] }).maxAttempts).toBe(3);
    const custom = retryPolicy({ retrySchedule: [10, 20], maxAttempts: 5 });
    expect(retryDelayMs(4, custom, () => almostOne)).toBe(20);
    expect(attemptsExhausted(4, custom)).toBe(false);
    expect(attemptsExhausted(5, custom)).toBe(true);
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => retryPolicy({ retrySchedule: [-1] })).toThrow(RangeError);
  });
});
