// What `herald webhooks listen` accepts, checked before anything is sent. Pure.
import { usageError } from '../errors.js';

const SEGMENT = '[a-z0-9_]+';
/** The server's pattern rule (core rules/matching.ts), repeated so a typo fails before connecting. */
const PATTERN = new RegExp(`^(?:\\*|${SEGMENT}\\.${SEGMENT}|${SEGMENT}\\.\\*|\\*\\.${SEGMENT})$`);

export function checkForwardTo(raw: string | undefined, hint: string): string {
  if (raw === undefined) throw usageError('MISSING_FLAG', '--forward-to is required (the local URL deliveries are POSTed to)', hint);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError('INVALID_FLAG_VALUE', `--forward-to "${raw}" is not an absolute URL (e.g. http://localhost:3000/hooks)`, hint);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError('INVALID_FLAG_VALUE', `--forward-to must be an http:// or https:// URL, not ${url.protocol}`, hint);
  }
  if (url.username !== '' || url.password !== '') throw usageError('INVALID_FLAG_VALUE', '--forward-to must not contain user info', hint);
  return url.href;
}

export function checkEventPatterns(values: readonly string[], hint: string): string[] {
  const patterns = values.flatMap((value) => value.split(',')).map((pattern) => pattern.trim());
  for (const pattern of patterns) {
    if (!PATTERN.test(pattern)) {
      throw usageError('INVALID_FLAG_VALUE', `--events "${pattern}" must be "family.action", "family.*", "*.action" or "*" (segments of a-z, 0-9, _)`, hint);
    }
  }
  return patterns.length === 0 ? ['*'] : [...new Set(patterns)];
}
