// Subscriber input rules of DECISIONS §3. Pure: returns the typed input or throws a ValidationError
// naming every offending field.
import { ValidationError, type FieldIssue } from '../shared/errors.js';
import { checkFilter } from '../rules/filter.js';
import { isValidEventPattern } from '../rules/matching.js';
import {
  EGRESS_PROXY_NAME_PATTERN,
  EVENTS_EMPTY_MESSAGE,
  HANDLE_PATTERN,
  SUBSCRIBER_LIMITS as LIMITS,
  type OAuth2Input,
  type WebhookSubscriberCreateRequest,
  type WebhookSubscriberUpdateRequest,
} from '../schemas/index.js';
import { booleanCheck, checkFields, integerCheck, isPlainObject, stringCheck, type Check } from '../validation/fields.js';
import { clientTlsIssues } from '../validation/client-tls.js';
import { normaliseOAuth2, oauth2Issues } from '../validation/oauth2.js';
import { checkTargetUrl, normaliseSubscriberRequest } from '../validation/subscriber-input.js';

const HANDLE = new RegExp(HANDLE_PATTERN);

const checkEgressProxy = stringCheck({
  max: 63,
  pattern: new RegExp(EGRESS_PROXY_NAME_PATTERN),
  patternHint: 'must be the name of a configured egress proxy (1–63 of a-z, 0-9, "-") or "none"; proxy URLs are operator configuration',
});

/** A stored name must be one this host knows, so that a typo is refused rather than failing every attempt. */
export function checkEgressProxyConfigured(value: string | null | undefined, configured: ReadonlySet<string> = new Set(['none'])): void {
  if (typeof value !== 'string' || configured.has(value)) return;
  const names = [...configured].map((name) => `"${name}"`).join(', ');
  throw ValidationError.single('egressProxy', `no egress proxy named "${value}" is configured; the names are ${names}`);
}

export const checkHandle = stringCheck({
  pattern: HANDLE,
  patternHint: 'must be 1–128 characters of letters, digits, ".", "_" or "-", starting with a letter or digit',
});

const checkDisplayName: Check = (value) => {
  const message = stringCheck({ min: 1, max: LIMITS.displayNameMax })(value);
  if (message !== undefined) return message;
  return (value as string).trim() === '' ? 'must not be blank' : undefined;
};

/** The one URL rule (validation/subscriber-input.ts), as a field check. */
const checkTarget: Check = (value) => {
  if (typeof value !== 'string') return 'must be a string';
  const checked = checkTargetUrl(value);
  return checked.ok ? undefined : checked.message;
};

const checkRate: Check = (value) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
  if (value <= 0) return 'must be greater than 0';
  return value > LIMITS.rateLimitPerSecondMax ? `must be at most ${LIMITS.rateLimitPerSecondMax}` : undefined;
};
/** On update, null returns a limit to its default. */
const orNull = (check: Check): Check => (value) => (value === null ? undefined : check(value));

const checkCreateSecret = stringCheck({ min: LIMITS.secretMin, max: LIMITS.secretMax });
const checkUpdateSecret: Check = (value) => (value === '' ? undefined : checkCreateSecret(value));

function eventsIssues(value: unknown): FieldIssue[] {
  if (!Array.isArray(value)) return [{ field: 'events', message: 'must be an array of event patterns' }];
  // An empty list reads as "nothing" but would receive everything: "all" is said with "*".
  if (value.length === 0) return [{ field: 'events', message: EVENTS_EMPTY_MESSAGE }];
  if (value.length > LIMITS.eventsMax) return [{ field: 'events', message: `must have at most ${LIMITS.eventsMax} entries` }];
  const issues: FieldIssue[] = [];
  value.forEach((pattern: unknown, index) => {
    if (typeof pattern !== 'string' || !isValidEventPattern(pattern)) {
      issues.push({
        field: `events[${index}]`,
        message: 'must be "family.action", "family.*", "*.action" or "*" (segments of a-z, 0-9, _)',
      });
    }
  });
  return issues;
}

const commonChecks = {
  id: checkHandle,
  displayName: checkDisplayName,
  targetUrl: checkTarget,
  enabled: booleanCheck,
  timeoutMs: integerCheck(LIMITS.timeoutMsMin, LIMITS.timeoutMsMax),
  maxConcurrency: integerCheck(1, LIMITS.maxConcurrencyMax),
  rateLimitPerSecond: checkRate,
  egressProxy: checkEgressProxy,
  ordering: (value: unknown) => (value === 'aggregate' || value === 'none' ? undefined : 'must be "aggregate" or "none"'),
  // Checked item by item below, so that each bad pattern is named.
  events: () => undefined,
  // Checked below, naming the path inside the filter.
  filter: () => undefined,
  // Checked below, naming the offending part.
  tls: () => undefined,
  oauth2: () => undefined,
};

interface ValidateOptions {
  required: readonly string[];
  sensitive: ReadonlySet<string>;
  /** On update, null removes filter, tls and oauth2. */
  nullable: boolean;
  /** Certificates must be valid at this time. */
  now: Date;
}

function validate(input: unknown, checks: Record<string, Check>, { required, sensitive, nullable, now }: ValidateOptions): Record<string, unknown> {
  if (!isPlainObject(input)) throw ValidationError.single('body', 'must be a JSON object');
  const issues = checkFields(input, checks, required);
  if (input.events !== undefined) issues.push(...eventsIssues(input.events));
  if (input.filter !== undefined && !(nullable && input.filter === null)) issues.push(...checkFilter(input.filter, sensitive));
  if (input.tls !== undefined && !(nullable && input.tls === null)) issues.push(...clientTlsIssues(input.tls, now));
  if (input.oauth2 !== undefined && !(nullable && input.oauth2 === null)) issues.push(...oauth2Issues(input.oauth2));
  if (issues.length > 0) throw new ValidationError(issues);
  return input;
}

/** `sensitive`: the data fields the catalog declares sensitive, which a filter may not read. */
export function validateSubscriberCreate(input: unknown, sensitive: ReadonlySet<string> = new Set(), now = new Date()): WebhookSubscriberCreateRequest {
  const valid = validate(input, { ...commonChecks, secret: checkCreateSecret }, { required: ['displayName', 'targetUrl'], sensitive, nullable: false, now });
  // Embedders get the same stored spelling as the HTTP API: normalised URL, each pattern once.
  const request = withOAuth2Normalised(normaliseSubscriberRequest(valid as WebhookSubscriberCreateRequest));
  // Omitted means every event (DECISIONS §3); stored as the pattern that says so, so that what a
  // read returns can be sent back as it is.
  return request.events === undefined ? { ...request, events: ['*'] } : request;
}

/** As validateSubscriberCreate; `filter: null` removes the filter, `tls: null` the client certificate, `oauth2: null` the credentials. */
export function validateSubscriberUpdate(input: unknown, sensitive: ReadonlySet<string> = new Set(), now = new Date()): WebhookSubscriberUpdateRequest {
  const valid = validate(
    input ?? {},
    { ...commonChecks, secret: checkUpdateSecret, maxConcurrency: orNull(commonChecks.maxConcurrency), rateLimitPerSecond: orNull(checkRate), egressProxy: orNull(checkEgressProxy) },
    { required: [], sensitive, nullable: true, now },
  );
  return withOAuth2Normalised(normaliseSubscriberRequest(valid as WebhookSubscriberUpdateRequest));
}

/** The token URL in the target URL's one stored spelling. */
function withOAuth2Normalised<T extends { oauth2?: OAuth2Input | null | undefined }>(request: T): T {
  return request.oauth2 ? { ...request, oauth2: normaliseOAuth2(request.oauth2) } : request;
}

/** The subscriberId path parameter: anything that is not a possible handle cannot exist. */
export function isPossibleHandle(value: string): boolean {
  return HANDLE.test(value);
}
