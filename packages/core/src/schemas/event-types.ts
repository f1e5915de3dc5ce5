// The event-type catalog as the API shows it: which types a host publishes, what each means, the
// shape of its `data`, which fields are encrypted, and a sample payload.
import { Type, type Static } from 'typebox';
import { EVENT_TYPE_PATTERN, PUBLISH_LIMITS } from './events.js';

const EVENT_TYPE_EXAMPLE = {
  type: 'apikey.generated',
  description: 'An API key was generated; `token` is the key itself and reaches subscribers encrypted.',
  sensitive: ['token'],
  dataSchema: {
    type: 'object',
    required: ['name', 'token'],
    properties: { name: { type: 'string' }, token: { type: 'string' } },
  },
  example: { name: 'ci', token: 'hrd_example_0123456789' },
};

export const WebhookEventType = Type.Object(
  {
    type: Type.String({ pattern: EVENT_TYPE_PATTERN, description: '`family.action`.' }),
    description: Type.Optional(Type.String({ description: 'What happened when an event of this type is published.' })),
    sensitive: Type.Array(Type.String(), {
      description: 'Top-level fields of `data` that are encrypted for each subscriber and never stored in plaintext.',
    }),
    dataSchema: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'JSON Schema (draft 2020-12) that `data` must satisfy; absent: any JSON object.' }),
    ),
    example: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'A sample `data`, valid against `dataSchema`.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'WebhookEventType',
    description: 'One type of the event catalog the host is configured with (its `eventTypes`).',
    examples: [EVENT_TYPE_EXAMPLE],
  },
);
/** The open objects are spelled out: TypeBox would infer `{}` for them. */
export type WebhookEventType = Omit<Static<typeof WebhookEventType>, 'dataSchema' | 'example'> & {
  dataSchema?: Record<string, unknown>;
  example?: Record<string, unknown>;
};

export const WebhookEventTypeList = Type.Object(
  {
    list: Type.Array(WebhookEventType),
    count: Type.Integer({ minimum: 0, description: 'Number of types in the catalog.' }),
  },
  {
    additionalProperties: false,
    title: 'WebhookEventTypeList',
    description: 'Every type of the event catalog, sorted by type. The catalog comes from configuration, so it is never paged.',
    examples: [{ list: [EVENT_TYPE_EXAMPLE], count: 1 }],
  },
);
export type WebhookEventTypeList = { list: WebhookEventType[]; count: number };

export const WebhookEventTypeParams = Type.Object(
  {
    type: Type.String({ pattern: EVENT_TYPE_PATTERN, maxLength: PUBLISH_LIMITS.eventTypeMax, description: 'The event type, `family.action`.' }),
  },
  { additionalProperties: false },
);
export type WebhookEventTypeParams = Static<typeof WebhookEventTypeParams>;

export const AsyncApiDocumentSchema = Type.Object(
  {
    asyncapi: Type.Literal('3.0.0', { description: 'The AsyncAPI version of the document.' }),
    info: Type.Object({ title: Type.String(), version: Type.String(), description: Type.Optional(Type.String()) }, { additionalProperties: true }),
  },
  {
    additionalProperties: true,
    title: 'AsyncApiDocument',
    description:
      'The event catalog as an AsyncAPI 3.0 document (docs/asyncapi.md): per event type a channel, a message and a `send` operation; each message\'s ' +
      'payload is the envelope of the host\'s signing profile around the type\'s `data` (sensitive fields as `EncryptedField`), its headers the ' +
      'signature headers. Validate it with any AsyncAPI 3.0 parser.',
  },
);
