import { describe, expect, test } from 'vitest';
import { newSubscriberDocument, patchedSubscriberDocument, type ChangeContext } from '../../src/subscribers/changes.js';
import type { SealedSecret } from '../../src/storage/documents.js';

// A transparent "seal" so the test can see what was sealed.
const seal = (plaintext: string): SealedSecret => ({ keyId: 'k', iv: 'iv', tag: 'tag', ciphertext: `sealed(${plaintext})` });
const context = (now: Date, actor = 'alice'): ChangeContext => ({
  orgId: 'org',
  actor,
  now,
  seal,
  holds: (sealed, plaintext) => sealed.ciphertext === `sealed(${plaintext})`,
  secretRotationOverlapMs: 60_000,
});
const t0 = new Date('2030-01-01T00:00:00Z');
const t1 = new Date('2030-01-01T00:10:00Z');

describe('new subscriber', () => {
  test('defaults: enabled, 5000 ms, all events, generated lowercase UUID handle', () => {
    const document = newSubscriberDocument({ displayName: 'd', targetUrl: 'https://x.test/' }, context(t0));
    expect(document).toMatchObject({ enabled: true, timeoutMs: 5000, events: [], matchKeys: ['*'], createdBy: 'alice' });
    expect(document.handle).toMatch(/^[0-9a-f-]{36}$/);
    expect(document.handle).not.toBe(document._id);
    expect(document.secret).toBeUndefined();
  });
});

describe('patch', () => {
  const base = newSubscriberDocument(
    { id: 'h', displayName: 'd', targetUrl: 'https://x.test/', events: ['a.*'], enabled: false, secret: 'secret-one-1234567' },
    context(t0),
  );

  test('only supplied fields change', () => {
    const next = patchedSubscriberDocument(base, { timeoutMs: 900 }, context(t1, 'bob'));
    expect(next).toEqual({ ...base, timeoutMs: 900, updatedAt: t1, updatedBy: 'bob', revision: 1 });
  });

  test('events update the match keys', () => {
    expect(patchedSubscriberDocument(base, { events: ['x.y', 'x.y'] }, context(t1)).matchKeys).toEqual(['x.y']);
  });

  test('a new secret rotates the old one into previousSecrets until now + overlap', () => {
    const next = patchedSubscriberDocument(base, { secret: 'secret-two-1234567' }, context(t1));
    expect(next.secret?.ciphertext).toBe('sealed(secret-two-1234567)');
    expect(next.previousSecrets).toEqual([{ secret: base.secret, expiresAt: new Date(t1.getTime() + 60_000) }]);
  });

  test('the same secret again is not a rotation', () => {
    const next = patchedSubscriberDocument(base, { secret: 'secret-one-1234567' }, context(t1));
    expect(next.secret).toBe(base.secret);
    expect(next.previousSecrets).toBeUndefined();
  });

  test('expired previous secrets drop out; "" removes secret and previous ones', () => {
    const rotated = patchedSubscriberDocument(base, { secret: 'secret-two-1234567' }, context(t1));
    const later = new Date(t1.getTime() + 120_000);
    expect(patchedSubscriberDocument(rotated, { displayName: 'x' }, context(later)).previousSecrets).toBeUndefined();
    const removed = patchedSubscriberDocument(rotated, { secret: '' }, context(t1));
    expect(removed.secret).toBeUndefined();
    expect(removed.previousSecrets).toBeUndefined();
  });
});

describe('enabled and an auto-disable reason', () => {
  const disabled = {
    ...newSubscriberDocument({ id: 'h', displayName: 'd', targetUrl: 'https://x.test/' }, context(t0)),
    enabled: false,
    disabledReason: { code: 'AUTO_DISABLED' as const, message: 'failing for days', at: t0 },
  };

  test('enabling again clears the reason and restarts the auto-disable count', () => {
    const next = patchedSubscriberDocument(disabled, { enabled: true }, context(t1));
    expect(next.enabled).toBe(true);
    expect(next.disabledReason).toBeUndefined();
    expect(next.enabledSince).toEqual(t1);
  });

  test('disabling it by hand replaces the reason; a change that leaves `enabled` alone keeps it', () => {
    const byHand = patchedSubscriberDocument(disabled, { enabled: false }, context(t1));
    expect(byHand.disabledReason).toBeUndefined();
    expect(byHand.enabledSince).toBeUndefined();
    expect(patchedSubscriberDocument(disabled, { displayName: 'renamed' }, context(t1)).disabledReason).toEqual(disabled.disabledReason);
  });

  test('an enabled subscriber set enabled again keeps its count', () => {
    const enabled = { ...disabled, enabled: true, disabledReason: undefined };
    expect(patchedSubscriberDocument(enabled, { enabled: true }, context(t1)).enabledSince).toBeUndefined();
  });
});
