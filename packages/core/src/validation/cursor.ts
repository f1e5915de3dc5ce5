// Opaque list cursors (keyset pagination). Pure.
//
// A cursor names where the next page of one list begins: the sort key of the last item handed out,
// the list it belongs to (its kind and filter) and the offset that page starts at, so the page's
// `pagination.offset` stays exact without counting. It is JSON in base64url followed by a digest of
// that text and the organization, so a cursor that was altered, cut short or issued to another
// organization is refused with a clear error instead of paging from some other place.
//
// The digest is not a secret: a cursor grants nothing — every query is scoped to the caller's
// organization by its credentials, never by the cursor — so knowing how it is made lets a client do
// no more than it could with offsets. It is only what tells a damaged cursor from a good one.
import { createHash } from 'node:crypto';
import { ValidationError } from '../shared/errors.js';
import { CURSOR_MAX_LENGTH, CURSOR_PATTERN } from '../schemas/common.js';

/** Where the next page begins: the list's kind and filter, the last item's sort key, its offset. */
export interface ListCursor {
  /** Which list: `events`, `subscriber-deliveries`. */
  kind: string;
  /** The list's filter (e.g. the event status, the subscriber); a cursor is valid only with the same one. */
  scope: string;
  /** The sort key of the last item handed out, in the list's order. */
  after: Array<string | number | null>;
  /** Items before the next page. */
  offset: number;
}

const VERSION = 1;

function digest(orgId: string, text: string): string {
  return createHash('sha256').update(`herald-list-cursor\u0000${orgId}\u0000${text}`).digest('base64url').slice(0, 22);
}

export function encodeCursor(orgId: string, cursor: ListCursor): string {
  const text = JSON.stringify([VERSION, cursor.kind, cursor.scope, cursor.after, cursor.offset]);
  return `${Buffer.from(text, 'utf8').toString('base64url')}.${digest(orgId, text)}`;
}

const NOT_ISSUED = 'is not a cursor this API issued: pass the nextCursor of a previous page unchanged';

function refuse(message: string): never {
  throw ValidationError.single('cursor', message);
}

/** The error for a cursor whose position does not have the list's shape. */
export function cursorNotIssued(): ValidationError {
  return ValidationError.single('cursor', NOT_ISSUED);
}

/** A position's time (ms since the epoch) as a Date; a cursor error when it is not a representable time. */
export function cursorTime(value: unknown): Date {
  const date = typeof value === 'number' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw cursorNotIssued();
  return date;
}

function isKeyPart(value: unknown): value is string | number | null {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/**
 * The cursor of list `kind` with filter `scope` for `orgId`, or a ValidationError on `cursor`
 * saying what is wrong with it. `afterLength` is how many sort-key parts the list's cursors carry.
 */
export function decodeCursor(orgId: string, raw: unknown, expected: { kind: string; scope: string; afterLength: number }): ListCursor {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > CURSOR_MAX_LENGTH || !new RegExp(CURSOR_PATTERN).test(raw)) refuse(NOT_ISSUED);
  const [body, mac] = raw.split('.') as [string, string];
  const text = Buffer.from(body, 'base64url').toString('utf8');
  if (digest(orgId, text) !== mac) refuse('was altered or belongs to another organization: pass the nextCursor of a previous page unchanged');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    refuse(NOT_ISSUED);
  }
  if (!Array.isArray(parsed) || parsed.length !== 5 || parsed[0] !== VERSION) refuse(NOT_ISSUED);
  const [, kind, scope, after, offset] = parsed as [number, unknown, unknown, unknown, unknown];
  if (typeof kind !== 'string' || typeof scope !== 'string' || !Array.isArray(after) || !after.every(isKeyPart) || typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    refuse(NOT_ISSUED);
  }
  if (kind !== expected.kind) refuse(`belongs to another list (${kind}), not to this one (${expected.kind})`);
  if (scope !== expected.scope) refuse('was issued for another filter of this list: repeat the query it came from, or start again without a cursor');
  if (after.length !== expected.afterLength) refuse(NOT_ISSUED);
  return { kind, scope, after, offset };
}
