// What the subscriber schemas cannot say: the one spelling a target URL is stored in, and the
// duplicate event patterns that add nothing. Pure; shapes and bounds are checked before (schemas).
import { ValidationError, type FieldIssue } from '../shared/errors.js';
import { SUBSCRIBER_LIMITS } from '../schemas/subscribers.js';
import { ILL_FORMED_TEXT_MESSAGE, isWellFormedText } from './text.js';

export type TargetUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/** `scheme://` spelled out: WHATWG URL would otherwise read `http:/h` and `http:h` as `http://h/`. */
const ABSOLUTE_HTTP = /^https?:\/\//i;
/** The authority ends at the first of these; WHATWG treats `\` like `/` in http(s) URLs. */
const AUTHORITY_END = /[/?#\\]/;
/** C0 controls, space and DEL, which WHATWG URL would silently strip or percent-encode. */
function hasSpaceOrControl(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Checks a target URL and returns it as WHATWG URL serializes it (lowercase scheme and host,
 * internationalized hosts in punycode, default port dropped, `/` path when empty, dot segments
 * resolved) with the host's trailing dot dropped, so equal URLs are stored equally. Refused: anything but absolute `http://` or `https://` with a host; user info, even an
 * empty `:@` that the parser would silently drop (credentials belong in the secret, not in URLs
 * that end up in logs); port 0, which nothing listens on; a fragment, which is never sent.
 */
export function checkTargetUrl(raw: string): TargetUrlCheck {
  const refuse = (message: string): TargetUrlCheck => ({ ok: false, message });
  if (!isWellFormedText(raw)) return refuse(ILL_FORMED_TEXT_MESSAGE);
  if (!ABSOLUTE_HTTP.test(raw)) return refuse('must be an absolute http:// or https:// URL');
  if (hasSpaceOrControl(raw)) return refuse('must not contain spaces or control characters');
  if (raw.includes('\\')) return refuse('must not contain backslashes');
  if (raw.includes('#')) return refuse('must not have a fragment (#…)');
  const rest = raw.slice(raw.indexOf('//') + 2);
  const endOfAuthority = rest.search(AUTHORITY_END);
  const authority = endOfAuthority === -1 ? rest : rest.slice(0, endOfAuthority);
  if (authority.includes('@')) return refuse('must not contain user info (user:password@)');
  if (authority === '') return refuse('must name a host');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute URL with a valid host and port');
  }
  if (url.hostname === '') return refuse('must name a host');
  // `example.com.` is the same host as `example.com` (the root label made explicit): one spelling
  // is stored. Any other empty label (`a..b`, `.a`, `a..`) names no host at all.
  if (url.hostname.endsWith('.')) url.hostname = url.hostname.slice(0, -1);
  if (url.hostname.split('.').some((label) => label === '')) return refuse('must not have an empty label in its host (a..b)');
  if (url.port === '0') return refuse('must not use port 0');
  if (url.href.length > SUBSCRIBER_LIMITS.targetUrlMax) return refuse(`must be at most ${SUBSCRIBER_LIMITS.targetUrlMax} characters`);
  return { ok: true, url: url.href };
}

/** The patterns in first-seen order, each once: a repeated pattern matches nothing more. */
export function uniqueEventPatterns(patterns: readonly string[]): string[] {
  return [...new Set(patterns)];
}

/**
 * A create or update body, already valid against its schema, as it is stored: `targetUrl`
 * normalized, `events` without duplicates. Throws a ValidationError naming `targetUrl` otherwise.
 */
export function normaliseSubscriberRequest<T extends { targetUrl?: string; events?: string[] }>(input: T): T {
  const issues: FieldIssue[] = [];
  const normalised: T = { ...input };
  if (input.targetUrl !== undefined) {
    const checked = checkTargetUrl(input.targetUrl);
    if (checked.ok) normalised.targetUrl = checked.url;
    else issues.push({ field: 'targetUrl', message: checked.message });
  }
  if (input.events !== undefined) normalised.events = uniqueEventPatterns(input.events);
  if (issues.length > 0) throw new ValidationError(issues);
  return normalised;
}
