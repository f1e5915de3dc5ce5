// Field encryption (DECISIONS §6): HKDF-SHA3-256 key per secret and profile, AES-256-GCM per
// field with a fresh 12-byte IV, 16-byte tag, no AAD, standard base64 with padding.
import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync, type KeyObject } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { FIELD_ENCRYPTION_INFO, type SigningProfile } from './profiles.js';

export interface EncryptedField {
  iv: string;
  tag: string;
  ciphertext: string;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

// IVs are cut from a pool of random bytes refilled 4 KiB at a time: one call to the CSPRNG per 341
// IVs rather than one per field, on a path that encrypts a field for every attempt. Each IV is
// handed out once; a refill allocates a new pool, so no IV's bytes are ever overwritten.
const IV_POOL_BYTES = 4096 - (4096 % IV_BYTES);
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

function freshIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_POOL_BYTES));
    ivOffset = 0;
  }
  ivOffset += IV_BYTES;
  return ivPool.subarray(ivOffset - IV_BYTES, ivOffset);
}

export function deriveFieldKey(secret: string, profile: SigningProfile): Buffer {
  if (secret.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'the secret is empty');
  const key = hkdfSync('sha3-256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), FIELD_ENCRYPTION_INFO[profile], KEY_BYTES);
  return Buffer.from(key);
}

/**
 * Encrypts one field's value (its UTF-8 string). `iv` is only for known-answer tests: reusing an
 * IV under one key breaks GCM, so production callers let it default to fresh random bytes.
 */
export function encryptField(value: string, secret: string, profile: SigningProfile, iv?: Uint8Array): EncryptedField {
  return encryptWithKey(value, deriveFieldKey(secret, profile), iv);
}

/**
 * Same as encryptField with a key already derived — as bytes, or as a KeyObject prepared once by a
 * sender that encrypts many fields under it.
 */
export function encryptWithKey(value: string, key: Uint8Array | KeyObject, iv: Uint8Array = freshIv()): EncryptedField {
  if (iv.length !== IV_BYTES) throw new RangeError(`the IV must be ${IV_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return {
    iv: Buffer.from(iv).toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

export function isEncryptedField(value: unknown): value is EncryptedField {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.iv === 'string' && typeof candidate.tag === 'string' && typeof candidate.ciphertext === 'string';
}

export function decryptField(field: EncryptedField, key: Uint8Array): string {
  const iv = Buffer.from(field.iv, 'base64');
  const tag = Buffer.from(field.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new WebhookVerificationError('DECRYPTION_FAILED', 'an encrypted field has a malformed iv or tag');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(field.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new WebhookVerificationError('DECRYPTION_FAILED', 'an encrypted field failed authentication (wrong secret or tampered)');
  }
}

/**
 * Returns a copy of `data` with the named fields (default: every top-level value shaped like
 * `{iv, tag, ciphertext}`) replaced by their plaintext strings.
 */
export function decryptFields<T extends Record<string, unknown>>(
  data: T,
  secret: string,
  profile: SigningProfile,
  encryptedFields?: readonly string[],
): Record<string, unknown> {
  const key = deriveFieldKey(secret, profile);
  const names = encryptedFields ?? Object.keys(data).filter((name) => isEncryptedField(data[name]));
  const result: Record<string, unknown> = { ...data };
  for (const name of names) {
    const value = data[name];
    if (value === undefined) continue; // the sender omits sensitive fields for secret-less subscribers
    if (!isEncryptedField(value)) {
      throw new WebhookVerificationError('DECRYPTION_FAILED', `field "${name}" is listed as encrypted but is not {iv, tag, ciphertext}`);
    }
    result[name] = decryptField(value, key);
  }
  return result;
}
