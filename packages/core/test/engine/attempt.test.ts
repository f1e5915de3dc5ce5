import { verify } from '@herald/receiver';
import { describe, expect, test } from 'vitest';
import { attemptKeys, attemptRecord, buildOutgoing, outcomeFields } from '../../src/engine/attempt.js';
import { createKeyCache } from '../../src/engine/keys.js';
import { claimKey } from '../../src/storage/collections.js';
import type { SealedSecret } from '../../src/storage/documents.js';

// A stand-in for the master-key box: the "ciphertext" is the secret itself.
const seal = (secret: string): SealedSecret => ({ keyId: 'k', iv: '', tag: '', ciphertext: secret });
const open = (sealed: SealedSecret): string => sealed.ciphertext;
const now = new Date('2025-01-01T00:00:00Z');

describe('signing keys during a rotation', () => {
  const opened: string[] = [];
  const keys = createKeyCache('standard', (sealed) => {
    opened.push(sealed.ciphertext);
    return open(sealed);
  });
  const exported = (list: { export(): Buffer }[]) => list.map((key) => key.export().toString());
  const subscriber = {
    secret: seal('current-secret-value'),
    previousSecrets: [
      { secret: seal('previous-still-valid'), expiresAt: new Date(now.getTime() + 60_000) },
      { secret: seal('previous-expired-one'), expiresAt: new Date(now.getTime() - 1) },
    ],
  };

  test('standard: current first, then unexpired previous ones; fields under the current one', () => {
    const { signing, field } = attemptKeys(subscriber, 'standard', now, keys);
    expect(exported(signing)).toEqual(['current-secret-value', 'previous-still-valid']);
    expect(field).toBe(keys.keysOf(subscriber.secret).field);
  });

  test('each sealed secret is opened once, however many attempts it signs', () => {
    opened.length = 0;
    const cache = createKeyCache('standard', (sealed) => {
      opened.push(sealed.ciphertext);
      return open(sealed);
    });
    for (let i = 0; i < 5; i++) attemptKeys(subscriber, 'standard', now, cache);
    expect(opened).toEqual(['current-secret-value', 'previous-still-valid']);
  });

  test('the cache is bounded: the least recently used secret goes', () => {
    const cache = createKeyCache('standard', open, 2);
    for (const secret of ['secret-number-one', 'secret-number-two', 'secret-number-three']) cache.keysOf(seal(secret));
    expect(cache.size).toBe(2);
  });

  test('api-portal carries one signature: the current secret only', () => {
    const apiPortal = createKeyCache('api-portal', open);
    expect(exported(attemptKeys(subscriber, 'api-portal', now, apiPortal).signing)).toEqual(['current-secret-value']);
  });

  test('no secret, no signature and no field key', () => {
    expect(attemptKeys({}, 'standard', now, keys)).toEqual({ signing: [], field: undefined });
  });

  test('a receiver still on the previous secret verifies the attempt', () => {
    const outgoing = buildOutgoing({
      row: { _id: 'd1', eventId: 'e1', eventType: 'a.b', subscriberId: 's1', attempts: 2, targetUrl: 'http://old.example/' },
      subscriber: { targetUrl: 'http://new.example/hook', timeoutMs: 1234 },
      signing: attemptKeys(subscriber, 'standard', now, keys).signing,
      body: '{"x":1}',
      profile: 'standard',
      now,
      userAgent: 'Herald/test',
    });
    expect(outgoing).toMatchObject({ url: 'http://new.example/hook', timeoutMs: 1234, body: '{"x":1}', poolKey: 's1' });
    expect(outgoing.headers['herald-attempt']).toBe('3');
    expect(outgoing.headers['user-agent']).toBe('Herald/test');
    const clock = { nowSeconds: () => now.getTime() / 1000 };
    expect(verify(outgoing.headers, outgoing.body, 'previous-still-valid', clock).eventId).toBe('e1');
    expect(() => verify(outgoing.headers, outgoing.body, 'previous-expired-one', clock)).toThrow(/no signature matches/);
  });
});

describe('row fields after an attempt', () => {
  const row = { attempts: 1 };

  test('a retry counts the attempt and schedules the next one', () => {
    const record = attemptRecord(2, now, { kind: 'error', errorClass: 'TIMEOUT', message: 'no answer in 5000 ms', durationMs: 5000 });
    const fields = outcomeFields({ row, record, verdict: { status: 'PENDING', delayMs: 1_000, reason: 'TIMEOUT' }, now, encryptedFields: [] });
    expect(fields).toMatchObject({ status: 'PENDING', attempts: 2, lastHttpStatus: null, lastError: 'TIMEOUT: no answer in 5000 ms', leaseOwner: null });
    expect(fields.nextAttemptAt).toEqual(new Date(now.getTime() + 1_000));
  });

  test('delivered clears the error, stamps deliveredAt and records what was encrypted', () => {
    const record = attemptRecord(2, now, { kind: 'response', status: 204, responseSnippet: '', durationMs: 2 });
    const fields = outcomeFields({ row, record, verdict: { status: 'DELIVERED' }, now, encryptedFields: ['pan'] });
    expect(fields).toMatchObject({ status: 'DELIVERED', lastError: null, lastHttpStatus: 204, deliveredAt: now, nextAttemptAt: null, encryptedFields: ['pan'] });
  });
});

test('every return to PENDING gives the row a new claim key', () => {
  const first = claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: now });
  expect(claimKey({ _id: 'd1', attempts: 1, nextAttemptAt: new Date(now.getTime() + 5_000) })).not.toBe(first); // retry
  expect(claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: new Date(now.getTime() + 40_000) })).not.toBe(first); // lease recovered
  expect(claimKey({ _id: 'd1', attempts: 0, nextAttemptAt: now })).toBe(first);
});
