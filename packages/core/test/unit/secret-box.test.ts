import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { ConfigError, HeraldError } from '../../src/shared/errors.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32).toString('base64');

describe('secret box', () => {
  test('round-trips and never shows the plaintext in the sealed form', () => {
    const box = createSecretBox({ current: 'a', keys: { a: keyA } });
    const sealed = box.seal('my-webhook-secret');
    expect(sealed.keyId).toBe('a');
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    expect(JSON.stringify(sealed)).not.toContain('my-webhook-secret');
    expect(box.open(sealed)).toBe('my-webhook-secret');
    expect(box.seal('my-webhook-secret').iv).not.toBe(sealed.iv);
  });

  test('rotation: seals with the current key, opens with any known key', () => {
    const old = createSecretBox({ current: 'a', keys: { a: keyA } }).seal('old');
    const rotated = createSecretBox({ current: 'b', keys: { a: keyA, b: keyB } });
    expect(rotated.open(old)).toBe('old');
    expect(rotated.seal('new').keyId).toBe('b');
  });

  test('an unknown key id or a tampered ciphertext fails with a typed error', () => {
    const sealed = createSecretBox({ current: 'a', keys: { a: keyA } }).seal('x'.repeat(20));
    const other = createSecretBox({ current: 'b', keys: { b: keyB } });
    expect(() => other.open(sealed)).toThrow(ConfigError);
    const box = createSecretBox({ current: 'a', keys: { a: keyA } });
    const tampered = { ...sealed, ciphertext: Buffer.from('y'.repeat(20)).toString('base64') };
    expect(() => box.open(tampered)).toThrow(HeraldError);
  });

  test('without a master key nothing can be sealed, with a clear ConfigError', () => {
    const box = createSecretBox(undefined);
    expect(box.canSeal).toBe(false);
    expect(() => box.seal('secret-value')).toThrow(/no master key/);
    try {
      box.seal('secret-value');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as Error).message).not.toContain('secret-value');
    }
  });

  test('misconfigured keys are ConfigErrors that do not echo the key', () => {
    expect(() => createSecretBox({ current: 'a', keys: { a: Buffer.alloc(16) } })).toThrow(ConfigError);
    expect(() => createSecretBox({ current: 'missing', keys: { a: keyA } })).toThrow(/missing/);
    try {
      createSecretBox({ current: 'a', keys: { a: 'c2hvcnQ=' } });
    } catch (error) {
      expect((error as Error).message).not.toContain('c2hvcnQ=');
    }
  });
});
