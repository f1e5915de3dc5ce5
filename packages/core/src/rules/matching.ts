// Event types, filter patterns and the match keys (DECISIONS §5). Pure.
//
// A subscriber's filter patterns are reduced to match keys stored on its own document
// (`matchKeys`), and an event `f.a` is matched by the subscribers carrying one of its four candidate
// keys `f.a`, `f.*`, `*.a`, `*` (storage/match-index.ts). The subscriber document is the only
// record of what it receives: nothing derived from it is stored apart, so concurrent subscriber
// writes cannot leave a second copy behind that disagrees with it.

const SEGMENT = '[a-z0-9_]+';
const EVENT_TYPE = new RegExp(`^${SEGMENT}\\.${SEGMENT}$`);
const FAMILY_WILDCARD = new RegExp(`^${SEGMENT}\\.\\*$`);
const ACTION_WILDCARD = new RegExp(`^\\*\\.${SEGMENT}$`);

export const MATCH_ALL = '*';

/**
 * The family of Herald's own operational events (model/operational.ts). Only patterns naming it
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
