// HMAC-SHA256 signatures of both profiles (DECISIONS §6). Pure functions over node:crypto.
import { createHmac, type KeyObject } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

const STANDARD_SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type Body = string | Uint8Array;

/**
 * The Standard Webhooks HMAC key: the base64-decoded part of a `whsec_…` secret, otherwise the
 * secret's UTF-8 bytes (so plain passphrases work too).
 */
export function standardSigningKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    const key = Buffer.from(encoded, 'base64');
    if (encoded.length === 0 || !BASE64.test(encoded) || key.length === 0) {
      throw new WebhookVerificationError('INVALID_SECRET', 'a whsec_ secret must be followed by base64');
    }
    return key;
  }
  if (secret.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'the secret is empty');
  return Buffer.from(secret, 'utf8');
}

/**
 * A secret as given, or an HMAC key prepared once (`createSecretKey`) by a sender that signs many
 * deliveries with it: node re-validates a raw key on every call, a KeyObject only once.
 */
export type SigningSecret = string | KeyObject;

function hmac(key: Buffer | KeyObject, parts: Body[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** One `v1,<base64>` signature per secret, space-separated (several during a rotation overlap). */
export function signStandard(input: { id: string; timestamp: number; body: Body; secrets: readonly SigningSecret[] }): string {
  if (input.secrets.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'no secret to sign with');
  return input.secrets
    .map((secret) => {
      const key = typeof secret === 'string' ? standardSigningKey(secret) : secret;
      return `v1,${standardSignatureBytes(key, input.id, input.timestamp, input.body).toString('base64')}`;
    })
    .join(' ');
}

export function standardSignatureBytes(key: Buffer | KeyObject, id: string, timestamp: number, body: Body): Buffer {
  return hmac(key, [`${id}.${timestamp}.`, body]);
}

/** `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret UTF-8, "<t>.<body>")>`. */
export function signApiPortal(input: { secret: SigningSecret; timestamp: number; body: Body }): string {
  return `t=${input.timestamp},v1=${apiPortalSignatureBytes(input.secret, input.timestamp, input.body).toString('hex')}`;
}

export function apiPortalSignatureBytes(secret: SigningSecret, timestamp: number, body: Body): Buffer {
  if (typeof secret !== 'string') return hmac(secret, [`${timestamp}.`, body]);
  if (secret.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'the secret is empty');
  return hmac(Buffer.from(secret, 'utf8'), [`${timestamp}.`, body]);
}

/** Unix seconds, the unit of both profiles' timestamps. */
export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
