// Turns API objects into table text. Pure, so it is tested without a terminal.
import type { Column } from '../view.js';

export function valueAtPath(item: unknown, path: string): unknown {
  let current = item;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cellText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The rows of a list response: its `list`, or the array itself. */
export function listItems(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const list = valueAtPath(data, 'list');
  return Array.isArray(list) ? list : [];
}

/** The columns to draw for this data: an optional column only when some row has a value in it. */
export function shownColumns(data: unknown, columns: readonly Column[]): Column[] {
  const items = listItems(data);
  return columns.filter((column) => !column.optional || items.some((item) => (valueAtPath(item, column.path) ?? null) !== null));
}

export function tableRows(data: unknown, columns: readonly Column[]): string[][] {
  return listItems(data).map((item) => columns.map((column) => cellText(valueAtPath(item, column.path))));
}

/** Key/value rows of a single resource; nested objects and arrays of objects as compact JSON. */
export function recordRows(data: unknown): [string, string][] {
  if (typeof data !== 'object' || data === null) return [['value', cellText(data)]];
  return Object.entries(data as Record<string, unknown>).map(([key, value]) => [
    key,
    Array.isArray(value) && value.some((entry) => typeof entry === 'object' && entry !== null) ? JSON.stringify(value) : cellText(value),
  ]);
}

/** Footer line for paginated responses, e.g. "1–20 of 57". */
export function paginationSummary(data: unknown): string | undefined {
  const total = valueAtPath(data, 'pagination.total');
  const offset = valueAtPath(data, 'pagination.offset');
  const count = listItems(data).length;
  if (typeof total !== 'number' || typeof offset !== 'number') return undefined;
  return count === 0 ? `0 of ${total}` : `${offset + 1}–${offset + count} of ${total}`;
}
