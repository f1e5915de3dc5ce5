// Where an endpoint argument points (spec area A, "Argument" and Versioning 2). Pure.
import { usageError } from '../errors.js';

/** The management API version that relative paths use. */
export const defaultApiPrefix = '/api/v1';

const versionedPathPattern = /^\/?api\/v\d+(?:\.\d+)*(?:[/?#]|$)/;

function trimTrailingSlash(text: string): string {
  return text.replace(/\/+$/, '');
}

/**
 * Resolves an endpoint against an instance URL (e.g. `https://herald.example.com`):
 * - `orgs`, `/orgs` → `<instance>/api/v1/orgs`
 * - `/api/v1/orgs`, `/api/v0.9/webhook-subscribers` → that version on the same instance
 * - a full URL → accepted only on the instance's own origin, so the token never goes elsewhere.
 */
export function resolveEndpointUrl(instanceUrl: string, endpoint: string): URL {
  const instance = new URL(instanceUrl);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) {
    let target: URL;
    try {
      target = new URL(endpoint);
    } catch {
      throw usageError('INVALID_ENDPOINT', `invalid endpoint URL "${endpoint}"`);
    }
    if (target.origin !== instance.origin) {
      throw usageError('FOREIGN_HOST', `endpoint ${target.origin} is not the current instance (${instance.origin}); refusing to send the token there`);
    }
    return target;
  }
  const base = trimTrailingSlash(instance.origin + instance.pathname);
  const path = endpoint.startsWith('/') ? endpoint : `/${endpoint}`;
  if (versionedPathPattern.test(path)) return new URL(base + path);
  return new URL(base + defaultApiPrefix + (path === '/' ? '' : path));
}

/** Appends query pairs after any query already in the endpoint. */
export function withQuery(url: URL, pairs: readonly (readonly [string, string])[]): URL {
  if (pairs.length === 0) return url;
  const extra = pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  const result = new URL(url.href);
  result.search = result.search ? `${result.search}&${extra}` : `?${extra}`;
  return result;
}
