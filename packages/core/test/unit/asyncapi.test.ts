// The AsyncAPI document built from a catalog: deterministic, faithful to the catalog without
// changing it, and explicit about what a subscriber receives for each signing profile.
import { decryptFields } from '@herald/receiver';
import { describe, expect, test } from 'vitest';
import { buildAsyncApiDocument } from '../../src/asyncapi/document.js';
import { OPERATIONAL_EVENT_TYPES } from '../../src/events/operational.js';
import type { EventTypeDefinition } from '../../src/types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading nested JSON in assertions

const userCreated: EventTypeDefinition = {
  type: 'user.created',
  description: 'A user signed up.',
  sensitive: ['email', 'profile'],
  dataSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.invalid/user-created',
    type: 'object',
    required: ['id', 'email'],
    properties: { id: { $ref: '#/$defs/id' }, email: { type: 'string', format: 'email' } },
    $defs: { id: { type: 'string' } },
  },
  example: { id: 'u-1', email: 'ada@example.com', profile: { age: 36 } },
};
const orderPaid: EventTypeDefinition = { type: 'order.paid', sensitive: ['card'] };
const info = { title: 'Test', version: '1' };
const build = (eventTypes: readonly EventTypeDefinition[], profile: 'standard' | 'api-portal' = 'standard', traceparentHeader = false): Json =>
  buildAsyncApiDocument({ eventTypes, signingProfile: profile, traceparentHeader, info });

describe('buildAsyncApiDocument', () => {
  test('the same catalog in any order gives the same bytes, channels sorted by type', () => {
    const first = JSON.stringify(build([userCreated, orderPaid, ...OPERATIONAL_EVENT_TYPES]));
    const second = JSON.stringify(build([...OPERATIONAL_EVENT_TYPES].reverse().concat([orderPaid, userCreated])));
    expect(first).toBe(second);
    expect(Object.keys(JSON.parse(first).channels as Json)).toStrictEqual([...OPERATIONAL_EVENT_TYPES.map((definition) => definition.type), 'order.paid', 'user.created'].sort());
  });

  test('leaves the catalog\'s definitions untouched', () => {
    const before = structuredClone(userCreated);
    build([userCreated]);
    expect(userCreated).toStrictEqual(before);
  });

  test('the data schema moves under components: its references follow it, $schema and $id go, sensitive fields become EncryptedField and optional', () => {
    const data = build([userCreated]).components.schemas['user.created.data'];
    expect(data.$schema).toBeUndefined();
    expect(data.$id).toBeUndefined();
    expect(data.properties.id).toStrictEqual({ $ref: '#/components/schemas/user.created.data/$defs/id' });
    expect(data.required).toStrictEqual(['id']);
    expect(data.properties.email).toMatchObject({ allOf: [{ $ref: '#/components/schemas/EncryptedField' }], 'x-herald-sensitive': true, 'x-herald-plaintext': { type: 'string', format: 'email' } });
    // A sensitive field the schema does not declare is added, without a plaintext schema.
    expect(data.properties.profile['x-herald-plaintext']).toBeUndefined();
    expect(data.properties.profile['x-herald-sensitive']).toBe(true);
  });

  test('a type without a data schema takes any object, its sensitive fields still named', () => {
    const data = build([orderPaid]).components.schemas['order.paid.data'];
    expect(data.type).toBe('object');
    expect(Object.keys(data.properties as Json)).toStrictEqual(['card']);
    expect(build([orderPaid]).components.messages['order.paid']['x-herald-sensitive-fields']).toStrictEqual(['card']);
  });

  test.each([
    ['standard', 'herald-webhook-field-encryption-v1', ['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'sequence', 'encryptedFields', 'data']],
    ['api-portal', 'api-portal-webhook-field-encryption-v1', ['event_id', 'event_type', 'occurred_at', 'org', 'sequence', 'encrypted_fields', 'data']],
  ] as const)('%s: the envelope\'s fields, the HKDF info, and an example whose sensitive fields decrypt with the example secret', (profile, hkdfInfo, fields) => {
    const document = build([userCreated], profile);
    const message = document.components.messages['user.created'];
    expect(Object.keys(message.payload.properties as Json)).toStrictEqual(fields);
    expect(document.components.schemas.EncryptedField['x-herald-field-encryption'].info).toBe(hkdfInfo);
    const example = message.examples[0].payload;
    const encrypted: string[] = example.encryptedFields ?? example.encrypted_fields;
    expect(encrypted).toStrictEqual(['email', 'profile']);
    expect(decryptFields(example.data as Json, 'example-secret', profile, encrypted)).toStrictEqual({ id: 'u-1', email: 'ada@example.com', profile: '{"age":36}' });
  });

  test('the headers are the profile\'s; traceparent only when the host sends it', () => {
    const standard = build([orderPaid], 'standard').components.schemas.DeliveryHeaders;
    expect(Object.keys(standard.properties as Json)).toStrictEqual(['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'herald-delivery-id', 'herald-attempt']);
    const portal = build([orderPaid], 'api-portal', true).components.schemas.DeliveryHeaders;
    expect(Object.keys(portal.properties as Json)).toStrictEqual(['content-type', 'user-agent', 'x-api-portal-event', 'x-api-portal-event-id', 'x-api-portal-delivery-id', 'x-api-portal-signature', 'traceparent']);
  });

  test('Herald\'s own types say that only explicit subscriptions receive them', () => {
    const document = build([...OPERATIONAL_EVENT_TYPES, orderPaid]);
    expect(document.channels['herald.recovery_completed'].description).toContain('`herald.*`');
    expect(document.channels['order.paid'].description).toContain('`order.*`, `*.paid` or `*`');
  });

  test('an empty catalog is still a document', () => {
    const document = build([]);
    expect(document).toMatchObject({ asyncapi: '3.0.0', info, channels: {}, operations: {} });
  });
});
