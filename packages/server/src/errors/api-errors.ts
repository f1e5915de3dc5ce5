// The errors the server adds to core's typed errors (ValidationError, NotFoundError, ConflictError,
// ForbiddenError): 401, 405 and 415. Mapped to HTTP in errors/error-reply.ts like the others.
import { HeraldError } from '@herald/core';

/** Missing, malformed, unknown, revoked or expired credentials → 401 + `WWW-Authenticate: Bearer`. */
export class UnauthorizedError extends HeraldError {
  constructor(message = 'Missing or invalid access token') {
    super('UNAUTHORIZED', message);
  }
}

/** A known path asked with a method none of its routes declares → 405 + `Allow`. */
export class MethodNotAllowedError extends HeraldError {
  readonly allowed: readonly string[];
  constructor(method: string, allowed: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; allowed: ${allowed.join(', ')}`);
    this.allowed = allowed;
  }
}

/** A body in a media type or charset the API does not read → 415. */
export class UnsupportedMediaTypeError extends HeraldError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

/** Something that existed is no longer usable (a spent or expired portal link) → 410. */
export class GoneError extends HeraldError {
  constructor(message: string) {
    super('GONE', message);
  }
}
