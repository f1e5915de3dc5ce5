// The one error the server adds to core's typed errors (ValidationError, NotFoundError,
// ConflictError, ForbiddenError): 401. Mapped to HTTP in errors/error-reply.ts like the others.
import { HeraldError } from '@herald/core';

/** Missing, malformed, unknown, revoked or expired credentials → 401 + `WWW-Authenticate: Bearer`. */
export class UnauthorizedError extends HeraldError {
  constructor(message = 'Missing or invalid access token') {
    super('UNAUTHORIZED', message);
  }
}
