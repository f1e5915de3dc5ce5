// Trying a payload filter on the org's most recent events before saving it (the console's filter
// editor). One read of at most FILTER_PREVIEW_MAX events, newest first; each is judged exactly as
// fan-out would judge it (event-type patterns, then the filter over the public data only).
import type { CoreContext } from '../context.js';
import { ValidationError } from '../shared/errors.js';
import { checkFilter, compileFilter, type PayloadFilter } from '../rules/filter.js';
import { keysMatch, matchKeysFor } from '../rules/matching.js';
import { FILTER_PREVIEW_MAX, type WebhookFilterPreview } from '../schemas/index.js';
import type { EventDocument } from '../storage/documents.js';
import { EVENT_LIST_ORDER } from '../storage/indexes.js';
import { normaliseSubscriberRequest } from '../validation/subscriber-input.js';
import { isPlainObject } from '../validation/fields.js';
import { validateSubscriberUpdate } from './validation.js';

type Preview = Pick<EventDocument, '_id' | 'eventType' | 'aggregateType' | 'aggregateId' | 'occurredAt' | 'data'>;

export async function previewFilter(context: CoreContext, orgId: string, input: unknown, sensitive: ReadonlySet<string>): Promise<WebhookFilterPreview> {
  if (!isPlainObject(input)) throw ValidationError.single('body', 'must be a JSON object');
  const { filter, events: patterns, ...rest } = input;
  if (filter === undefined) throw ValidationError.single('filter', 'is required');
  // The same rules as a subscriber's filter and patterns, and the same path names in errors.
  const issues = [...checkFilter(filter, sensitive), ...Object.keys(rest).map((field) => ({ field, message: 'is not a known field' }))];
  if (issues.length > 0) throw new ValidationError(issues);
  const valid = normaliseSubscriberRequest(validateSubscriberUpdate(patterns === undefined ? {} : { events: patterns }));
  const matchKeys = matchKeysFor(valid.events ?? []);
  const test = compileFilter(filter as PayloadFilter);
  const recent = await context.collections.events
    .find({ orgId }, { projection: { eventType: 1, aggregateType: 1, aggregateId: 1, occurredAt: 1, data: 1 } })
    .sort(EVENT_LIST_ORDER)
    .limit(FILTER_PREVIEW_MAX)
    .toArray();
  const list = (recent as Preview[]).map((event) => ({
    eventId: event._id,
    eventType: event.eventType,
    aggregateType: event.aggregateType,
    aggregateId: event.aggregateId,
    occurredAt: event.occurredAt.toISOString(),
    matches:
      keysMatch(matchKeys, event.eventType) &&
      test({ type: event.eventType, aggregateType: event.aggregateType, aggregateId: event.aggregateId, occurredAt: event.occurredAt, data: JSON.parse(event.data) as Record<string, unknown> }),
  }));
  return { list, matching: list.filter((event) => event.matches).length };
}
