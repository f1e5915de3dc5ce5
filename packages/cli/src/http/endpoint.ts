// Where an endpoint argument points (spec area A, "Argument" and Versioning 2). Pure.
import { usageError } from '../errors.js';

/** The management API version that relative paths use. */
export const defaultApiPrefix = '/api/v1';

const versionedPathPattern = /^\/?api\/v\d+(?:\.\d+)*(?:[/?#]|$)/;
const versionPrefixPattern = /^\/api\/v\d+(?:\.\d+)*(?=[/?#]|$)/;
const fullUrlPattern = /^([a-z][a-z0-9+.-]*:\/\/[^/\\?#]*)(.*)$/is;
// eslint-disable-next-line no-control-regex -- looking for control characters is the point
const controlCharacterPattern = /[\u0000-\u001f\u007f]/;
/** `.` and `..` as a URL parser sees them: `%2e` counts as a dot, in either letter case. */
const singleDotPattern = /^(?:\.|%2e)$/i;
const doubleDotPattern = /^(?:\.|%2e){2}$/i;

/**
 * An absolute request URL whose path is sent exactly as built. A WHATWG `URL` re-parses its path
 * and treats `%2E%2E` like `..`, so an id or placeholder value ".." would climb a level.
 */
export class RequestUrl {
  readonly origin: string;
  readonly host: string;
  readonly protocol: string;

  /** `pathname` must already be percent-encoded; `search` is empty or starts with `?`. */
  constructor(
    origin: string,
    readonly pathname: string,
    readonly search = '',
  ) {
    const parsed = new URL(origin);
    this.origin = parsed.origin;
    this.host = parsed.host;
    this.protocol = parsed.protocol;
  }

  get href(): string {
    return this.origin + this.pathname + this.search;
  }

  withSearch(search: string): RequestUrl {
    return new RequestUrl(this.origin, this.pathname, search);
  }

  static fromUrl(url: URL): RequestUrl {
    return new RequestUrl(url.origin, url.pathname, url.search);
  }
}

/**
 * A value (an id, a placeholder value) as one path segment. `encodeURIComponent` leaves `.` and `..`
 * as they are, and those would mean "this level" and "one level up".
 */
export function encodePathSegment(value: string): string {
  if (value === '.') return '%2E';
  if (value === '..') return '%2E%2E';
  return encodeURIComponent(value);
}

function trimTrailingSlash(text: string): string {
  return text.replace(/\/+$/, '');
}

/** A segment as it goes on the wire: dot segments fully escaped, the rest encoded as a URL parser would. */
function wireSegment(segment: string): string {
  if (singleDotPattern.test(segment)) return '%2E';
  if (doubleDotPattern.test(segment)) return '%2E%2E';
  return new URL(`http://segment.invalid/${segment}`).pathname.slice(1);
}

/** RFC 3986 dot-segment removal, except that climbing above the API base is an error, not a no-op. */
function removeDotSegments(segments: readonly string[], endpoint: string, apiBase: string): string[] {
  const kept: string[] = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (doubleDotPattern.test(segment)) {
      if (kept.length === 0) {
        throw usageError('ENDPOINT_OUTSIDE_API', `endpoint "${endpoint}" leaves the API base ${apiBase || '/'}: a ".." segment (also written %2E%2E) may not climb above it`);
      }
      kept.pop();
      if (last) kept.push(''); // `a/..` names the directory: keep the trailing slash
    } else if (singleDotPattern.test(segment)) {
      if (last) kept.push('');
    } else {
      kept.push(segment);
    }
  });
  return kept;
}

/** The instance path plus `/api/v<version>` when the path names one: what `..` may not leave. */
function apiBaseOf(path: string, instancePath: string): string {
  if (path !== instancePath && !path.startsWith(`${instancePath}/`)) return '';
  return instancePath + (versionPrefixPattern.exec(path.slice(instancePath.length))?.[0] ?? '');
}

export interface ResolveOptions {
  /** Fills placeholders, segment by segment and in the query, after dot segments are resolved. */
  readonly fill?: (text: string) => string;
  /**
   * `resolve` (what a user typed): `.` and `..` segments, also percent-encoded, are applied and may
   * not leave the API base. `literal` (a path a command built from ids): every segment is data.
   */
  readonly dotSegments?: 'resolve' | 'literal';
}

/**
 * Resolves an endpoint against an instance URL (e.g. `https://herald.example.com`):
 * - `orgs`, `/orgs` → `<instance>/api/v1/orgs`
 * - `/api/v1/orgs`, `/api/v0.9/webhook-subscribers` → that version on the same instance
 * - a full URL → accepted only on the instance's own origin, so the token never goes elsewhere.
 */
export function resolveEndpointUrl(instanceUrl: string, endpoint: string, options: ResolveOptions = {}): RequestUrl {
  // A URL parser silently drops tabs and newlines (`.\n.` would become `..`); refuse them instead.
  if (controlCharacterPattern.test(endpoint)) {
    throw usageError('INVALID_ENDPOINT', `invalid endpoint ${JSON.stringify(endpoint)}: it contains a control character`);
  }
  const instance = new URL(instanceUrl);
  const instancePath = trimTrailingSlash(instance.pathname);
  let target: string; // path and query from the root of the instance's origin
  const full = fullUrlPattern.exec(endpoint);
  if (full) {
    let parsed: URL;
    try {
      parsed = new URL(endpoint);
    } catch {
      throw usageError('INVALID_ENDPOINT', `invalid endpoint URL "${endpoint}"`);
    }
    if (parsed.origin !== instance.origin) {
      throw usageError('FOREIGN_HOST', `endpoint ${parsed.origin} is not the current instance (${instance.origin}); refusing to send the token there`);
    }
    target = full[2] || '/';
  } else {
    const path = endpoint.startsWith('/') ? endpoint : `/${endpoint}`;
    target = instancePath + (versionedPathPattern.test(path) ? path : defaultApiPrefix + (path === '/' ? '' : path));
  }

  const withoutFragment = target.split('#')[0] as string;
  const queryStart = withoutFragment.indexOf('?');
  const path = queryStart === -1 ? withoutFragment : withoutFragment.slice(0, queryStart);
  const query = queryStart === -1 ? '' : withoutFragment.slice(queryStart + 1);

  const apiBase = apiBaseOf(path, instancePath);
  const below = path.slice(apiBase.length);
  // For http(s) a URL parser reads `\` as `/`; doing the same keeps `..\..` from slipping through.
  const segments = below === '' ? [] : below.split(/[/\\]/).slice(1);
  const resolved = options.dotSegments === 'literal' ? segments : removeDotSegments(segments, endpoint, apiBase);
  const fill = options.fill ?? ((text: string) => text);
  const pathname = apiBase + resolved.map((segment) => `/${wireSegment(fill(segment))}`).join('');
  const search = query === '' ? '' : new URL(`http://query.invalid/?${fill(query)}`).search;
  return new RequestUrl(instance.origin, pathname || '/', search);
}

/** Appends query pairs after any query already in the endpoint. */
export function withQuery(url: RequestUrl, pairs: readonly (readonly [string, string])[]): RequestUrl {
  if (pairs.length === 0) return url;
  const extra = pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  return url.withSearch(url.search ? `${url.search}&${extra}` : `?${extra}`);
}
