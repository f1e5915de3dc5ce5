import { describe, expect, test } from 'vitest';
import { retryPolicy } from '../../src/engine/backoff.js';
import { decide } from '../../src/engine/outcome.js';

const policy = retryPolicy({ retrySchedule: [1_000, 10_000, 60_000], maxAttempts: 4 });
const now = Date.UTC(2025, 0, 1);
const half = () => 0.5;

describe('attempt outcome', () => {
  test('2xx is delivered', () => {
    for (const status of [200, 201, 204, 299]) expect(decide({ kind: 'response', status }, 1, policy, now)).toEqual({ status: 'DELIVERED' });
  });

  test('410 is terminal on the first attempt', () => {
    expect(decide({ kind: 'response', status: 410 }, 1, policy, now)).toMatchObject({ status: 'FAILED' });
  });

  test('3xx is a failure that is retried, never followed', () => {
    expect(decide({ kind: 'response', status: 302 }, 1, policy, now, half)).toEqual({
      status: 'PENDING', delayMs: 550, reason: 'HTTP 302 (redirect not followed)',
    });
  });

  test('other 4xx/5xx and network errors retry with backoff until attempts run out', () => {
    expect(decide({ kind: 'response', status: 500 }, 2, policy, now, half)).toEqual({ status: 'PENDING', delayMs: 5_500, reason: 'HTTP 500' });
    expect(decide({ kind: 'response', status: 404 }, 1, policy, now, half)).toMatchObject({ status: 'PENDING' });
    for (const errorClass of ['TIMEOUT', 'CONNECTION_REFUSED', 'DNS', 'TLS', 'CONNECTION_RESET', 'NETWORK'] as const) {
      expect(decide({ kind: 'error', errorClass }, 1, policy, now, half)).toMatchObject({ status: 'PENDING', reason: errorClass });
    }
    expect(decide({ kind: 'response', status: 500 }, 4, policy, now)).toEqual({ status: 'FAILED', reason: 'HTTP 500; gave up after 4 attempts' });
  });

  test('SSRF refusals and bad URLs are terminal', () => {
    expect(decide({ kind: 'error', errorClass: 'SSRF_BLOCKED' }, 1, policy, now)).toMatchObject({ status: 'FAILED', reason: 'SSRF_BLOCKED' });
    expect(decide({ kind: 'error', errorClass: 'INVALID_URL' }, 1, policy, now)).toMatchObject({ status: 'FAILED' });
  });

  test('429/503 honour Retry-After within the policy bounds', () => {
    expect(decide({ kind: 'response', status: 429, retryAfter: '30' }, 1, policy, now)).toMatchObject({ status: 'PENDING', delayMs: 30_000 });
    expect(decide({ kind: 'response', status: 503, retryAfter: '999999' }, 1, policy, now)).toMatchObject({ delayMs: 60_000 });
    expect(decide({ kind: 'response', status: 503, retryAfter: '0' }, 1, policy, now)).toMatchObject({ delayMs: 1_000 });
    // Only 429/503 get the receiver's say; a 500 with Retry-After uses the backoff.
    expect(decide({ kind: 'response', status: 500, retryAfter: '30' }, 1, policy, now, half)).toMatchObject({ delayMs: 550 });
    // An unreadable header falls back to the backoff.
    expect(decide({ kind: 'response', status: 429, retryAfter: 'later' }, 1, policy, now, half)).toMatchObject({ delayMs: 550 });
  });
});
