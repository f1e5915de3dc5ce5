// How a sensitive field travels (DECISIONS §6): its value in `data` replaced by {iv, tag, ciphertext},
// encrypted for each subscriber with a key derived from the secret that signs the attempt.
import { FIELD_ENCRYPTION_INFO } from '@herald/receiver';
import type { SigningProfile } from '../shared/signing.js';
import type { JsonSchema } from './json-schema.js';

export const ENCRYPTED_FIELD_SCHEMA = 'EncryptedField';

const base64 = (bytes: string): JsonSchema => ({ type: 'string', contentEncoding: 'base64', description: `${bytes}, standard base64 with padding.` });

export function encryptedFieldSchema(profile: SigningProfile): JsonSchema {
  const info = FIELD_ENCRYPTION_INFO[profile];
  return {
    type: 'object',
    required: ['iv', 'tag', 'ciphertext'],
    additionalProperties: false,
    properties: {
      iv: base64('The 12-byte AES-GCM nonce, fresh for each field and attempt'),
      tag: base64('The 16-byte AES-GCM authentication tag'),
      ciphertext: base64('The encrypted UTF-8 plaintext'),
    },
    description:
      'A sensitive field of `data`, encrypted for this subscriber. Key: HKDF-SHA3-256 of the subscriber\'s current secret (UTF-8), empty salt, ' +
      `info \`${info}\`, 32 bytes. Cipher: AES-256-GCM, no additional data. The plaintext is the field's value as UTF-8 text: a string as it is, ` +
      'any other value as its compact JSON. The names of the fields encrypted in a delivery are listed beside `data`. A subscriber without a ' +
      'secret receives the event without its sensitive fields.',
    'x-herald-field-encryption': { kdf: 'HKDF-SHA3-256', info, keyBytes: 32, cipher: 'AES-256-GCM', ivBytes: 12, tagBytes: 16, encoding: 'base64' },
  };
}
