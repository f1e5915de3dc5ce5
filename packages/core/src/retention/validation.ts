// Retention policy input (pure): returns the typed input or throws a ValidationError naming every
// offending field, as the HTTP API's schema would.
import { ValidationError, type FieldIssue } from '../shared/errors.js';
import { EVENT_TYPE_PATTERN, PUBLISH_LIMITS } from '../schemas/events.js';
import { RETENTION_LIMITS, type WebhookRetentionPolicyRequest } from '../schemas/retention.js';
import { checkFields, integerCheck, isPlainObject } from '../validation/fields.js';

const EVENT_TYPE = new RegExp(EVENT_TYPE_PATTERN);
const checkDays = integerCheck(0, RETENTION_LIMITS.daysMax);

function byEventTypeIssues(value: unknown): FieldIssue[] {
  if (!isPlainObject(value)) return [{ field: 'byEventType', message: 'must be an object of event type → days' }];
  const entries = Object.entries(value);
  if (entries.length > RETENTION_LIMITS.eventTypesMax) return [{ field: 'byEventType', message: `must name at most ${RETENTION_LIMITS.eventTypesMax} event types` }];
  const issues: FieldIssue[] = [];
  for (const [type, days] of entries) {
    const field = `byEventType.${type}`;
    if (type.length > PUBLISH_LIMITS.eventTypeMax || !EVENT_TYPE.test(type)) issues.push({ field, message: 'must be an event type (`family.action`, lowercase letters, digits and `_`)' });
    const message = checkDays(days);
    if (message !== undefined) issues.push({ field, message });
  }
  return issues;
}

export function validateRetentionInput(input: unknown): WebhookRetentionPolicyRequest {
  if (!isPlainObject(input)) throw ValidationError.single('body', 'must be a JSON object');
  const issues = checkFields(input, { settledEventsDays: checkDays, byEventType: () => undefined });
  if (input.byEventType !== undefined) issues.push(...byEventTypeIssues(input.byEventType));
  if (issues.length > 0) throw new ValidationError(issues);
  return input as WebhookRetentionPolicyRequest;
}
