// Shapes shared by every resource: times, pagination, errors, list queries.
// Plain JSON Schema (formats `date-time`/`uri`, patterns) so Fastify, ajv and OpenAPI can use them as-is.
// A `title` names a shape that API documents publish as a component (the spec's names where it has
// them); its `examples` are checked against the schema by the server's OpenAPI tests.
import { Type, type Static, type TSchema } from 'typebox';

/**
 * Text a request may carry has no NUL (the PostgreSQL-backed stores cannot hold it). The host
 * refuses it, and unpaired surrogates (UTF-8 cannot carry them), in every string and key of a
 * request (server validation/well-formed.ts); schemas state the NUL rule where a client reads it.
 * Surrogates stay in the descriptions: a pattern naming them is read differently by validators
 * whose regular expressions work on code points (Rust's, Python's).
 */
export const TEXT_PATTERN = '^[^\\x00]*$';

export const DateTime = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const NullableString = Type.Union([Type.String(), Type.Null()]);
export const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

export const Pagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Total records matching the query.' }),
    limit: Type.Integer({ minimum: 1, description: 'Maximum records in this response.' }),
    offset: Type.Integer({ minimum: 0, description: 'Records skipped before this page.' }),
  },
  {
    additionalProperties: false,
    title: 'Pagination',
    description: 'Where a page sits in its collection; returned with every paginated collection.',
    examples: [{ total: 42, limit: 20, offset: 20 }],
  },
);
export type Pagination = Static<typeof Pagination>;

export interface PageNaming {
  /** Component name of the list (e.g. `WebhookEventList`). */
  title: string;
  description: string;
  /** One item, for the list's example. */
  itemExample?: unknown;
}

/** `{ list, count, pagination }`: the envelope of every paginated collection response. */
export function PageOf<Item extends TSchema>(item: Item, naming?: PageNaming) {
  const example = naming?.itemExample === undefined ? {} : { examples: [{ list: [naming.itemExample], count: 1, pagination: { total: 1, limit: 20, offset: 0 } }] };
  return Type.Object(
    {
      list: Type.Array(item),
      count: Type.Integer({ minimum: 0, description: 'Number of items in this page.' }),
      pagination: Pagination,
    },
    { additionalProperties: false, ...(naming ? { title: naming.title, description: naming.description } : {}), ...example },
  );
}

/** What a service method returns for a paginated collection. */
export interface Page<T> {
  list: T[];
  count: number;
  pagination: Pagination;
  /** Lists paged by cursor as well: where the next page begins, absent on the last page. */
  nextCursor?: string;
}

/** Longest cursor accepted; the ones Herald issues are well under it. */
export const CURSOR_MAX_LENGTH = 512;
/** base64url text, a dot, base64url digest (validation/cursor.ts). */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

export const Cursor = Type.String({
  minLength: 1,
  maxLength: CURSOR_MAX_LENGTH,
  pattern: CURSOR_PATTERN,
  description:
    'Where the page begins: the `nextCursor` of the previous page, passed unchanged (keyset pagination: a deep page costs what the first one does). ' +
    'Not with `offset`. A cursor is valid only for the list and filter it came from.',
});

export const NextCursor = Type.String({
  description: 'Pass it as `cursor` to get the next page; absent when this page is the last one.',
});

/** PageOf, plus `nextCursor`: a collection that also pages by cursor. */
export function CursorPageOf<Item extends TSchema>(item: Item, naming?: PageNaming) {
  const page = PageOf(item, naming);
  return Type.Object({ ...page.properties, nextCursor: Type.Optional(NextCursor) }, { additionalProperties: false, ...pageOptions(page) });
}

function pageOptions(page: TSchema): Record<string, unknown> {
  const { title, description, examples } = page as { title?: string; description?: string; examples?: unknown };
  return { ...(title ? { title } : {}), ...(description ? { description } : {}), ...(examples ? { examples } : {}) };
}

/** The largest offset: integers beyond it cannot be told apart as JSON numbers (2^53 − 1). */
export const OFFSET_MAX = Number.MAX_SAFE_INTEGER;

export const Limit = Type.Integer({
  minimum: 1,
  maximum: PAGE_LIMIT_MAX,
  default: PAGE_LIMIT_DEFAULT,
  description: `Maximum records to return (1–${PAGE_LIMIT_MAX}, default ${PAGE_LIMIT_DEFAULT}).`,
});
export const Offset = Type.Integer({
  minimum: 0,
  maximum: OFFSET_MAX,
  default: 0,
  description: 'Records to skip (0 to 2^53 − 1, default 0).',
});

/**
 * `offset` of a list that pages by cursor as well: no schema default, since a default filled in by
 * the validator could not be told from an offset the client sent beside its cursor (refused).
 */
export const OffsetBesideCursor = Type.Integer({
  minimum: 0,
  maximum: OFFSET_MAX,
  description: 'Records to skip (0 to 2^53 − 1, default 0). Not with `cursor`: a deep offset is read through every record before it, a cursor is not.',
});

export const PageQuery = Type.Object(
  { limit: Type.Optional(Limit), offset: Type.Optional(Offset) },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

export const FieldError = Type.Object(
  {
    field: Type.String({ description: 'The field, dotted for nested ones (`events.2`); `body`, `path` or a parameter name for whole parts.' }),
    message: Type.String({ description: 'What is wrong with it.' }),
  },
  {
    additionalProperties: false,
    title: 'FieldError',
    description: 'One problem with one field of the request.',
    examples: [{ field: 'targetUrl', message: 'must not contain user info (user:password@)' }],
  },
);
export type FieldError = Static<typeof FieldError>;

export const ErrorResponse = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.String({ description: 'Machine-readable code, e.g. MISSING_REQUIRED_PARAMETER.' }),
    message: Type.String(),
    errors: Type.Optional(Type.Array(FieldError, { description: 'Field-level details, when there are any.' })),
  },
  {
    additionalProperties: false,
    title: 'ErrorResponse',
    description: 'The body of every error answer. The `x-request-id` response header names the request in the logs.',
    examples: [
      {
        status: 'error',
        code: 'MISSING_REQUIRED_PARAMETER',
        message: 'Some fields in the payload are missing or invalid',
        errors: [{ field: 'displayName', message: 'is required' }],
      },
    ],
  },
);
export type ErrorResponse = Static<typeof ErrorResponse>;
