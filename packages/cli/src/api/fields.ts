// Parameters given with -f/--raw-field and -F/--field: splitting `key=value`, typing -F values
// (spec area A's table), and building a nested JSON body from gh-style keys (`a[b]=1`, `a[]=x`).
// Pure: reading `@file` values is done by the caller from the FieldValueSource returned here.
import { usageError } from '../errors.js';

/** An integer too large for a JS number; serialized as the exact digits (JSON.rawJSON). */
export class BigIntegerLiteral {
  constructor(readonly digits: string) {}
  toJSON(): unknown {
    // JSON.rawJSON (Node >= 21) emits the digits verbatim, so no precision is lost.
    return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(this.digits);
  }
  toString(): string {
    return this.digits;
  }
}

export type FieldScalar = string | number | boolean | null | BigIntegerLiteral;
export type JsonBody = { [key: string]: JsonNode };
export type JsonNode = FieldScalar | JsonNode[] | JsonBody;

export interface KeyValueText {
  readonly key: string;
  readonly value: string;
}

/** Splits `key=value` at the first `=`; the key must be non-empty. */
export function splitKeyValue(arg: string, flag: string): KeyValueText {
  const equals = arg.indexOf('=');
  if (equals <= 0) {
    throw usageError('MALFORMED_FIELD', `invalid ${flag} "${arg}": expected key=value`);
  }
  return { key: arg.slice(0, equals), value: arg.slice(equals + 1) };
}

/** What a -F value means before any file is read: a literal, or "read this file" (`-` = stdin). */
export type FieldValueSource = { readonly kind: 'literal'; readonly value: FieldScalar } | { readonly kind: 'file'; readonly path: string };

const integerPattern = /^-?\d+$/;

/** The typed-value table of spec area A. */
export function classifyTypedValue(text: string): FieldValueSource {
  if (text === 'true') return { kind: 'literal', value: true };
  if (text === 'false') return { kind: 'literal', value: false };
  if (text === 'null') return { kind: 'literal', value: null };
  if (text.startsWith('@')) return { kind: 'file', path: text.slice(1) };
  if (integerPattern.test(text)) {
    const number = Number(text);
    if (Number.isSafeInteger(number)) return { kind: 'literal', value: number };
    const negative = text.startsWith('-');
    const digits = (negative ? text.slice(1) : text).replace(/^0+(?=\d)/, '');
    return { kind: 'literal', value: new BigIntegerLiteral(negative ? `-${digits}` : digits) };
  }
  return { kind: 'literal', value: text };
}

/** Text for a query string: booleans and numbers as written, null as empty. */
export function scalarToQueryText(value: FieldScalar): string {
  if (value === null) return '';
  return String(value);
}

export type KeySegment = { readonly kind: 'key'; readonly name: string } | { readonly kind: 'append' };

/** `a[b][]` → key a, key b, append. */
export function parseKeyPath(key: string): KeySegment[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) {
    throw usageError('MALFORMED_FIELD', `invalid field name "${key}": expected name, name[key] or name[]`);
  }
  const segments: KeySegment[] = [{ kind: 'key', name: match[1] as string }];
  for (const bracket of (match[2] as string).matchAll(/\[([^[\]]*)\]/g)) {
    const inner = bracket[1] as string;
    segments.push(inner === '' ? { kind: 'append' } : { kind: 'key', name: inner });
  }
  return segments;
}

function isObjectNode(node: JsonNode | undefined): node is JsonBody {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof BigIntegerLiteral);
}

function conflict(key: string): never {
  throw usageError('FIELD_CONFLICT', `field "${key}" conflicts with an earlier field of a different shape`);
}

function insertIntoObject(target: JsonBody, segments: readonly KeySegment[], value: FieldScalar, fullKey: string): void {
  const [first, next] = segments;
  if (first?.kind !== 'key') return conflict(fullKey);
  if (next === undefined) {
    target[first.name] = value;
    return;
  }
  const existing = target[first.name];
  if (next.kind === 'append') {
    const array = existing ?? [];
    if (!Array.isArray(array)) return conflict(fullKey);
    target[first.name] = array;
    insertIntoArray(array, segments.slice(1), value, fullKey);
  } else {
    const object = existing ?? {};
    if (!isObjectNode(object)) return conflict(fullKey);
    target[first.name] = object;
    insertIntoObject(object, segments.slice(1), value, fullKey);
  }
}

function insertIntoArray(target: JsonNode[], segments: readonly KeySegment[], value: FieldScalar, fullKey: string): void {
  const next = segments[1];
  if (next === undefined) {
    target.push(value);
    return;
  }
  if (next.kind === 'append') {
    const inner: JsonNode[] = [];
    target.push(inner);
    insertIntoArray(inner, segments.slice(1), value, fullKey);
    return;
  }
  // `a[][name]=x -F a[][age]=3` fills one element until a key repeats, then starts the next (as gh does).
  const last = target[target.length - 1];
  const element = isObjectNode(last) && !(next.name in last) ? last : {};
  if (element !== last) target.push(element);
  insertIntoObject(element, segments.slice(1), value, fullKey);
}

export interface TypedField {
  readonly key: string;
  readonly value: FieldScalar;
}

/** Builds the JSON request body from fields in command-line order. */
export function buildJsonBody(fields: readonly TypedField[]): JsonBody {
  const body: JsonBody = {};
  for (const field of fields) insertIntoObject(body, parseKeyPath(field.key), field.value, field.key);
  return body;
}

/** Query-string pairs, keys kept as written (`a[]=x` stays `a[]=x`). */
export function buildQueryPairs(fields: readonly TypedField[]): [string, string][] {
  return fields.map((field) => {
    parseKeyPath(field.key); // same key validation as for bodies
    return [field.key, scalarToQueryText(field.value)];
  });
}
