import { describe, expect, test } from 'vitest';
import { parseRetryAfter } from '../../src/engine/retry-after.js';

describe('Retry-After', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  test('delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  test('HTTP-date, relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  test('absent or unreadable values are ignored', () => {
    for (const value of [undefined, '', 'soon', '-5', '1.5', '12.5']) expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
