// Which subscribers receive an event: one query on the subscribers themselves, by org, enabled and
// the event's candidate match keys (rules/matching.ts). MongoDB serves it from the multikey index
// `org_enabled_match_keys`, so its cost follows the matches, not the org's subscribers. Publishers
// cache its answer per org and event type (model/subscriber-directory.ts), so it runs only after a
// subscriber of the org changed.
import { candidateKeysFor, keysMatch } from '../rules/matching.js';
import type { Collections } from './collections.js';
import type { SubscriberDocument } from './documents.js';

export const MATCH_INDEX = { key: { orgId: 1, enabled: 1, matchKeys: 1 }, name: 'org_enabled_match_keys' } as const;

/** The filter of the matching query (test/matching-scale.test.ts checks its plan against MATCH_INDEX). */
export function matchingFilter(orgId: string, eventType: string) {
  return { orgId, enabled: true, matchKeys: { $in: candidateKeysFor(eventType) } };
}

/** The enabled subscribers of `orgId` whose filter matches `eventType`, by internal id. */
export async function findMatchingSubscribers(collections: Collections, orgId: string, eventType: string): Promise<SubscriberDocument[]> {
  const documents = await collections.subscribers.find(matchingFilter(orgId, eventType)).toArray();
  // `*` and `*.action` are candidates of every family but Herald's own (rules/matching.ts); the
  // pattern check keeps that rule in one place whatever the query returned.
  return documents
    .filter((document) => keysMatch(document.matchKeys, eventType))
    .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}
