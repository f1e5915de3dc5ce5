import { verify } from '@herald/receiver';
import { describe, expect, test } from 'vitest';
import { attemptRecord, buildOutgoing, outcomeFields, signingSecrets } from '../../src/engine/attempt.js';
import { claimKey } from '../../src/engine/store.js';
import type { SealedSecret } from '../../src/storage/documents.js';

// A stand-in for the master-key box: the "ciphertext" is the secret itself.
const seal = (secret: string): SealedSecret => ({ keyId: 'k', iv: '', tag: '', ciphertext: secret });
const open = (sealed: SealedSecret): string => sealed.ciphertext;
const now = new Date('2025-01-01T00:00:00Z');

describe('signing secrets during a rotation', () => {
  const subscriber = {
    secret: seal('current-secret-value'),
    previousSecrets: [
      { secret: seal('previous-still-valid'), expiresAt: new Date(now.getTime() + 60_000) },
      { secret: seal('previous-expired-one'), expiresAt: new Date(now.getTime() - 1) },
    ],
  };

  test('standard: current first, then unexpired previous ones', () => {
    expect(signingSecrets(subscriber, 'standard', now, open)).toEqual(['current-secret-value', 'previous-still-valid']);
  });

  test('api-portal carries one signature: the current secret only', () => {
    expect(signingSecrets(subscriber, 'api-portal', now, open)).toEqual(['current-secret-value']);
  });

  test('no secret, no signature', () => {
    expect(signingSecrets({}, 'standard', now, open)).toEqual([]);
  });

  test('a receiver still on the previous secret verifies the attempt', () => {
    const outgoing = buildOutgoing({
      row: { _id: 'd1', eventId: 'e1', eventType: 'a.b', body: '{"x":1}', attempts: 2, targetUrl: 'http://old.example/' },
      subscriber: { targetUrl: 'http://new.example/hook', timeoutMs: 1234 },
      secrets: signingSecrets(subscriber, 'standard', now, open),
      profile: 'standard',
      now,
      userAgent: 'Herald/test',
    });
    expect(outgoing).toMatchObject({ url: 'http://new.example/hook', timeoutMs: 1234, body: '{"x":1}' });
    expect(outgoing.headers['herald-attempt']).toBe('3');
    expect(outgoing.headers['user-agent']).toBe('Herald/test');
    const clock = { nowSeconds: () => now.getTime() / 1000 };
    expect(verify(outgoing.headers, outgoing.body, 'previous-still-valid', clock).eventId).toBe('e1');
    expect(() => verify(outgoing.headers, outgoing.body, 'previous-expired-one', clock)).toThrow(/no signature matches/);
  });
});

describe('row fields after an attempt', () => {
  const row = { attempts: 1, attemptHistory: [attemptRecord(1, now, { kind: 'response', status: 500, responseSnippet: 'x', durationMs: 3 })] };

  test('a retry keeps the history, counts the attempt and schedules the next one', () => {
    const record = attemptRecord(2, now, { kind: 'error', errorClass: 'TIMEOUT', message: 'no answer in 5000 ms', durationMs: 5000 });
    const fields = outcomeFields({ row, record, verdict: { status: 'PENDING', delayMs: 1_000, reason: 'TIMEOUT' }, now, historyLimit: 50 });
    expect(fields).toMatchObject({ status: 'PENDING', attempts: 2, lastHttpStatus: null, lastError: 'TIMEOUT: no answer in 5000 ms', leaseOwner: null });
    expect(fields.nextAttemptAt).toEqual(new Date(now.getTime() + 1_000));
    expect(fields.attemptHistory?.map((a) => a.errorClass)).toEqual(['HTTP_STATUS', 'TIMEOUT']);
  });

  test('delivered clears the error and stamps deliveredAt; the history is capped', () => {
    const record = attemptRecord(2, now, { kind: 'response', status: 204, responseSnippet: '', durationMs: 2 });
    const fields = outcomeFields({ row, record, verdict: { status: 'DELIVERED' }, now, historyLimit: 1 });
    expect(fields).toMatchObject({ status: 'DELIVERED', lastError: null, lastHttpStatus: 204, deliveredAt: now, nextAttemptAt: null });
    expect(fields.attemptHistory).toHaveLength(1);
    expect(fields.attemptHistory?.[0]?.attempt).toBe(2);
  });
});

test('every return to PENDING gives the row a new claim key', () => {
  const first = claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: now });
  expect(claimKey({ _id: 'd1', attempts: 1, nextAttemptAt: new Date(now.getTime() + 5_000) })).not.toBe(first); // retry
  expect(claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: new Date(now.getTime() + 40_000) })).not.toBe(first); // lease recovered
  expect(claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: now })).toBe(first);
});
