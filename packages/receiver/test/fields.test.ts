import { describe, expect, test } from 'vitest';
import { decryptFields, deriveFieldKey, encryptField, encryptWithKey, WebhookVerificationError } from '../src/index.js';

describe('field encryption', () => {
  test('api-portal key derivation matches the known answer', () => {
    expect(deriveFieldKey('shared-secret', 'api-portal').toString('hex')).toBe(
      'aa951771c97c94be7e0eae71316c23c8bfa6da5ea49b28223cea84355bfa2e5d',
    );
  });

  test('the standard profile derives a different key from the same secret', () => {
    expect(deriveFieldKey('shared-secret', 'standard').equals(deriveFieldKey('shared-secret', 'api-portal'))).toBe(false);
    expect(deriveFieldKey('shared-secret', 'standard')).toHaveLength(32);
  });

  test('zero IV known answer: "hello"', () => {
    expect(encryptField('hello', 'shared-secret', 'api-portal', new Uint8Array(12))).toEqual({
      iv: 'AAAAAAAAAAAAAAAA',
      tag: 'Eirz5p7vlFsxDfQUyeVxdA==',
      ciphertext: 'RjYjGZM=',
    });
  });

  test('fresh IVs by default, and the round trip restores the plaintext', () => {
    const a = encryptField('4111 1111 1111 1111', 'subscriber-secret', 'standard');
    const b = encryptField('4111 1111 1111 1111', 'subscriber-secret', 'standard');
    expect(a.iv).not.toBe(b.iv);
    expect(Buffer.from(a.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(a.tag, 'base64')).toHaveLength(16);
    const data = { card: a, plain: 'visible', n: 3 };
    expect(decryptFields(data, 'subscriber-secret', 'standard', ['card'])).toEqual({ card: '4111 1111 1111 1111', plain: 'visible', n: 3 });
    // Without the list, every {iv, tag, ciphertext} value is decrypted.
    expect(decryptFields(data, 'subscriber-secret', 'standard')).toEqual({ card: '4111 1111 1111 1111', plain: 'visible', n: 3 });
  });

  test('IVs stay distinct across refills of the random pool they are cut from', () => {
    const key = deriveFieldKey('subscriber-secret', 'standard');
    const ivs = Array.from({ length: 1_000 }, () => encryptWithKey('x', key).iv);
    expect(new Set(ivs).size).toBe(1_000);
    expect(ivs.every((iv) => Buffer.from(iv, 'base64').length === 12)).toBe(true);
  });

  test('unicode survives the round trip', () => {
    const field = encryptField('zoë 🔑', 'k-secret', 'api-portal');
    expect(decryptFields({ f: field }, 'k-secret', 'api-portal')).toEqual({ f: 'zoë 🔑' });
  });

  test('a wrong secret, a wrong profile or a tampered ciphertext fail with DECRYPTION_FAILED', () => {
    const field = encryptField('hello', 'right-secret', 'api-portal');
    const attempts = [
      () => decryptFields({ f: field }, 'wrong-secret', 'api-portal'),
      () => decryptFields({ f: field }, 'right-secret', 'standard'),
      () => decryptFields({ f: { ...field, ciphertext: Buffer.from('jello').toString('base64') } }, 'right-secret', 'api-portal'),
      () => decryptFields({ f: { ...field, tag: 'short' } }, 'right-secret', 'api-portal'),
      () => decryptFields({ f: 'plaintext?' }, 'right-secret', 'api-portal', ['f']),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
        expect.unreachable('decryption should have failed');
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as WebhookVerificationError).code).toBe('DECRYPTION_FAILED');
        expect((error as Error).message).not.toContain('right-secret');
      }
    }
  });

  test('a listed field that is absent (secret-less subscriber) is left out, not an error', () => {
    expect(decryptFields({ a: 1 }, 'some-secret', 'standard', ['card'])).toEqual({ a: 1 });
  });
});
