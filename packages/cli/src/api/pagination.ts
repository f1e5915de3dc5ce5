// --paginate and --slurp over this API's collections: `{list, count, pagination: {total, limit, offset}}`
// (by its `nextCursor` when the page has one, else by offset), or an RFC 8288/5988
// `Link: <…>; rel="next"` header when a server sends one. Pure.
import { RequestUrl } from '../http/endpoint.js';

/** The URL of rel="next" in a Link header, if any. */
export function nextLinkFromHeader(linkHeader: string | undefined): string | undefined {
  if (!linkHeader) return undefined;
  for (const part of linkHeader.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(match[2] as string);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1];
  }
  return undefined;
}

interface PageShape {
  readonly list: readonly unknown[];
  readonly pagination: { readonly total: number; readonly limit: number; readonly offset: number };
}

function isPage(value: unknown): value is PageShape {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const pagination = candidate.pagination as Record<string, unknown> | undefined;
  return (
    Array.isArray(candidate.list) &&
    typeof pagination === 'object' &&
    pagination !== null &&
    typeof pagination.total === 'number' &&
    typeof pagination.limit === 'number' &&
    typeof pagination.offset === 'number'
  );
}

export function parseJsonOrUndefined(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A list that pages by cursor: its `nextCursor`, absent on the last page. */
function cursorOf(body: unknown): { next: string | undefined } | undefined {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { list?: unknown }).list)) return undefined;
  const next = (body as { nextCursor?: unknown }).nextCursor;
  return typeof next === 'string' && next !== '' ? { next } : undefined;
}

/**
 * The next page's URL, or undefined on the last page. Only the query changes, so the path stays as
 * sent. A page with a `nextCursor` is followed by it (the offset dropped: the server refuses both,
 * and a cursor costs what the first page does however deep); a request that already carried a
 * cursor ends when the answer has none.
 */
export function nextPageUrl(currentUrl: RequestUrl, body: unknown, linkHeader: string | undefined): RequestUrl | undefined {
  const linked = nextLinkFromHeader(linkHeader);
  if (linked !== undefined) return RequestUrl.fromUrl(new URL(linked, currentUrl.href));
  const cursor = cursorOf(body);
  if (cursor?.next !== undefined) {
    const query = new URLSearchParams(currentUrl.search);
    query.delete('offset');
    query.set('cursor', cursor.next);
    return currentUrl.withSearch(`?${query.toString()}`);
  }
  if (new URLSearchParams(currentUrl.search).has('cursor')) return undefined;
  if (!isPage(body)) return undefined;
  const { list, pagination } = body;
  const nextOffset = pagination.offset + list.length;
  if (list.length === 0 || nextOffset >= pagination.total) return undefined;
  const query = new URLSearchParams(currentUrl.search);
  query.set('offset', String(nextOffset));
  return currentUrl.withSearch(`?${query.toString()}`);
}

/** Items a page contributes to --slurp: its `list`, an array's elements, or the value itself. */
export function pageItems(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (typeof body === 'object' && body !== null && Array.isArray((body as { list?: unknown }).list)) {
    return (body as { list: unknown[] }).list;
  }
  return [body];
}
