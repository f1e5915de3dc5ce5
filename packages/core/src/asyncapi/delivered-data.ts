// The schema of `data` as a subscriber receives it, from the catalog's `dataSchema` (which describes
// what publishers send): each sensitive field becomes an EncryptedField and is no longer required,
// since a subscriber without a secret receives the event without it.
import type { EventTypeDefinition } from '../shared/event-types.js';
import { ENCRYPTED_FIELD_SCHEMA } from './encrypted-field.js';
import { cloneJson, pointerToken, type JsonSchema } from './json-schema.js';

export function dataSchemaName(type: string): string {
  return `${type}.data`;
}

/**
 * The type's schema is placed under components.schemas, so its own references (`#/$defs/…`) are
 * rebased there; `$schema` and `$id` are dropped, an `$id` would move the base of those references.
 */
function rebased(schema: unknown, base: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rebased(item, base));
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    result[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${base}${value.slice(1)}` : rebased(value, base);
  }
  return result;
}

function sensitiveProperty(name: string, plaintext: unknown): JsonSchema {
  return {
    description: `Sensitive: \`${name}\` arrives encrypted (listed in the envelope's encrypted fields), or is left out for a subscriber without a secret.`,
    allOf: [{ $ref: `#/components/schemas/${ENCRYPTED_FIELD_SCHEMA}` }],
    'x-herald-sensitive': true,
    ...(plaintext === undefined ? {} : { 'x-herald-plaintext': plaintext }),
  };
}

export function deliveredDataSchema(definition: EventTypeDefinition): JsonSchema {
  const base = `#/components/schemas/${pointerToken(dataSchemaName(definition.type))}`;
  const schema: JsonSchema = definition.dataSchema
    ? (rebased(cloneJson(definition.dataSchema), base) as JsonSchema)
    : { type: 'object', description: 'Any JSON object: the catalog gives this type no data schema.' };
  delete schema.$schema;
  delete schema.$id;
  const sensitive = definition.sensitive ?? [];
  if (sensitive.length === 0) return schema;
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const name of sensitive) properties[name] = sensitiveProperty(name, properties[name]);
  schema.properties = properties;
  if (Array.isArray(schema.required)) schema.required = schema.required.filter((name) => !sensitive.includes(name as string));
  return schema;
}
