// Typed errors with the spec's stable codes. The server maps each code to an HTTP status once.
// Messages never contain secrets or sensitive values.

export interface FieldIssue {
  field: string;
  message: string;
}

export class HeraldError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Malformed or missing input → 400 MISSING_REQUIRED_PARAMETER, with field details. */
export class ValidationError extends HeraldError {
  readonly errors: FieldIssue[];
  constructor(errors: FieldIssue[], message = 'Some fields in the payload are missing or invalid') {
    super('MISSING_REQUIRED_PARAMETER', message);
    this.errors = errors;
  }
  static single(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

/** The spec uses ORG_NOT_FOUND for every missing resource → 404. */
export class NotFoundError extends HeraldError {
  constructor(message = 'Resource not found') {
    super('ORG_NOT_FOUND', message);
  }
}

export class ConflictError extends HeraldError {
  constructor(message = 'The request conflicts with an existing resource') {
    super('CONFLICT', message);
  }
}

export class ForbiddenError extends HeraldError {
  constructor(message = 'Forbidden') {
    super('FORBIDDEN', message);
  }
}

/** Invalid configuration (e.g. a secret to store but no master key). Raised at startup or on the offending call. */
export class ConfigError extends HeraldError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

export function isHeraldError(error: unknown): error is HeraldError {
  return error instanceof HeraldError;
}
