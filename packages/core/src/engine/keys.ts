// The keys of a subscriber secret, prepared once: opening the sealed secret (AES-GCM under the
// master key), the HMAC key and the HKDF-derived field key cost more than signing one delivery, and
// node re-validates a raw key on every call but a KeyObject only once.
//
// Cached by the sealed value itself: a rotation stores a new sealed value, so the old entry is never
// asked for again and ages out; nothing needs invalidating. Bounded (least recently used goes).
import { createSecretKey, type KeyObject } from 'node:crypto';
import { deriveFieldKey, standardSigningKey } from '@herald/receiver';
import type { SealedSecret } from '../storage/documents.js';
import type { SigningProfile } from '../shared/signing.js';

export interface SecretKeys {
  /** The HMAC key of the profile: Standard Webhooks' key bytes, or the secret's UTF-8 bytes. */
  signing: KeyObject;
  /** The AES-256-GCM key for sensitive fields (HKDF-SHA3-256 of the secret). */
  field: KeyObject;
}

export interface KeyCache {
  keysOf(sealed: SealedSecret): SecretKeys;
  readonly size: number;
}

export const DEFAULT_KEY_CACHE_SIZE = 10_000;

export function createKeyCache(
  profile: SigningProfile,
  open: (sealed: SealedSecret) => string,
  capacity = DEFAULT_KEY_CACHE_SIZE,
): KeyCache {
  const entries = new Map<string, SecretKeys>();
  return {
    keysOf(sealed) {
      const id = `${sealed.keyId}:${sealed.iv}:${sealed.ciphertext}`;
      const cached = entries.get(id);
      if (cached) {
        entries.delete(id);
        entries.set(id, cached);
        return cached;
      }
      const secret = open(sealed);
      const keys: SecretKeys = {
        signing: createSecretKey(profile === 'standard' ? standardSigningKey(secret) : Buffer.from(secret, 'utf8')),
        field: createSecretKey(deriveFieldKey(secret, profile)),
      };
      entries.set(id, keys);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
      return keys;
    },
    get size() {
      return entries.size;
    },
  };
}
