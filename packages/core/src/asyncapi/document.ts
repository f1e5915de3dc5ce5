// The event catalog as an AsyncAPI 3.0 document: one channel, message and `send` operation per event
// type, each message's payload the envelope of the host's signing profile around the type's data,
// its headers the profile's signature headers. Pure and deterministic: types in order, keys in a
// fixed order, the example's encryption under a fixed IV — the same catalog gives the same bytes.
import { isOperationalEventType } from '../rules/matching.js';
import type { EventTypeDefinition } from '../shared/event-types.js';
import type { SigningProfile } from '../shared/signing.js';
import { dataSchemaName, deliveredDataSchema } from './delivered-data.js';
import { ENCRYPTED_FIELD_SCHEMA, encryptedFieldSchema } from './encrypted-field.js';
import { envelopeSchema, EXAMPLE_SECRET, exampleBody } from './envelope.js';
import { deliveryHeadersSchema, signatureHeaderOf } from './headers.js';
import { pointerToken, type JsonSchema } from './json-schema.js';

export const ASYNCAPI_VERSION = '3.0.0' as const;
const HEADERS_SCHEMA = 'DeliveryHeaders';

export interface AsyncApiOptions {
  /** The catalog (herald.catalog.list(), Herald's own `herald.*` types included). */
  eventTypes: readonly EventTypeDefinition[];
  /** The profile the host signs and shapes its deliveries with. */
  signingProfile: SigningProfile;
  /** Whether deliveries carry the attempt's `traceparent` (delivery.traceparentHeader). */
  traceparentHeader?: boolean;
  info: { title: string; version: string };
}

export interface AsyncApiDocument {
  asyncapi: typeof ASYNCAPI_VERSION;
  info: { title: string; version: string; description: string };
  defaultContentType: string;
  channels: Record<string, unknown>;
  operations: Record<string, unknown>;
  components: { schemas: Record<string, unknown>; messages: Record<string, unknown> };
  'x-herald-signing-profile': SigningProfile;
}

const byType = (a: EventTypeDefinition, b: EventTypeDefinition) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

function describeDocument(profile: SigningProfile): string {
  return [
    'The event types this Herald instance delivers to webhook subscribers. Each event type is a channel whose address is the `targetUrl` of ' +
      'every subscriber whose `events` match it; Herald POSTs each event there as JSON (`send` operations: Herald sends, subscribers receive).',
    `Signing profile \`${profile}\`: the message headers name the signature header (\`${signatureHeaderOf(profile)}\`) and how to check it; ` +
      "each message payload is the profile's envelope around the type's `data`.",
    'Sensitive fields are encrypted per subscriber: their value in `data` is an `EncryptedField` and their names are listed in the envelope\'s ' +
      'encrypted fields. The catalog marks the fields it always encrypts (`x-herald-sensitive`); a publisher may name more for one event.',
    'A 2xx response means delivered; 410 ends that delivery; anything else, or no answer within the subscriber\'s timeout, is retried with ' +
      'backoff until its attempts run out. Delivery is at least once: de-duplicate on the event id.',
  ].join('\n\n');
}

function channelDescription(type: string): string {
  const matched = isOperationalEventType(type)
    ? `Herald's own operational event: delivered only to subscribers that name \`${type}\` or \`herald.*\` (\`*\` does not match it).`
    : `Delivered to subscribers whose events name \`${type}\`, \`${type.split('.')[0]}.*\`, \`*.${type.split('.')[1]}\` or \`*\`.`;
  return `Each subscriber's targetUrl (address unknown here: one per subscriber). ${matched}`;
}

function message(definition: EventTypeDefinition, profile: SigningProfile): JsonSchema {
  const { type, description, example } = definition;
  return {
    name: type,
    title: type,
    ...(description === undefined ? {} : { description }),
    contentType: 'application/json',
    headers: { $ref: `#/components/schemas/${HEADERS_SCHEMA}` },
    payload: envelopeSchema(type, profile),
    ...(example === undefined
      ? {}
      : {
          examples: [
            {
              name: 'example',
              summary: `The catalog's example; its sensitive fields encrypted with the secret "${EXAMPLE_SECRET}" and an all-zero IV (real deliveries use a fresh random IV).`,
              payload: exampleBody({ ...definition, example }, profile),
            },
          ],
        }),
    'x-herald-sensitive-fields': [...(definition.sensitive ?? [])],
  };
}

export function buildAsyncApiDocument(options: AsyncApiOptions): AsyncApiDocument {
  const profile = options.signingProfile;
  const definitions = [...options.eventTypes].sort(byType);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    [HEADERS_SCHEMA]: deliveryHeadersSchema(profile, options.traceparentHeader ?? false),
    [ENCRYPTED_FIELD_SCHEMA]: encryptedFieldSchema(profile),
  };
  for (const definition of definitions) {
    const { type } = definition;
    const key = pointerToken(type);
    channels[type] = {
      address: null,
      title: type,
      description: channelDescription(type),
      messages: { [type]: { $ref: `#/components/messages/${key}` } },
    };
    operations[type] = {
      action: 'send',
      channel: { $ref: `#/channels/${key}` },
      title: `Deliver ${type}`,
      summary: `Herald POSTs each \`${type}\` event to the matching subscribers.`,
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
      bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
    };
    messages[type] = message(definition, profile);
    schemas[dataSchemaName(type)] = deliveredDataSchema(definition);
  }
  return {
    asyncapi: ASYNCAPI_VERSION,
    info: { title: options.info.title, version: options.info.version, description: describeDocument(profile) },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { schemas, messages },
    'x-herald-signing-profile': profile,
  };
}
