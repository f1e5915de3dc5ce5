// Verifies a received delivery: the profile's signature header against the raw body, with a
// timestamp tolerance, constant-time comparison, and several signatures/secrets accepted.
import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { API_PORTAL_HEADERS, DEFAULT_TOLERANCE_SECONDS, STANDARD_HEADERS, type SigningProfile } from './profiles.js';
import { apiPortalSignatureBytes, standardSignatureBytes, standardSigningKey, type Body } from './sign.js';

/** Node's IncomingHttpHeaders, a plain record, or a fetch `Headers`. */
export type HeaderSource =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyOptions {
  /** Default: detected from the headers present. */
  profile?: SigningProfile;
  /** Largest accepted distance between the delivery's timestamp and now. Default 300 s. */
  toleranceSeconds?: number;
  /** Clock for tests, Unix seconds. */
  nowSeconds?: () => number;
}

export interface VerifiedDelivery {
  profile: SigningProfile;
  /** Event id (stable across retries: use it to de-duplicate). */
  eventId: string;
  /** Unix seconds the sender signed at. */
  timestamp: number;
  /** The parsed JSON body. */
  payload: unknown;
}

/**
 * Throws WebhookVerificationError unless one of the signatures matches one of the secrets
 * (several secrets let a receiver overlap a rotation too).
 */
export function verify(headers: HeaderSource, rawBody: Body, secret: string | readonly string[], options: VerifyOptions = {}): VerifiedDelivery {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) {
    throw new WebhookVerificationError('INVALID_SECRET', 'a non-empty secret is required to verify');
  }
  const read = headerReader(headers);
  const profile = options.profile ?? detectProfile(read);
  const now = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;

  const { eventId, timestamp } =
    profile === 'standard' ? verifyStandard(read, rawBody, secrets) : verifyApiPortal(read, rawBody, secrets);
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_RANGE', `the delivery timestamp is more than ${tolerance} s from now`);
  }
  return { profile, eventId, timestamp, payload: parseBody(rawBody) };
}

function verifyStandard(read: HeaderReader, body: Body, secrets: string[]): { eventId: string; timestamp: number } {
  const eventId = required(read, STANDARD_HEADERS.id);
  const timestamp = parseTimestamp(required(read, STANDARD_HEADERS.timestamp), STANDARD_HEADERS.timestamp);
  const offered = required(read, STANDARD_HEADERS.signature)
    .split(' ')
    .map((entry) => entry.split(','))
    .filter((parts): parts is [string, string] => parts.length === 2 && parts[0] === 'v1')
    .map(([, signature]) => Buffer.from(signature, 'base64'));
  for (const secret of secrets) {
    const expected = standardSignatureBytes(standardSigningKey(secret), eventId, timestamp, body);
    if (offered.some((candidate) => constantTimeEqual(candidate, expected))) return { eventId, timestamp };
  }
  throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'no signature matches');
}

function verifyApiPortal(read: HeaderReader, body: Body, secrets: string[]): { eventId: string; timestamp: number } {
  const eventId = read(API_PORTAL_HEADERS.eventId) ?? '';
  const header = required(read, API_PORTAL_HEADERS.signature);
  let timestampText: string | undefined;
  const offered: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't') timestampText = value;
    else if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) offered.push(Buffer.from(value, 'hex'));
  }
  if (timestampText === undefined) {
    throw new WebhookVerificationError('INVALID_HEADER', `${API_PORTAL_HEADERS.signature} has no t= part`);
  }
  const timestamp = parseTimestamp(timestampText, API_PORTAL_HEADERS.signature);
  for (const secret of secrets) {
    const expected = apiPortalSignatureBytes(secret, timestamp, body);
    if (offered.some((candidate) => constantTimeEqual(candidate, expected))) return { eventId, timestamp };
  }
  throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'no signature matches');
}

type HeaderReader = (name: string) => string | undefined;

function headerReader(headers: HeaderSource): HeaderReader {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as { get(name: string): string | null };
    return (name) => fetchHeaders.get(name) ?? undefined;
  }
  const lowered = new Map<string, string>();
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value === undefined) continue;
    lowered.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return (name) => lowered.get(name);
}

function detectProfile(read: HeaderReader): SigningProfile {
  if (read(STANDARD_HEADERS.signature) !== undefined || read(STANDARD_HEADERS.id) !== undefined) return 'standard';
  if (read(API_PORTAL_HEADERS.signature) !== undefined || read(API_PORTAL_HEADERS.eventId) !== undefined) return 'api-portal';
  throw new WebhookVerificationError('MISSING_HEADER', `neither ${STANDARD_HEADERS.signature} nor ${API_PORTAL_HEADERS.signature} is present`);
}

function required(read: HeaderReader, name: string): string {
  const value = read(name);
  if (value === undefined || value === '') throw new WebhookVerificationError('MISSING_HEADER', `missing header ${name}`);
  return value;
}

function parseTimestamp(text: string, headerName: string): number {
  if (!/^\d{1,12}$/.test(text)) throw new WebhookVerificationError('INVALID_HEADER', `${headerName} has an invalid timestamp`);
  return Number(text);
}

function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseBody(body: Body): unknown {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'the body is not JSON');
  }
}
