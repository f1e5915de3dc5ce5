// Fastify validator compiler over TypeBox: bodies are checked as sent (no type coercion, unknown
// fields rejected); query, path and headers are strings on the wire, so only canonical numbers and
// booleans are converted ("5" → 5, but "5.5", "1e1" or " 5" stay strings and fail an integer check).
// Every part is also refused when it holds text UTF-8 cannot carry (see well-formed.ts).
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ValidationError } from '@herald/core';
import { toFieldIssues, type FieldIssue } from './field-issues.js';
import { illFormedTextIssues } from './well-formed.js';

const CANONICAL_INTEGER = /^-?(0|[1-9]\d*)$/;
const CANONICAL_NUMBER = /^-?(0|[1-9]\d{0,15})(\.\d+)?$/;

interface SchemaShape {
  type?: unknown;
  properties?: Record<string, SchemaShape>;
  anyOf?: SchemaShape[];
  minimum?: unknown;
  maximum?: unknown;
}

function typesOf(schema: SchemaShape): Set<unknown> {
  const types = new Set<unknown>();
  if (schema.type !== undefined) types.add(schema.type);
  for (const branch of schema.anyOf ?? []) for (const type of typesOf(branch)) types.add(type);
  return types;
}

/** A canonical integer that a double cannot hold exactly (|n| > 2^53 − 1): "9007199254740993" would read as …992. */
function isUnsafeInteger(schema: SchemaShape, value: unknown): value is string {
  return typeof value === 'string' && typesOf(schema).has('integer') && CANONICAL_INTEGER.test(value) && !Number.isSafeInteger(Number(value));
}

function coerceValue(schema: SchemaShape, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const types = typesOf(schema);
  if (types.has('string')) return value;
  if (types.has('integer') && CANONICAL_INTEGER.test(value)) return isUnsafeInteger(schema, value) ? value : Number(value);
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

/**
 * Integers too long to be exact are left as strings by the coercion above; instead of "must be
 * integer", they are told the bound they overstep (the schema's, at most 2^53 − 1 in magnitude).
 */
export function unsafeIntegerIssues(schema: SchemaShape, value: unknown): FieldIssue[] {
  if (typeof value !== 'object' || value === null || !schema.properties) return [];
  const issues: FieldIssue[] = [];
  for (const [name, propertySchema] of Object.entries(schema.properties)) {
    const text = (value as Record<string, unknown>)[name];
    if (!isUnsafeInteger(propertySchema, text)) continue;
    const maximum = typeof propertySchema.maximum === 'number' ? Math.min(propertySchema.maximum, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
    const minimum = typeof propertySchema.minimum === 'number' ? Math.max(propertySchema.minimum, -Number.MAX_SAFE_INTEGER) : -Number.MAX_SAFE_INTEGER;
    issues.push({ field: name, message: text.startsWith('-') ? `must be >= ${minimum}` : `must be <= ${maximum}` });
  }
  return issues;
}

/** A JSON value checked as sent (a body, or one item of a batch): well-formed text, then the schema. */
export function jsonValueCheck(schema: TSchema, rootName: string): (input: unknown) => ValidationError | undefined {
  const check = Compile(schema);
  return (input) => {
    const textIssues = illFormedTextIssues(input, rootName);
    if (textIssues.length > 0) return new ValidationError(textIssues);
    return check.Check(input) ? undefined : new ValidationError(toFieldIssues(check.Errors(input), rootName, schema));
  };
}

export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  if (httpPart === 'body') {
    const checkBody = jsonValueCheck(schema, 'body');
    return (input) => {
      const error = checkBody(input);
      return error === undefined ? { value: input } : { error };
    };
  }
  const check = Compile(schema);
  const rootName = httpPart ?? 'body';
  return (input) => {
    const textIssues = illFormedTextIssues(input, rootName);
    if (textIssues.length > 0) return { error: new ValidationError(textIssues) };
    const unsafe = unsafeIntegerIssues(schema as SchemaShape, input);
    const candidate = Value.Default(schema, coerceWireStrings(schema as SchemaShape, input));
    if (unsafe.length === 0 && check.Check(candidate)) return { value: candidate };
    const reported = new Set(unsafe.map((issue) => issue.field));
    const issues = [...unsafe, ...toFieldIssues(check.Errors(candidate), rootName, schema).filter((issue) => !reported.has(issue.field))];
    return { error: new ValidationError(issues) };
  };
};
