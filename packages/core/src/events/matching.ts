// Event types, filter patterns and the matching keys (DECISIONS §5). Pure.
//
// Why buckets keyed by `_id` and not a multikey index `{orgId, enabled, matchKeys}`:
// - MongoDB serves an `_id` equality from the `_id` index on every deployment, and so the work of
//   matching an event is proportional to the matches, never to the number of subscribers.
// - FerretDB v1 (SQLite), the test and dev database, pushes no filter down to storage except an
//   `_id` equality (`explain` reports filterPushdown=false for every other shape, including `$in`
//   on `_id` and the multikey query above), and without pushdown it decodes every document of the
//   collection. With pushdown only the matching documents are decoded. (Measured: SQLite still
//   scans the table for the `_id` comparison, so lookups there grow with the collection; FerretDB
//   v1 uses no index for queries at all.)
// So a filter pattern is reduced to a match key, the key names a bucket document `<org>|<key>`
// holding the ids of the enabled subscribers with that key, and an event `f.a` reads the buckets
// of its four candidate keys `f.a`, `f.*`, `*.a`, `*` — then those subscribers by `_id`.

const SEGMENT = '[a-z0-9_]+';
const EVENT_TYPE = new RegExp(`^${SEGMENT}\\.${SEGMENT}$`);
const FAMILY_WILDCARD = new RegExp(`^${SEGMENT}\\.\\*$`);
const ACTION_WILDCARD = new RegExp(`^\\*\\.${SEGMENT}$`);

export const MATCH_ALL = '*';

/**
 * The family of Herald's own operational events (events/operational.ts). Only patterns naming it
 * (`herald.*`, `herald.action`) receive them: `*` and `*.action` never do, so a subscriber that
 * asked for "everything" does not start receiving Herald's own notices. Callers cannot publish it.
 */
export const OPERATIONAL_FAMILY = 'herald';

export function isOperationalEventType(eventType: string): boolean {
  return eventType.startsWith(`${OPERATIONAL_FAMILY}.`);
}

export function isValidEventType(value: string): boolean {
  return EVENT_TYPE.test(value);
}

/** Exact `family.action`, `family.*`, `*.action` or `*`. */
export function isValidEventPattern(value: string): boolean {
  return value === MATCH_ALL || EVENT_TYPE.test(value) || FAMILY_WILDCARD.test(value) || ACTION_WILDCARD.test(value);
}

/**
 * The keys under which a subscriber with this filter is indexed: each pattern is its own key;
 * an empty filter (or one containing `*`) means every event and collapses to `*` (plus any
 * `herald.` patterns, which `*` does not cover). Sorted, unique.
 */
export function matchKeysFor(events: readonly string[]): string[] {
  if (events.length === 0) return [MATCH_ALL];
  // `*` covers every pattern but Herald's own family, whose patterns are kept beside it.
  if (events.includes(MATCH_ALL)) return [MATCH_ALL, ...new Set(events.filter((pattern) => pattern.startsWith(`${OPERATIONAL_FAMILY}.`)))].sort();
  return [...new Set(events)].sort();
}

/** The keys a subscriber must carry to receive an event of this type. */
export function candidateKeysFor(eventType: string): string[] {
  const dot = eventType.indexOf('.');
  const family = eventType.slice(0, dot);
  const action = eventType.slice(dot + 1);
  if (family === OPERATIONAL_FAMILY) return [eventType, `${family}.*`];
  return [eventType, `${family}.*`, `*.${action}`, MATCH_ALL];
}

export function patternMatches(pattern: string, eventType: string): boolean {
  const [patternFamily, patternAction] = pattern.split('.');
  const [family, action] = eventType.split('.');
  if (family === OPERATIONAL_FAMILY) return patternFamily === family && (patternAction === '*' || patternAction === action);
  if (pattern === MATCH_ALL) return true;
  return (patternFamily === '*' || patternFamily === family) && (patternAction === '*' || patternAction === action);
}

/** Whether a subscriber with these match keys receives an event of this type. */
export function keysMatch(matchKeys: readonly string[], eventType: string): boolean {
  return matchKeys.some((key) => patternMatches(key, eventType));
}

/** Bucket `_id`. The org is URI-encoded so a `|` in an org id cannot collide with the separator. */
export function matchBucketId(orgId: string, matchKey: string): string {
  return `${encodeURIComponent(orgId)}|${matchKey}`;
}
