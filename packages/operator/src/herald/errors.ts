// Errors of the Herald HTTP client. Messages carry the API's code and message, never a request body.

/** Herald answered with an error status (spec ErrorResponse, or the legacy `{message}` shape). */
export class HeraldApiError extends Error {
  override readonly name = 'HeraldApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: { field?: string; message?: string }[] = [],
  ) {
    super(message);
  }
}

/** Herald could not be reached (connect error, DNS, timeout) or answered 5xx/502-504 from a proxy. */
export class HeraldUnreachableError extends Error {
  override readonly name = 'HeraldUnreachableError';
}

export function isNotFound(error: unknown): boolean {
  return error instanceof HeraldApiError && error.status === 404;
}
