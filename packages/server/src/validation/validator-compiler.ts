// Fastify validator compiler over TypeBox: bodies are checked as sent (no type coercion, unknown
// fields rejected); query, path and headers are strings on the wire, so only canonical numbers and
// booleans are converted ("5" → 5, but "5.5", "1e1" or " 5" stay strings and fail an integer check).
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ValidationError } from '@herald/core';
import { toFieldIssues } from './field-issues.js';

const CANONICAL_INTEGER = /^-?(0|[1-9]\d{0,15})$/;
const CANONICAL_NUMBER = /^-?(0|[1-9]\d{0,15})(\.\d+)?$/;

interface SchemaShape {
  type?: unknown;
  properties?: Record<string, SchemaShape>;
  anyOf?: SchemaShape[];
}

function typesOf(schema: SchemaShape): Set<unknown> {
  const types = new Set<unknown>();
  if (schema.type !== undefined) types.add(schema.type);
  for (const branch of schema.anyOf ?? []) for (const type of typesOf(branch)) types.add(type);
  return types;
}

function coerceValue(schema: SchemaShape, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const types = typesOf(schema);
  if (types.has('string')) return value;
  if (types.has('integer') && CANONICAL_INTEGER.test(value)) return Number(value);
  if (types.has('number') && CANONICAL_NUMBER.test(value)) return Number(value);
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Converts the string properties of a query/params/headers object where the schema asks for a number or boolean. */
export function coerceWireStrings(schema: SchemaShape, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !schema.properties) return value;
  const coerced: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, propertySchema] of Object.entries(schema.properties)) {
    if (name in coerced) coerced[name] = coerceValue(propertySchema, coerced[name]);
  }
  return coerced;
}

export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const fromWire = httpPart !== 'body';
  return (input) => {
    const candidate = fromWire ? Value.Default(schema, coerceWireStrings(schema as SchemaShape, input)) : input;
    if (check.Check(candidate)) return { value: candidate };
    const rootName = httpPart === 'body' || httpPart === undefined ? 'body' : httpPart;
    return { error: new ValidationError(toFieldIssues(check.Errors(candidate), rootName)) };
  };
};
