// Body envelopes of both profiles (docs/ARCHITECTURE.md "Delivery protocol"). Built once at
// publish time and stored on the delivery row, so every attempt sends the very same bytes.
// Key order matters for the api-portal profile: object literals keep insertion order in JSON.

export type FieldValue = unknown;

export interface ApiPortalEnvelopeInput {
  eventId: string;
  eventType: string;
  occurredAt: Date | string;
  orgRefId: string;
  encryptedFields: readonly string[];
  data: Record<string, FieldValue>;
  /** The delivery's place among its key's deliveries (subscribers with per-key ordering). */
  sequence?: number | undefined;
}

export interface ApiPortalEnvelope {
  event_id: string;
  event_type: string;
  occurred_at: string;
  org: { ref_id: string };
  /** Present for subscribers with per-key ordering: 1, 2, 3, … per aggregate. */
  sequence?: number;
  encrypted_fields: string[];
  data: Record<string, FieldValue>;
}

export function buildApiPortalBody(input: ApiPortalEnvelopeInput): string {
  const envelope: ApiPortalEnvelope = {
    event_id: input.eventId,
    event_type: input.eventType,
    occurred_at: isoUtc(input.occurredAt),
    org: { ref_id: input.orgRefId },
    ...(input.sequence !== undefined ? { sequence: input.sequence } : {}),
    encrypted_fields: [...input.encryptedFields],
    data: input.data,
  };
  return JSON.stringify(envelope);
}

export interface StandardEnvelopeInput {
  eventId: string;
  eventType: string;
  occurredAt: Date | string;
  orgId: string;
  aggregateType?: string | null | undefined;
  aggregateId: string;
  /** The delivery's place among its key's deliveries (subscribers with per-key ordering). */
  sequence?: number | undefined;
  encryptedFields: readonly string[];
  data: Record<string, FieldValue>;
}

export interface StandardEnvelope {
  type: string;
  timestamp: string;
  id: string;
  orgId: string;
  aggregateType: string | null;
  aggregateId: string;
  /** Present for subscribers with per-key ordering: 1, 2, 3, … per aggregate; a gap means a number was skipped (docs/ordering.md). */
  sequence?: number;
  encryptedFields: string[];
  data: Record<string, FieldValue>;
}

export function buildStandardBody(input: StandardEnvelopeInput): string {
  const envelope: StandardEnvelope = {
    type: input.eventType,
    timestamp: isoUtc(input.occurredAt),
    id: input.eventId,
    orgId: input.orgId,
    aggregateType: input.aggregateType ?? null,
    aggregateId: input.aggregateId,
    ...(input.sequence !== undefined ? { sequence: input.sequence } : {}),
    encryptedFields: [...input.encryptedFields],
    data: input.data,
  };
  return JSON.stringify(envelope);
}

/** ISO-8601 UTC with milliseconds, e.g. 2023-11-14T22:13:20.000Z. */
function isoUtc(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new RangeError('occurredAt is not a valid date');
  return date.toISOString();
}
