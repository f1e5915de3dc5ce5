// limit/offset rules of DECISIONS §3. Pure.
import { ValidationError } from '../shared/errors.js';
import { EVENT_STATUSES, OFFSET_MAX, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, type EventStatus } from '../schemas/index.js';
import { integerCheck } from './fields.js';

export interface PageWindow {
  limit: number;
  offset: number;
}

export function validatePageQuery(query: { limit?: unknown; offset?: unknown } = {}): PageWindow {
  const issues = [];
  const limitMessage = query.limit === undefined ? undefined : integerCheck(1, PAGE_LIMIT_MAX)(query.limit);
  if (limitMessage) issues.push({ field: 'limit', message: limitMessage });
  const offsetMessage = query.offset === undefined ? undefined : integerCheck(0, OFFSET_MAX)(query.offset);
  if (offsetMessage) issues.push({ field: 'offset', message: offsetMessage });
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    limit: (query.limit as number | undefined) ?? PAGE_LIMIT_DEFAULT,
    offset: (query.offset as number | undefined) ?? 0,
  };
}

/**
 * A page of a list that pages by cursor as well: `cursor` names where the page begins and stands in
 * for `offset`, so the two together are refused rather than one of them silently ignored.
 */
export function validateCursorPageQuery(query: { limit?: unknown; offset?: unknown; cursor?: unknown } = {}): PageWindow & { cursor?: unknown } {
  const window = validatePageQuery(query);
  if (query.cursor === undefined) return window;
  if (query.offset !== undefined) throw ValidationError.single('offset', 'cannot be combined with cursor: a cursor names where the page begins');
  return { ...window, cursor: query.cursor };
}

export function validateEventStatus(status: unknown): EventStatus | undefined {
  if (status === undefined) return undefined;
  if (typeof status === 'string' && (EVENT_STATUSES as readonly string[]).includes(status)) return status as EventStatus;
  throw ValidationError.single('status', `must be one of ${EVENT_STATUSES.join(', ')}`);
}
