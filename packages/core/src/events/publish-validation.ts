// Publish input rules (DECISIONS §2, §5), for one event and for an item of a batch. Pure apart from
// the catalog's compiled schemas.
import { ValidationError, type FieldIssue } from '../shared/errors.js';
import { PUBLISH_BATCH_LIMITS, PUBLISH_LIMITS, type PublishEventInput } from '../schemas/index.js';
import { checkFields, isPlainObject, stringCheck, type Check } from '../validation/fields.js';
import type { Catalog } from '../model/catalog.js';
import { isOperationalEventType, isValidEventType, OPERATIONAL_FAMILY } from '../rules/matching.js';

const checkEventType: Check = (value) => {
  if (typeof value !== 'string' || !isValidEventType(value)) return 'must be "family.action" with segments of a-z, 0-9, _';
  return isOperationalEventType(value) ? `the "${OPERATIONAL_FAMILY}" family is reserved for Herald's own events` : undefined;
};

const checkAggregate = stringCheck({ min: 1, max: PUBLISH_LIMITS.aggregateMax });

const checkOccurredAt: Check = (value) => {
  // RFC 3339 date-time with an explicit offset, as JSON Schema's `date-time` format requires.
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value)) {
    return 'must be an RFC 3339 date-time, e.g. 2024-01-31T12:00:00Z';
  }
  return Number.isNaN(Date.parse(value)) ? 'is not a valid date' : undefined;
};

/** Nesting deeper than this in `data` is refused (a guard against pathological payloads). */
export const DATA_MAX_DEPTH = 32;

/**
 * `data` is any JSON object — keys with dots or `$`, arrays of arrays — kept as its JSON text. What
 * JSON text cannot carry faithfully is refused with the path: numbers that are not finite (1e400
 * parses to Infinity, which JSON would turn into null), NUL characters, lone surrogates, and nesting
 * beyond DATA_MAX_DEPTH.
 */
export function dataIssues(value: unknown, path = 'data', depth = 0): FieldIssue[] {
  if (depth > DATA_MAX_DEPTH) return [{ field: path, message: `is nested more than ${DATA_MAX_DEPTH} levels deep` }];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ field: path, message: 'must be a finite number' }];
  if (typeof value === 'string') return textIssue(value, path, 'must not contain NUL characters or unpaired surrogates');
  if (Array.isArray(value)) return value.flatMap((item, index) => dataIssues(item, `${path}[${index}]`, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      ...textIssue(key, `${path}.${key}`, 'has a key with a NUL character or an unpaired surrogate'),
      ...dataIssues(item, `${path}.${key}`, depth + 1),
    ]);
  }
  return [];
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textIssue(text: string, field: string, message: string): FieldIssue[] {
  return text.includes('\u0000') || LONE_SURROGATE.test(text) ? [{ field, message }] : [];
}

const checkData: Check = (value) => (isPlainObject(value) ? undefined : 'must be a JSON object');

function sensitiveIssues(value: unknown): FieldIssue[] {
  if (!Array.isArray(value)) return [{ field: 'sensitive', message: 'must be an array of field names' }];
  if (value.length > PUBLISH_LIMITS.sensitiveMax) {
    return [{ field: 'sensitive', message: `must have at most ${PUBLISH_LIMITS.sensitiveMax} entries` }];
  }
  return value.flatMap((name: unknown, index) =>
    typeof name === 'string' && name.length > 0 ? [] : [{ field: `sensitive[${index}]`, message: 'must be a non-empty string' }],
  );
}

export interface ValidPublish {
  input: PublishEventInput;
  /** Catalog's sensitive fields plus the caller's, unique. */
  sensitiveNames: string[];
}

export function validatePublishInput(input: unknown, catalog: Catalog): ValidPublish {
  if (!isPlainObject(input)) throw ValidationError.single('body', 'must be a JSON object');
  const issues = checkFields(
    input,
    {
      eventType: checkEventType,
      aggregateType: checkAggregate,
      aggregateId: checkAggregate,
      data: checkData,
      sensitive: () => undefined, // item by item below
      occurredAt: checkOccurredAt,
    },
    ['eventType', 'aggregateId', 'data'],
  );
  if (input.sensitive !== undefined) issues.push(...sensitiveIssues(input.sensitive));
  if (issues.length === 0) issues.push(...dataIssues(input.data).slice(0, 20));
  if (issues.length === 0) {
    issues.push(...catalog.dataIssues(input.eventType as string, input.data as Record<string, unknown>));
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const valid = input as PublishEventInput;
  return {
    input: valid,
    sensitiveNames: [...new Set([...catalog.sensitiveFieldsOf(valid.eventType), ...(valid.sensitive ?? [])])],
  };
}

/** An Idempotency-Key's bounds, the same whether it comes as publish's option or a batch item's field. */
export function idempotencyKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return 'must be a string';
  return key.length === 0 || key.length > PUBLISH_BATCH_LIMITS.idempotencyKeyMax ? `must be 1–${PUBLISH_BATCH_LIMITS.idempotencyKeyMax} characters` : undefined;
}

export interface ValidPublishItem extends ValidPublish {
  idempotencyKey: string | undefined;
}

/** One item of publishMany: the publish input plus its own `idempotencyKey`, all issues at once. */
export function validatePublishItem(item: unknown, catalog: Catalog): ValidPublishItem {
  if (!isPlainObject(item)) throw ValidationError.single('event', 'must be a JSON object');
  const { idempotencyKey, ...input } = item;
  const keyProblem = idempotencyKey === undefined ? undefined : idempotencyKeyProblem(idempotencyKey);
  try {
    const valid = validatePublishInput(input, catalog);
    if (keyProblem !== undefined) throw ValidationError.single('idempotencyKey', keyProblem);
    return { ...valid, idempotencyKey: idempotencyKey as string | undefined };
  } catch (error) {
    if (keyProblem === undefined || !(error instanceof ValidationError) || error.errors.some((issue) => issue.field === 'idempotencyKey')) throw error;
    throw new ValidationError([{ field: 'idempotencyKey', message: keyProblem }, ...error.errors]);
  }
}
