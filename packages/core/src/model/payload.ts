// Splitting an event's data into what may be stored and what must be encrypted, and building each
// subscriber's body. Pure (randomness of IVs aside).
import type { KeyObject } from 'node:crypto';
import { buildApiPortalBody, buildStandardBody, encryptWithKey } from '@herald/receiver';
import type { SigningProfile } from '../shared/signing.js';

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

/** What an attempt needs of its event to build the body: the public data and the sensitive values. */
export interface EventPayload extends EventForBody {
  split: SplitData;
  /** Key order of the original `data`. */
  order: readonly string[];
}

/**
 * The exact body for one attempt. With a field key (from the secret that signs the attempt),
 * sensitive fields are encrypted (fresh IV per field and attempt) and keep their place in `data`;
 * without one they are left out (DECISIONS §6). `sequence`: the row's place in its key, for a
 * subscriber with per-key ordering (ordering/keys.ts).
 */
export function buildSubscriberBody(payload: EventPayload, key: KeyObject | undefined, profile: SigningProfile, sequence?: number): SubscriberBody {
  const { split, order: originalOrder } = payload;
  const event = payload;
  const data: Record<string, unknown> = {};
  const encryptedFields: string[] = [];
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
          sequence,
        })
      : buildStandardBody({
          eventId: event.eventId,
          eventType: event.eventType,
          occurredAt: event.occurredAt,
          orgId: event.orgId,
          aggregateType: event.aggregateType,
          aggregateId: event.aggregateId,
          sequence,
          encryptedFields,
          data,
        });
  return { body, encryptedFields };
}
