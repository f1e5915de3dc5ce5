// The AsyncAPI document built from a catalog: deterministic, faithful to the catalog without
// changing it, and explicit about what a subscriber receives for each signing profile.
import { decryptFields } from '@herald/receiver';
import { describe, expect, test } from 'vitest';
import { buildAsyncApiDocument } from '../../src/asyncapi/document.js';
import { OPERATIONAL_EVENT_TYPES } from '../../src/model/operational.js';
import type { EventTypeDefinition } from '../../src/types.js';

/** The parts of the document the assertions read; the document itself is plain JSON. */
interface SchemaJson {
  [keyword: string]: unknown;
  properties: Record<string, SchemaJson>;
  required?: string[];
}
interface MessageJson {
  payload: SchemaJson;
  examples: Array<{ payload: { encryptedFields?: string[]; encrypted_fields?: string[]; data: Record<string, unknown> } }>;
  'x-herald-sensitive-fields': string[];
}
interface TestDocument {
  channels: Record<string, { description: string }>;
  components: { schemas: Record<string, SchemaJson>; messages: Record<string, MessageJson> };
}

/** An entry the test expects, or a failure naming it. */
function entry<T>(record: Record<string, T>, name: string): T {
  const value = record[name];
  if (value === undefined) throw new Error(`missing ${name}`);
  return value;
}

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
const build = (eventTypes: readonly EventTypeDefinition[], profile: 'standard' | 'api-portal' = 'standard', traceparentHeader = false): TestDocument =>
  buildAsyncApiDocument({ eventTypes, signingProfile: profile, traceparentHeader, info }) as unknown as TestDocument;
const schema = (document: TestDocument, name: string) => entry(document.components.schemas, name);
const message = (document: TestDocument, type: string) => entry(document.components.messages, type);

describe('buildAsyncApiDocument', () => {
  test('the same catalog in any order gives the same bytes, channels sorted by type', () => {
    const first = JSON.stringify(build([userCreated, orderPaid, ...OPERATIONAL_EVENT_TYPES]));
    const second = JSON.stringify(build([...OPERATIONAL_EVENT_TYPES].reverse().concat([orderPaid, userCreated])));
    expect(first).toBe(second);
    expect(Object.keys((JSON.parse(first) as TestDocument).channels)).toStrictEqual([...OPERATIONAL_EVENT_TYPES.map((definition) => definition.type), 'order.paid', 'user.created'].sort());
  });

  test('leaves the catalog\'s definitions untouched', () => {
    const before = structuredClone(userCreated);
    build([userCreated]);
    expect(userCreated).toStrictEqual(before);
  });

  test('the data schema moves under components: its references follow it, $schema and $id go, sensitive fields become EncryptedField and optional', () => {
    const data = schema(build([userCreated]), 'user.created.data');
    expect(data.$schema).toBeUndefined();
    expect(data.$id).toBeUndefined();
    expect(data.properties.id).toStrictEqual({ $ref: '#/components/schemas/user.created.data/$defs/id' });
    expect(data.required).toStrictEqual(['id']);
    expect(data.properties.email).toMatchObject({ allOf: [{ $ref: '#/components/schemas/EncryptedField' }], 'x-herald-sensitive': true, 'x-herald-plaintext': { type: 'string', format: 'email' } });
    // A sensitive field the schema does not declare is added, without a plaintext schema.
    const profile = entry(data.properties, 'profile');
    expect(profile['x-herald-plaintext']).toBeUndefined();
    expect(profile['x-herald-sensitive']).toBe(true);
  });

  test('a type without a data schema takes any object, its sensitive fields still named', () => {
    const data = schema(build([orderPaid]), 'order.paid.data');
    expect(data.type).toBe('object');
    expect(Object.keys(data.properties)).toStrictEqual(['card']);
    expect(message(build([orderPaid]), 'order.paid')['x-herald-sensitive-fields']).toStrictEqual(['card']);
  });

  test.each([
    ['standard', 'herald-webhook-field-encryption-v1', ['type', 'timestamp', 'id', 'orgId', 'aggregateType', 'aggregateId', 'sequence', 'encryptedFields', 'data']],
    ['api-portal', 'api-portal-webhook-field-encryption-v1', ['event_id', 'event_type', 'occurred_at', 'org', 'sequence', 'encrypted_fields', 'data']],
  ] as const)('%s: the envelope\'s fields, the HKDF info, and an example whose sensitive fields decrypt with the example secret', (profile, hkdfInfo, fields) => {
    const document = build([userCreated], profile);
    const userMessage = message(document, 'user.created');
    expect(Object.keys(userMessage.payload.properties)).toStrictEqual(fields);
    expect(schema(document, 'EncryptedField')['x-herald-field-encryption']).toMatchObject({ info: hkdfInfo });
    const example = userMessage.examples[0]!.payload;
    const encrypted = example.encryptedFields ?? example.encrypted_fields;
    expect(encrypted).toStrictEqual(['email', 'profile']);
    expect(decryptFields(example.data, 'example-secret', profile, encrypted)).toStrictEqual({ id: 'u-1', email: 'ada@example.com', profile: '{"age":36}' });
  });

  test('the headers are the profile\'s; traceparent only when the host sends it', () => {
    const standard = schema(build([orderPaid], 'standard'), 'DeliveryHeaders');
    expect(Object.keys(standard.properties)).toStrictEqual(['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'herald-delivery-id', 'herald-attempt']);
    const portal = schema(build([orderPaid], 'api-portal', true), 'DeliveryHeaders');
    expect(Object.keys(portal.properties)).toStrictEqual(['content-type', 'user-agent', 'x-api-portal-event', 'x-api-portal-event-id', 'x-api-portal-delivery-id', 'x-api-portal-signature', 'traceparent']);
  });

  test('Herald\'s own types say that only explicit subscriptions receive them', () => {
    const document = build([...OPERATIONAL_EVENT_TYPES, orderPaid]);
    expect(entry(document.channels, 'herald.recovery_completed').description).toContain('`herald.*`');
    expect(entry(document.channels, 'order.paid').description).toContain('`order.*`, `*.paid` or `*`');
  });

  test('an empty catalog is still a document', () => {
    const document = build([]);
    expect(document).toMatchObject({ asyncapi: '3.0.0', info, channels: {}, operations: {} });
  });
});
