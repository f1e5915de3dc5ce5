// The payload filter of a subscriber, applied at fan-out to the event the publisher holds in
// memory. Compiled once per subscriber document: the directory caches documents per org revision,
// so a filter is parsed again only after its subscriber (or another of its org) changed.
import type { SubscriberDocument } from '../storage/documents.js';
import { compileFilter, type CompiledFilter, type PayloadFilter } from '../rules/filter.js';
import type { EventPayload } from '../model/payload.js';

const compiled = new WeakMap<SubscriberDocument, CompiledFilter>();

/** Whether the event passes the subscriber's payload filter (true without one). */
export function passesFilter(subscriber: SubscriberDocument, payload: EventPayload): boolean {
  if (subscriber.filter === undefined) return true;
  let test = compiled.get(subscriber);
  if (test === undefined) {
    test = compileFilter(JSON.parse(subscriber.filter) as PayloadFilter);
    compiled.set(subscriber, test);
  }
  // Only the public data: a sensitive value never decides a delivery (see checkFilter).
  return test({
    type: payload.eventType,
    aggregateType: payload.aggregateType,
    aggregateId: payload.aggregateId,
    occurredAt: payload.occurredAt,
    data: payload.split.publicData,
  });
}

/** The subscribers among `matched` (by event type) whose filter the event passes. */
export function filterSubscribers(matched: readonly SubscriberDocument[], payload: EventPayload): SubscriberDocument[] {
  return matched.some((subscriber) => subscriber.filter !== undefined) ? matched.filter((subscriber) => passesFilter(subscriber, payload)) : [...matched];
}
