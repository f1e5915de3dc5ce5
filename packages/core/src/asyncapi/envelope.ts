// The body envelope of each profile (docs/ARCHITECTURE.md "Delivery protocol") as the schema of one
// event type's message payload, and a sample body built the way the sender builds it.
import { buildApiPortalBody, buildStandardBody, encryptField } from '@herald/receiver';
import { fieldPlaintext } from '../model/payload.js';
import type { EventTypeDefinition } from '../shared/event-types.js';
import type { SigningProfile } from '../shared/signing.js';
import { dataSchemaName } from './delivered-data.js';
import { pointerToken, type JsonSchema } from './json-schema.js';

const SEQUENCE: JsonSchema = {
  type: 'integer',
  minimum: 1,
  description: 'Only for a subscriber with per-key ordering: the delivery\'s place among its aggregate\'s deliveries, 1, 2, 3, …',
};
const ENCRYPTED_FIELDS: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  uniqueItems: true,
  description: 'Names of the top-level fields of `data` encrypted in this delivery (EncryptedField values); empty when none.',
};

export function envelopeSchema(type: string, profile: SigningProfile): JsonSchema {
  const data = { $ref: `#/components/schemas/${pointerToken(dataSchemaName(type))}` };
  if (profile === 'api-portal') {
    return {
      type: 'object',
      additionalProperties: false,
      required: ['event_id', 'event_type', 'occurred_at', 'org', 'encrypted_fields', 'data'],
      properties: {
        event_id: { type: 'string', description: 'The event id, the same on every attempt.' },
        event_type: { type: 'string', const: type },
        occurred_at: { type: 'string', format: 'date-time', description: 'When the event occurred, ISO-8601 UTC with milliseconds.' },
        org: {
          type: 'object',
          additionalProperties: false,
          required: ['ref_id'],
          properties: { ref_id: { type: 'string', description: 'The organization that published the event.' } },
        },
        sequence: SEQUENCE,
        encrypted_fields: ENCRYPTED_FIELDS,
        data,
      },
    };
  }
  return {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'encryptedFields', 'data'],
    properties: {
      type: { type: 'string', const: type },
      timestamp: { type: 'string', format: 'date-time', description: 'When the event occurred (its occurredAt), ISO-8601 UTC with milliseconds.' },
      id: { type: 'string', description: 'The event id, the same on every attempt (and in webhook-id).' },
      orgId: { type: 'string', description: 'The organization that published the event.' },
      aggregateType: { type: ['string', 'null'], description: 'What kind of entity the event is about (by default its type\'s family).' },
      aggregateId: { type: 'string', description: 'Which entity the event is about.' },
      sequence: SEQUENCE,
      encryptedFields: ENCRYPTED_FIELDS,
      data,
    },
  };
}

/** Not a secret of any subscriber: the example's sensitive fields are encrypted with it so readers can check their decryption. */
export const EXAMPLE_SECRET = 'example-secret';
const EXAMPLE_IV = new Uint8Array(12);

/** The body a subscriber with the secret EXAMPLE_SECRET would receive for the type's example. */
export function exampleBody(definition: EventTypeDefinition & { example: Record<string, unknown> }, profile: SigningProfile): unknown {
  const sensitive = definition.sensitive ?? [];
  const data: Record<string, unknown> = {};
  const encryptedFields: string[] = [];
  for (const [name, value] of Object.entries(definition.example)) {
    if (!sensitive.includes(name)) {
      data[name] = value;
      continue;
    }
    data[name] = encryptField(fieldPlaintext(value), EXAMPLE_SECRET, profile, EXAMPLE_IV);
    encryptedFields.push(name);
  }
  const common = {
    eventId: '3b241101-e2bb-4255-8caf-4136c566a962',
    eventType: definition.type,
    occurredAt: '2025-01-31T12:00:00.000Z',
    encryptedFields,
    data,
  };
  const body =
    profile === 'api-portal'
      ? buildApiPortalBody({ ...common, orgRefId: 'acme' })
      : buildStandardBody({ ...common, orgId: 'acme', aggregateType: definition.type.split('.')[0], aggregateId: 'example-1' });
  return JSON.parse(body) as unknown;
}
