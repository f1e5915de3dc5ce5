// Splitting an event's data into what may be stored and what must be encrypted, and building each
// subscriber's body. Pure (randomness of IVs aside).
import { buildApiPortalBody, buildStandardBody, deriveFieldKey, encryptWithKey } from '@herald/receiver';
import type { SigningProfile } from '../types.js';

export interface SplitData {
  /** `data` without the sensitive fields: the only form of the payload that is stored. */
  publicData: Record<string, unknown>;
  /** The sensitive fields present in `data`, in `data`'s key order. */
  sensitiveValues: Record<string, unknown>;
}

export function splitSensitive(data: Record<string, unknown>, sensitiveNames: readonly string[]): SplitData {
  const publicData: Record<string, unknown> = {};
  const sensitiveValues: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    if (sensitiveNames.includes(name)) sensitiveValues[name] = value;
    else publicData[name] = value;
  }
  return { publicData, sensitiveValues };
}

/** The plaintext of a field is its UTF-8 string: strings as they are, anything else as compact JSON. */
export function fieldPlaintext(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface EventForBody {
  eventId: string;
  eventType: string;
  orgId: string;
  aggregateType: string;
  aggregateId: string;
  occurredAt: Date;
}

export interface SubscriberBody {
  body: string;
  encryptedFields: string[];
}

/**
 * The exact body for one subscriber. With a secret, sensitive fields are encrypted under a key
 * derived from that subscriber's secret (fresh IV per field and subscriber) and keep their place in
 * `data`; without a secret they are left out (DECISIONS §6).
 */
export function buildSubscriberBody(
  event: EventForBody,
  split: SplitData,
  originalOrder: readonly string[],
  secret: string | undefined,
  profile: SigningProfile,
): SubscriberBody {
  const data: Record<string, unknown> = {};
  const encryptedFields: string[] = [];
  const key = secret === undefined ? undefined : deriveFieldKey(secret, profile);
  for (const name of originalOrder) {
    if (name in split.publicData) {
      data[name] = split.publicData[name];
    } else if (name in split.sensitiveValues && key !== undefined) {
      data[name] = encryptWithKey(fieldPlaintext(split.sensitiveValues[name]), key);
      encryptedFields.push(name);
    }
  }
  const body =
    profile === 'api-portal'
      ? buildApiPortalBody({
          eventId: event.eventId,
          eventType: event.eventType,
          occurredAt: event.occurredAt,
          orgRefId: event.orgId,
          encryptedFields,
          data,
        })
      : buildStandardBody({
          eventId: event.eventId,
          eventType: event.eventType,
          occurredAt: event.occurredAt,
          orgId: event.orgId,
          aggregateType: event.aggregateType,
          aggregateId: event.aggregateId,
          encryptedFields,
          data,
        });
  return { body, encryptedFields };
}
