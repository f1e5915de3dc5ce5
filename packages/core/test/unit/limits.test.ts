// Per-subscriber limits (engine/limits.ts), pure.
import { expect, test } from 'vitest';
import { adapt, concurrencyCap, refill, take, tokensAvailable } from '../../src/engine/limits.js';

test('the rate bucket starts full (one second, at least 1) and refills at the rate', () => {
  let bucket = refill(undefined, 5, 0);
  expect(tokensAvailable(bucket)).toBe(5);
  bucket = take(bucket, 5);
  expect(tokensAvailable(refill(bucket, 5, 100))).toBe(0);
  expect(tokensAvailable(refill(bucket, 5, 400))).toBe(2);
  expect(tokensAvailable(refill(bucket, 5, 10_000))).toBe(5);
  const slow = take(refill(undefined, 0.5, 0), 1);
  expect(tokensAvailable(refill(slow, 0.5, 1_999))).toBe(0);
  expect(tokensAvailable(refill(slow, 0.5, 2_000))).toBe(1);
});

test('429/503 halve the cap, successes raise it by one until it is back', () => {
  expect(adapt(undefined, true, 16)).toBe(8);
  expect(adapt(8, true, 16)).toBe(4);
  expect(adapt(1, true, 16)).toBe(1);
  expect(adapt(4, false, 16)).toBe(5);
  expect(adapt(15, false, 16)).toBeUndefined();
  expect(adapt(undefined, false, 16)).toBeUndefined();
});

test('the cap is the least of the engine\'s, the subscriber\'s and the adaptive one', () => {
  expect(concurrencyCap(16, undefined, undefined)).toBe(16);
  expect(concurrencyCap(16, { maxConcurrency: 2 }, undefined)).toBe(2);
  expect(concurrencyCap(16, { maxConcurrency: 8 }, 3)).toBe(3);
});
