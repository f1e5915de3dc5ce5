// The ONE mapping from errors (core's, the server's, Fastify's) to HTTP replies in the spec's
// ErrorResponse shape (pure). Unknown errors become a 500 that names the request id and nothing else.
import { isStoreUnavailable } from '@herald/core';
import type { FieldIssue } from '../validation/field-issues.js';

export interface ErrorBody {
  status: 'error';
  code: string;
  message: string;
  errors?: FieldIssue[];
}

export interface ErrorReply {
  statusCode: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/** Codes of core's and the server's typed errors (ARCHITECTURE "Errors"). */
const STATUS_BY_CODE: Record<string, number> = {
  MISSING_REQUIRED_PARAMETER: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ORG_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
};

/** Seconds a client should wait before retrying while the store is unreachable. */
const STORE_RETRY_AFTER_SECONDS = 5;

/** Fastify's own request errors, renamed into the API's vocabulary. */
const FASTIFY_ERRORS: Record<string, { statusCode: number; code: string; message: string; errors?: FieldIssue[] }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than 1 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    statusCode: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Request bodies must be JSON (Content-Type: application/json)',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    statusCode: 400,
    code: 'MISSING_REQUIRED_PARAMETER',
    message: 'Request body is empty',
    errors: [{ field: 'body', message: 'is required' }],
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    statusCode: 400,
    code: 'MISSING_REQUIRED_PARAMETER',
    message: 'Request body is not valid JSON',
    errors: [{ field: 'body', message: 'must be valid JSON' }],
  },
  FST_ERR_BAD_URL: {
    statusCode: 400,
    code: 'MISSING_REQUIRED_PARAMETER',
    message: 'The request path is not valid percent-encoded UTF-8',
    errors: [{ field: 'path', message: 'must be valid percent-encoded UTF-8' }],
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    statusCode: 400,
    code: 'MISSING_REQUIRED_PARAMETER',
    message: 'Request body size does not match Content-Length',
  },
};

const GENERIC_4XX: Record<number, { code: string; message: string }> = {
  400: { code: 'MISSING_REQUIRED_PARAMETER', message: 'Malformed request' },
  404: { code: 'ORG_NOT_FOUND', message: 'Resource not found' },
  403: { code: 'FORBIDDEN', message: 'Forbidden' },
  405: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' },
  410: { code: 'GONE', message: 'Gone' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than 1 MiB' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Request bodies must be JSON (Content-Type: application/json)' },
};

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  statusCode?: unknown;
  allowed?: unknown;
}

/** Headers that go with a typed error's status. */
function headersFor(status: number, error: ErrorLike): Record<string, string> {
  if (status === 401) return { 'www-authenticate': 'Bearer realm="herald"' };
  if (status === 405 && Array.isArray(error.allowed)) return { allow: error.allowed.map(String).join(', ') };
  return {};
}

function isFieldIssueList(value: unknown): value is FieldIssue[] {
  return Array.isArray(value) && value.every((item) => typeof item?.field === 'string' && typeof item?.message === 'string');
}

export function toErrorReply(error: unknown, requestId: string): ErrorReply {
  if (isStoreUnavailable(error)) {
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    return {
      statusCode: 503,
      headers: { 'retry-after': String(typeof retryAfter === 'number' ? retryAfter : STORE_RETRY_AFTER_SECONDS) },
      body: { status: 'error', code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable; retry shortly' },
    };
  }
  const candidate = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  const code = typeof candidate.code === 'string' ? candidate.code : undefined;

  const typedStatus = code ? STATUS_BY_CODE[code] : undefined;
  if (code && typedStatus) {
    const body: ErrorBody = { status: 'error', code, message: typeof candidate.message === 'string' ? candidate.message : code };
    if (isFieldIssueList(candidate.errors) && candidate.errors.length > 0) {
      body.errors = candidate.errors.map(({ field, message }) => ({ field, message }));
    }
    return { statusCode: typedStatus, headers: headersFor(typedStatus, candidate), body };
  }

  const fastifyError = code ? FASTIFY_ERRORS[code] : undefined;
  if (fastifyError) {
    const { statusCode, ...rest } = fastifyError;
    return { statusCode, headers: {}, body: { status: 'error', ...rest } };
  }

  const statusCode = typeof candidate.statusCode === 'number' ? candidate.statusCode : 500;
  const generic = GENERIC_4XX[statusCode];
  if (statusCode >= 400 && statusCode < 500) {
    // Every answer is one the error catalog lists (docs/server.md): a client error of a status it
    // does not list (a plugin's 416, say) is answered as the malformed request it is.
    if (!generic) return { statusCode: 400, headers: {}, body: { status: 'error', ...GENERIC_4XX[400]! } };
    return { statusCode, headers: {}, body: { status: 'error', code: generic.code, message: generic.message } };
  }
  return {
    statusCode: 500,
    headers: {},
    body: { status: 'error', code: 'INTERNAL_SERVER_ERROR', message: `Internal server error (request id ${requestId})` },
  };
}
