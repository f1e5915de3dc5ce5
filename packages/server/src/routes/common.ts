// Pieces every API route uses: the error responses it documents, "no query parameters", optional
// bodies, the core scope of a request and Location URLs.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { schemas } from '@herald/core';
import { Type } from 'typebox';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed input (MISSING_REQUIRED_PARAMETER) with field details',
  401: 'Missing, invalid or expired access token (UNAUTHORIZED)',
  403: 'Missing scope, foreign organization or read-only mode (FORBIDDEN)',
  404: 'Resource not found (ORG_NOT_FOUND)',
  409: 'Conflicts with an existing resource (CONFLICT)',
  410: 'The portal link was already used or has expired (GONE)',
  413: 'Request body larger than 1 MiB (PAYLOAD_TOO_LARGE)',
  415: 'Request body is not JSON (UNSUPPORTED_MEDIA_TYPE)',
  500: 'Unexpected server error (INTERNAL_SERVER_ERROR); the message names the request id',
  503: 'The database cannot be reached or did not answer in time (SERVICE_UNAVAILABLE); nothing was written; retry after the Retry-After seconds',
};

/** Every route can answer 400 (query/path), 401, 403, 500 and 503; callers add what else applies. */
export function errorResponses(...extra: Array<404 | 409 | 410 | 413 | 415>) {
  const statuses = [400, 401, 403, ...extra, 500, 503];
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      // The same shape under the same title (the published ErrorResponse component); the description is the status's.
      Type.Object(schemas.ErrorResponse.properties, {
        additionalProperties: false,
        title: (schemas.ErrorResponse as { title?: string }).title,
        description: ERROR_DESCRIPTIONS[status],
      }),
    ]),
  ) as Record<number, typeof schemas.ErrorResponse>;
}

/** Body-carrying routes also document the body-level failures. */
export function bodyErrorResponses(...extra: Array<404 | 409 | 410>) {
  return errorResponses(...extra, 413, 415);
}

/** Routes without query parameters still reject unknown ones (DECISIONS §3). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const NoContent = Type.Null({ description: 'No content' });

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body may be left out (treated as `{}`); the OpenAPI document says `required: false`. */
    optionalBody?: boolean;
  }
}

/**
 * onRoute hook: routes flagged `optionalBody` get a missing body replaced by `{}` before validation.
 * Only a missing one: a JSON `null` is a body, and not the object the schema asks for (400).
 */
export function acceptMissingBody(route: RouteOptions): void {
  if (!route.config?.optionalBody) return;
  const existing = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
  route.preValidation = [
    async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    },
    ...existing,
  ];
}

export function coreScope(request: FastifyRequest, orgId: string): { orgId: string; actor: string } {
  // The auth hook runs before every handler of these plugins and always sets the principal.
  const principal = request.principal!;
  // A portal session's tenant comes from its credential, never from the URL or the body.
  return { orgId: principal.kind === 'portal' ? principal.orgId! : orgId, actor: principal.id };
}

/**
 * `Location` for a created resource: absolute from the configured public base URL, else the path
 * alone. A relative reference (RFC 9110 §10.2.2) resolves against the URL the client called; the
 * request's `Host` is the client's word, so a URL built from it could point anywhere.
 */
function locationUrl(publicBaseUrl: string | undefined, path: string): string {
  return publicBaseUrl ? `${publicBaseUrl.replace(/\/+$/, '')}${path}` : path;
}

/** Where a route plugin is mounted, as its options carry it. */
export interface Mount {
  publicBaseUrl?: string;
  /** The prefix the plugin is mounted under, e.g. /api/v0.9. */
  basePath: string;
}

/**
 * `Location` of a resource below the plugin's mount, given by its path segments. Every segment is
 * percent-encoded, so an id can never add a segment or a query to the URL.
 */
export function resourceLocation(mount: Mount, ...segments: string[]): string {
  return locationUrl(mount.publicBaseUrl, `${mount.basePath}/${segments.map(encodeURIComponent).join('/')}`);
}
