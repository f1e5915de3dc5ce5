// Which index serves a query shape on MongoDB, judged from the shape and the indexes alone (no
// planner needed, so it runs on every store): the index must start with the query's equality fields
// (in any order), then give the requested order — the sort keys in order, all in the index's
// directions or all reversed — with a range, if any, on the first sort key. Such an index scans only
// the keys of the page's range and returns them already in order: no collection scan, no in-memory
// sort. A rooted `$or` is served when every branch is. Other `$or` fields beside a top-level equality
// and range are a residual filter, and must be index keys, so they are checked on keys.
import type { Document } from 'mongodb';

export interface IndexSpec {
  name: string;
  key: Record<string, number>;
}

const RANGE_OPERATORS = new Set(['$lt', '$lte', '$gt', '$gte']);

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !Array.isArray(value) && Object.keys(value).some((key) => key.startsWith('$'));
}

interface Shape {
  equality: string[];
  range: string[];
  residual: string[];
}

function shapeOf(filter: Document): Shape | undefined {
  const shape: Shape = { equality: [], range: [], residual: [] };
  for (const [field, value] of Object.entries(filter)) {
    if (field === '$or') {
      for (const branch of value as Document[]) shape.residual.push(...Object.keys(branch));
      continue;
    }
    if (field.startsWith('$')) return undefined;
    if (!isOperatorObject(value)) {
      shape.equality.push(field);
      continue;
    }
    const operators = Object.keys(value);
    if (operators.every((operator) => operator === '$eq')) shape.equality.push(field);
    else if (operators.every((operator) => RANGE_OPERATORS.has(operator))) shape.range.push(field);
    else return undefined; // $in, $exists, … are not judged here
  }
  return shape;
}

function fitsIndex(shape: Shape, sort: Record<string, number>, index: IndexSpec): boolean {
  const keys = Object.entries(index.key);
  const prefix = keys.slice(0, shape.equality.length).map(([field]) => field);
  if (prefix.length !== shape.equality.length || !shape.equality.every((field) => prefix.includes(field))) return false;
  const rest = keys.slice(shape.equality.length);
  const sortKeys = Object.entries(sort).filter(([field]) => !shape.equality.includes(field));
  if (sortKeys.length > rest.length) return false;
  let direction: number | undefined;
  for (const [position, [field, order]] of sortKeys.entries()) {
    const [indexField, indexOrder] = rest[position]!;
    if (indexField !== field) return false;
    const relative = order === indexOrder ? 1 : -1;
    if (direction !== undefined && relative !== direction) return false;
    direction = relative;
  }
  if (shape.range.length > 1) return false;
  if (shape.range.length === 1 && rest[0]?.[0] !== shape.range[0]) return false;
  const indexed = new Set(keys.map(([field]) => field));
  return shape.residual.every((field) => indexed.has(field));
}

/**
 * The indexes that serve `filter` sorted by `sort` without a scan or an in-memory sort, by name;
 * empty when none does.
 */
export function servingIndexes(filter: Document, sort: Record<string, number>, indexes: readonly IndexSpec[]): string[] {
  const keys = Object.keys(filter);
  if (keys.length === 1 && keys[0] === '$or') {
    const perBranch = (filter.$or as Document[]).map((branch) => new Set(servingIndexes(branch, sort, indexes)));
    return indexes.map((index) => index.name).filter((name) => perBranch.every((names) => names.has(name)));
  }
  const shape = shapeOf(filter);
  if (!shape) return [];
  return indexes.filter((index) => fitsIndex(shape, sort, index)).map((index) => index.name);
}
