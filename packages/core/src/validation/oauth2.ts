// Checks a subscriber's OAuth2 client credentials before they are stored. Pure; messages never
// quote the client secret.
import { OAUTH2_LIMITS, type OAuth2Input } from '../schemas/index.js';
import type { FieldIssue } from '../shared/errors.js';
import { checkFields, isPlainObject, stringCheck, type Check } from './fields.js';
import { checkTargetUrl, type TargetUrlCheck } from './subscriber-input.js';

/** RFC 6749 Appendix A: client_id and client_secret are VSCHAR (printable ASCII, space included). */
const VSCHAR = /^[\x20-\x7e]+$/;
/** Scope tokens (NQCHAR) separated by single spaces; audience likewise printable ASCII. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/;
const PRINTABLE = /^[\x21-\x7e]+( [\x21-\x7e]+)*$/;

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The target URL's rules (one spelling, no user info, no fragment) plus https: the client secret
 * travels in this request, so it may go in clear only to this machine (a local token server).
 */
export function checkTokenUrl(raw: string): TargetUrlCheck {
  const checked = checkTargetUrl(raw);
  if (!checked.ok) return checked;
  const url = new URL(checked.url);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.test(url.hostname)) {
    return { ok: false, message: 'must be an https:// URL (http:// only to a loopback address): the client secret is sent to it' };
  }
  return checked;
}

const tokenUrlCheck: Check = (value) => {
  const shape = stringCheck({ min: 1, max: OAUTH2_LIMITS.tokenUrlMax })(value);
  if (shape !== undefined) return shape;
  const checked = checkTokenUrl(value as string);
  return checked.ok ? undefined : checked.message;
};

const patterned = (max: number, pattern: RegExp, patternHint: string): Check => stringCheck({ min: 1, max, pattern, patternHint });

const checks: Record<keyof OAuth2Input, Check> = {
  tokenUrl: tokenUrlCheck,
  clientId: patterned(OAUTH2_LIMITS.clientIdMax, VSCHAR, 'must be printable ASCII (RFC 6749 VSCHAR)'),
  // The hint names the rule, never the value.
  clientSecret: patterned(OAUTH2_LIMITS.clientSecretMax, VSCHAR, 'must be printable ASCII (RFC 6749 VSCHAR)'),
  scope: patterned(OAUTH2_LIMITS.scopeMax, SCOPE, 'must be scope tokens of printable ASCII (no " or \\) separated by single spaces'),
  audience: patterned(OAUTH2_LIMITS.audienceMax, PRINTABLE, 'must be printable ASCII, words separated by single spaces'),
  clientAuthentication: (value) => (value === 'basic' || value === 'body' ? undefined : 'must be "basic" or "body"'),
};

/** Every issue of `value` as an `oauth2` field (names are prefixed `oauth2.`). */
export function oauth2Issues(value: unknown): FieldIssue[] {
  if (!isPlainObject(value)) return [{ field: 'oauth2', message: 'must be an object with tokenUrl, clientId and clientSecret' }];
  return checkFields(value, checks, ['tokenUrl', 'clientId', 'clientSecret']).map((issue) => ({ ...issue, field: `oauth2.${issue.field}` }));
}

/** Input that oauth2Issues accepted, with the token URL in its one stored spelling. */
export function normaliseOAuth2(input: OAuth2Input): OAuth2Input {
  const checked = checkTokenUrl(input.tokenUrl);
  if (!checked.ok) throw new TypeError('normaliseOAuth2 needs input that oauth2Issues accepted');
  return { ...input, tokenUrl: checked.url };
}
