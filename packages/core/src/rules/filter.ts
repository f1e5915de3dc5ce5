// Payload filters on subscribers: a JSON condition over the event envelope, checked at fan-out
// after the event-type patterns. Pure. A filter is validated once (checkFilter) and compiled once
// per stored subscriber document (compileFilter); evaluating it is a walk of closures over values
// the publisher already holds, so it costs no round trip.
//
// Grammar (Mongo-like, a subset):
//   filter    := { <field>: condition | literal, "$and": [filter…], "$or": [filter…], "$not": filter }
//   field     := "type" | "aggregateType" | "aggregateId" | "occurredAt" | "data.<path>"
//   condition := { "$eq"|"$ne": value, "$gt"|"$gte"|"$lt"|"$lte": number|string,
//                  "$in"|"$nin": [value…], "$exists": boolean, "$startsWith"|"$endsWith": string }
// The keys of one object are ANDed. A literal (anything but an object whose keys all start with `$`)
// means `$eq`. Arrays and objects are compared as whole values; a missing field equals nothing, so
// `$ne`/`$nin` match it and every other operator does not. Order comparisons need both sides to be
// numbers or both strings (`occurredAt` compares as an instant, its operand an ISO 8601 string).
import type { FieldIssue } from '../shared/errors.js';
import { nestsDeeperThan } from '../validation/fields.js';

export const FILTER_LIMITS = { maxDepth: 8, maxBytes: 4096, maxPathSegments: 16 } as const;

export type PayloadFilter = Record<string, unknown>;

/** What a filter sees of an event: only its public data (sensitive fields are never visible). */
export interface FilterEnvelope {
  type: string;
  aggregateType: string;
  aggregateId: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export type CompiledFilter = (event: FilterEnvelope) => boolean;

const ENVELOPE_FIELDS = new Set(['type', 'aggregateType', 'aggregateId', 'occurredAt']);
const COMPARISON = new Set(['$gt', '$gte', '$lt', '$lte']);
const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$exists', '$startsWith', '$endsWith', ...COMPARISON]);
const LOGICAL = new Set(['$and', '$or', '$not']);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const PATH_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose keys all start with `$` is a condition; anything else is a literal for `$eq`. */
function isCondition(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (isObject(value)) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

/** The top-level `data` field a field name reads, or undefined for an envelope field. */
export function dataFieldOf(field: string): string | undefined {
  return field.startsWith('data.') ? field.slice(5).split('.')[0] : undefined;
}

/**
 * Issues of a filter, each naming its path under `prefix` (empty = valid). `sensitive` names the
 * data fields a filter may not read: a filter on one would tell, delivery by delivery, whether the
 * secret value satisfies it.
 */
export function checkFilter(filter: unknown, sensitive: ReadonlySet<string>, prefix = 'filter'): FieldIssue[] {
  if (!isObject(filter)) return [{ field: prefix, message: 'must be a JSON object' }];
  // Bounded first, iteratively: the size and the walks below recurse, and an embedder's value may nest arbitrarily deep.
  if (nestsDeeperThan(filter, FILTER_LIMITS.maxDepth)) return [{ field: prefix, message: `must nest at most ${FILTER_LIMITS.maxDepth} levels deep` }];
  const bytes = Buffer.byteLength(JSON.stringify(filter), 'utf8');
  if (bytes > FILTER_LIMITS.maxBytes) return [{ field: prefix, message: `must be at most ${FILTER_LIMITS.maxBytes} bytes as JSON (is ${bytes})` }];
  if (depthOf(filter) > FILTER_LIMITS.maxDepth) return [{ field: prefix, message: `must nest at most ${FILTER_LIMITS.maxDepth} levels deep` }];
  const issues: FieldIssue[] = [];
  checkNode(filter, prefix, sensitive, issues);
  return issues;
}

function checkNode(node: Record<string, unknown>, path: string, sensitive: ReadonlySet<string>, issues: FieldIssue[]): void {
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) issues.push({ field: at, message: 'must be a non-empty array of filters' });
      else value.forEach((item, index) => (isObject(item) ? checkNode(item, `${at}[${index}]`, sensitive, issues) : issues.push({ field: `${at}[${index}]`, message: 'must be a JSON object' })));
    } else if (key === '$not') {
      if (isObject(value)) checkNode(value, at, sensitive, issues);
      else issues.push({ field: at, message: 'must be a JSON object (a filter)' });
    } else if (key.startsWith('$')) {
      issues.push({ field: at, message: `unknown operator "${key}" here (filter level takes $and, $or, $not and field names)` });
    } else {
      const fieldIssue = checkFieldName(key, sensitive);
      if (fieldIssue) issues.push({ field: at, message: fieldIssue });
      else checkCondition(key, value, at, issues);
    }
  }
}

function checkFieldName(field: string, sensitive: ReadonlySet<string>): string | undefined {
  if (ENVELOPE_FIELDS.has(field)) return undefined;
  if (!field.startsWith('data.')) return 'must be type, aggregateType, aggregateId, occurredAt or data.<path>';
  const segments = field.slice(5).split('.');
  if (segments.length > FILTER_LIMITS.maxPathSegments) return `must have at most ${FILTER_LIMITS.maxPathSegments} path segments`;
  if (!segments.every((segment) => PATH_SEGMENT.test(segment))) return 'path segments must be 1–128 characters of letters, digits, "_" or "-"';
  if (sensitive.has(segments[0]!)) return `"${segments[0]}" is a sensitive field and cannot be filtered on`;
  return undefined;
}

function checkCondition(field: string, value: unknown, at: string, issues: FieldIssue[]): void {
  if (!isCondition(value)) {
    if (isObject(value) && Object.keys(value).some((key) => key.startsWith('$'))) {
      issues.push({ field: at, message: 'must not mix operators ($…) and plain keys' });
    }
    return;
  }
  for (const [operator, operand] of Object.entries(value)) {
    const message = operandIssue(field, operator, operand);
    if (message) issues.push({ field: `${at}.${operator}`, message });
  }
}

function operandIssue(field: string, operator: string, operand: unknown): string | undefined {
  if (!OPERATORS.has(operator)) return LOGICAL.has(operator) ? `${operator} belongs at filter level, not under a field` : `unknown operator "${operator}"`;
  if (operator === '$exists') return typeof operand === 'boolean' ? undefined : 'must be a boolean';
  if (operator === '$startsWith' || operator === '$endsWith') return typeof operand === 'string' ? undefined : 'must be a string';
  if (operator === '$in' || operator === '$nin') return Array.isArray(operand) ? undefined : 'must be an array';
  if (COMPARISON.has(operator)) {
    if (field === 'occurredAt') return typeof operand === 'string' && ISO_INSTANT.test(operand) && !Number.isNaN(Date.parse(operand)) ? undefined : 'must be an ISO 8601 date-time';
    return (typeof operand === 'number' && Number.isFinite(operand)) || typeof operand === 'string' ? undefined : 'must be a number or a string';
  }
  return undefined;
}

// ---- evaluation ----

const MISSING = Symbol('missing');
type Read = (event: FilterEnvelope) => unknown;

function reader(field: string): Read {
  if (field === 'occurredAt') return (event) => event.occurredAt.getTime();
  if (ENVELOPE_FIELDS.has(field)) return (event) => event[field as 'type'];
  const segments = field.slice(5).split('.');
  return (event) => {
    let value: unknown = event.data;
    for (const segment of segments) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return MISSING;
      value = (value as Record<string, unknown>)[segment];
    }
    return value;
  };
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => jsonEqual(item, (b as unknown[])[index]));
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

type Test = (value: unknown) => boolean;

function order(operator: string, operand: number | string): Test {
  const sameKind = (value: unknown): value is number | string => typeof value === typeof operand;
  switch (operator) {
    case '$gt':
      return (value) => sameKind(value) && value > operand;
    case '$gte':
      return (value) => sameKind(value) && value >= operand;
    case '$lt':
      return (value) => sameKind(value) && value < operand;
    default:
      return (value) => sameKind(value) && value <= operand;
  }
}

function operatorTest(field: string, operator: string, operand: unknown): Test {
  // occurredAt is read as epoch milliseconds, so its operands are too.
  const at = (raw: unknown): unknown => (field === 'occurredAt' && typeof raw === 'string' ? Date.parse(raw) : raw);
  switch (operator) {
    case '$eq': {
      const expected = at(operand);
      return (value) => value !== MISSING && jsonEqual(value, expected);
    }
    case '$ne': {
      const expected = at(operand);
      return (value) => value === MISSING || !jsonEqual(value, expected);
    }
    case '$in': {
      const options = (operand as unknown[]).map(at);
      return (value) => value !== MISSING && options.some((option) => jsonEqual(value, option));
    }
    case '$nin': {
      const options = (operand as unknown[]).map(at);
      return (value) => value === MISSING || !options.some((option) => jsonEqual(value, option));
    }
    case '$exists':
      return operand ? (value) => value !== MISSING : (value) => value === MISSING;
    case '$startsWith':
      return (value) => typeof value === 'string' && value.startsWith(operand as string);
    case '$endsWith':
      return (value) => typeof value === 'string' && value.endsWith(operand as string);
    default:
      return order(operator, at(operand) as number | string);
  }
}

/** Compiles a filter that checkFilter accepted. */
export function compileFilter(filter: PayloadFilter): CompiledFilter {
  const parts: CompiledFilter[] = Object.entries(filter).map(([key, value]) => {
    if (key === '$and') {
      const all = (value as PayloadFilter[]).map(compileFilter);
      return (event) => all.every((part) => part(event));
    }
    if (key === '$or') {
      const any = (value as PayloadFilter[]).map(compileFilter);
      return (event) => any.some((part) => part(event));
    }
    if (key === '$not') {
      const inner = compileFilter(value as PayloadFilter);
      return (event) => !inner(event);
    }
    const read = reader(key);
    const tests = isCondition(value) ? Object.entries(value).map(([operator, operand]) => operatorTest(key, operator, operand)) : [operatorTest(key, '$eq', value)];
    return (event) => {
      const found = read(event);
      return tests.every((test) => test(found));
    };
  });
  if (parts.length === 1) return parts[0]!;
  return (event) => parts.every((part) => part(event));
}
