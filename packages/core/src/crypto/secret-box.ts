// Secrets at rest (DECISIONS §6): AES-256-GCM under a master key, stored with the key id so the
// master key can be rotated: seal with the current key, open with any known key.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { ConfigError, HeraldError } from '../shared/errors.js';
import type { SealedSecret } from '../storage/documents.js';
import type { MasterKeys } from '../shared/master-keys.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const ALGORITHM = 'aes-256-gcm';

export interface SecretBox {
  /** True when a current master key is configured (secrets can be stored). */
  readonly canSeal: boolean;
  /** Ids of every configured master key. */
  readonly keyIds: readonly string[];
  seal(plaintext: string): SealedSecret;
  open(sealed: SealedSecret): string;
}

/** Node checks a KeyObject once, a raw key on every cipher it makes (about 4× slower per call). */
function decodeKey(keyId: string, key: Uint8Array | string): KeyObject {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  if (bytes.length !== KEY_BYTES) {
    // The key's value is never part of the message.
    throw new ConfigError(`master key "${keyId}" must be ${KEY_BYTES} bytes (raw or base64), got ${bytes.length}`);
  }
  return createSecretKey(bytes);
}

export function createSecretBox(masterKeys: MasterKeys | undefined): SecretBox {
  const keys = new Map<string, KeyObject>();
  for (const [keyId, key] of Object.entries(masterKeys?.keys ?? {})) keys.set(keyId, decodeKey(keyId, key));
  const currentId = masterKeys?.current;
  if (currentId !== undefined && !keys.has(currentId)) {
    throw new ConfigError(`masterKeys.current is "${currentId}" but no key with that id is configured`);
  }
  const currentKey = currentId === undefined ? undefined : keys.get(currentId);

  return {
    canSeal: currentKey !== undefined,
    keyIds: [...keys.keys()],
    seal(plaintext) {
      if (currentKey === undefined || currentId === undefined) {
        throw new ConfigError(
          'no master key is configured (masterKeys option): a secret cannot be stored encrypted, and it is never stored in plaintext',
        );
      }
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, currentKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        keyId: currentId,
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        ciphertext: ciphertext.toString('base64'),
      };
    },
    open(sealed) {
      const key = keys.get(sealed.keyId);
      if (key === undefined) {
        throw new ConfigError(`a stored secret is sealed with master key "${sealed.keyId}", which is not configured`);
      }
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new HeraldError('SECRET_UNREADABLE', `a stored secret failed authentication under master key "${sealed.keyId}"`, {
          cause: error,
        });
      }
    },
  };
}
