// The request headers of a delivery, per signing profile, as the schema of an AsyncAPI message's
// `headers`. The names come from @herald/receiver, which builds the very headers Herald sends.
import { API_PORTAL_HEADERS, STANDARD_HEADERS } from '@herald/receiver';
import type { SigningProfile } from '../shared/signing.js';
import type { JsonSchema } from './json-schema.js';

const UNIX_SECONDS = '^[0-9]+$';

const common: Record<string, JsonSchema> = {
  'content-type': { type: 'string', const: 'application/json' },
  'user-agent': { type: 'string', description: 'Herald/<version>, or the user agent the host is configured with.' },
};

function standardHeaders(): JsonSchema {
  return {
    type: 'object',
    required: ['content-type', 'user-agent', STANDARD_HEADERS.id, STANDARD_HEADERS.timestamp, STANDARD_HEADERS.deliveryId, STANDARD_HEADERS.attempt],
    properties: {
      ...common,
      [STANDARD_HEADERS.id]: { type: 'string', description: 'The event id: the same on every attempt and for every subscriber, so receivers de-duplicate on it.' },
      [STANDARD_HEADERS.timestamp]: { type: 'string', pattern: UNIX_SECONDS, description: 'Unix seconds when this attempt was signed; receivers refuse one too far from their clock (300 s by default).' },
      [STANDARD_HEADERS.signature]: {
        type: 'string',
        pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
        description:
          'Standard Webhooks signature: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, where the key is the base64-decoded ' +
          'part of a `whsec_…` secret, otherwise the secret\'s UTF-8 bytes. During a secret rotation it carries one signature per valid secret, ' +
          'separated by spaces. Absent when the subscriber has no secret.',
      },
      [STANDARD_HEADERS.deliveryId]: { type: 'string', description: 'This subscriber\'s delivery of the event (the same on its retries).' },
      [STANDARD_HEADERS.attempt]: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'The attempt\'s number, from 1.' },
    },
  };
}

function apiPortalHeaders(): JsonSchema {
  return {
    type: 'object',
    required: ['content-type', 'user-agent', API_PORTAL_HEADERS.event, API_PORTAL_HEADERS.eventId, API_PORTAL_HEADERS.deliveryId],
    properties: {
      ...common,
      [API_PORTAL_HEADERS.event]: { type: 'string', description: 'The event type.' },
      [API_PORTAL_HEADERS.eventId]: { type: 'string', description: 'The event id: the same on every attempt, so receivers de-duplicate on it.' },
      [API_PORTAL_HEADERS.deliveryId]: { type: 'string', description: 'This subscriber\'s delivery of the event (the same on its retries).' },
      [API_PORTAL_HEADERS.signature]: {
        type: 'string',
        pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$',
        description:
          '`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret UTF-8, "<t>.<body>")>`; receivers refuse a `t` too far from their clock ' +
          '(300 s by default). Absent when the subscriber has no secret.',
      },
    },
  };
}

export function deliveryHeadersSchema(profile: SigningProfile, traceparentHeader: boolean): JsonSchema {
  const schema = profile === 'api-portal' ? apiPortalHeaders() : standardHeaders();
  schema.description = `The headers of every delivery attempt (signing profile \`${profile}\`). Header names are case-insensitive; Herald sends them lowercase.`;
  if (traceparentHeader) {
    (schema.properties as Record<string, JsonSchema>).traceparent = {
      type: 'string',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
      description: 'W3C trace context of the attempt\'s span (the host sends it: `delivery.traceparentHeader`).',
    };
  }
  return schema;
}

/** The header that carries the signature, for descriptions. */
export function signatureHeaderOf(profile: SigningProfile): string {
  return profile === 'api-portal' ? API_PORTAL_HEADERS.signature : STANDARD_HEADERS.signature;
}
