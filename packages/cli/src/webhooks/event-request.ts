// `webhooks events send`: checking --data, --sensitive and --idempotency-key, and the
// PublishEventInput body (POST /api/v0.9/webhook-events). Pure.
import { headerValueProblem } from '../api/request.js';
import { usageError } from '../errors.js';

/** The server's bound on Idempotency-Key (publish route headers). */
export const idempotencyKeyMaxLength = 255;

function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * `--data` must be a JSON object (the event payload). Returns it parsed, for the checks that need
 * its fields; the body carries the text itself, so numbers beyond 2^53 keep every digit.
 */
export function parseEventData(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usageError('DATA_NOT_JSON', `--data is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError('DATA_NOT_OBJECT', `--data must be a JSON object, got ${describeJsonValue(parsed)}`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The server encrypts the named top-level fields and does not mind a name that is absent, so a typo
 * would send the value in clear: here a name must match a field of --data.
 */
export function checkSensitiveFields(data: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  for (const name of names) {
    if (name === '') throw usageError('INVALID_FLAG_VALUE', '--sensitive needs a field name');
    if (!Object.hasOwn(data, name)) throw usageError('UNKNOWN_SENSITIVE_FIELD', `--sensitive ${name}: --data has no top-level field "${name}"`);
  }
}

export function checkIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > idempotencyKeyMaxLength) {
    throw usageError('INVALID_FLAG_VALUE', `--idempotency-key must be 1 to ${idempotencyKeyMaxLength} characters, got ${key.length}`);
  }
  const problem = headerValueProblem(key);
  if (problem !== undefined || key.trim() !== key) {
    throw usageError('INVALID_FLAG_VALUE', `--idempotency-key ${JSON.stringify(key)} cannot be sent as a header: ${problem ?? 'leading or trailing spaces would be lost'}`);
  }
}

export interface PublishEvent {
  readonly eventType: string;
  readonly aggregateId: string;
  /** JSON text of an object, already checked with parseEventData. */
  readonly dataText: string;
  readonly sensitive: readonly string[];
}

/** The request body as JSON text, `data` spliced in exactly as the user wrote it. */
export function publishEventBody(event: PublishEvent): string {
  const members = [`"eventType":${JSON.stringify(event.eventType)}`, `"aggregateId":${JSON.stringify(event.aggregateId)}`, `"data":${event.dataText.trim()}`];
  if (event.sensitive.length > 0) members.push(`"sensitive":${JSON.stringify(event.sensitive)}`);
  return `{${members.join(',')}}`;
}
