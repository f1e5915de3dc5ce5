// The match buckets (see events/matching.ts): maintenance and lookup.
//
// No transactions, so the order of writes keeps one invariant: a bucket may hold a stale id, never
// miss one. Keys are added before the subscriber document says so and removed after; every read
// re-checks the subscriber documents it loads, so a stale id costs one lookup and nothing else.
import { candidateKeysFor, keysMatch, matchBucketId } from '../events/matching.js';
import { upsertWithRetry, type Collections } from '../storage/collections.js';
import type { SubscriberDocument } from '../storage/documents.js';

/** Above this many candidates one `$in` query beats one `_id` lookup per subscriber. */
const PER_ID_LOOKUP_MAX = 32;

export async function addToBuckets(collections: Collections, orgId: string, subscriberId: string, keys: readonly string[]): Promise<void> {
  await Promise.all(
    keys.map((matchKey) =>
      upsertWithRetry(() =>
        collections.matchBuckets.updateOne(
          { _id: matchBucketId(orgId, matchKey) },
          { $addToSet: { subscriberIds: subscriberId }, $setOnInsert: { orgId, matchKey } },
          { upsert: true },
        ),
      ),
    ),
  );
}

export async function removeFromBuckets(collections: Collections, orgId: string, subscriberId: string, keys: readonly string[]): Promise<void> {
  await Promise.all(
    keys.map((matchKey) =>
      collections.matchBuckets.updateOne({ _id: matchBucketId(orgId, matchKey) }, { $pull: { subscriberIds: subscriberId } }),
    ),
  );
}

/** The enabled subscribers of `orgId` whose filter matches `eventType`. */
export async function findMatchingSubscribers(collections: Collections, orgId: string, eventType: string): Promise<SubscriberDocument[]> {
  // One `_id` equality lookup per candidate key: the only query shape every server serves from an index.
  const buckets = await Promise.all(
    candidateKeysFor(eventType).map((matchKey) => collections.matchBuckets.findOne({ _id: matchBucketId(orgId, matchKey) })),
  );
  const ids = [...new Set(buckets.flatMap((bucket) => bucket?.subscriberIds ?? []))];
  if (ids.length === 0) return [];
  const documents =
    ids.length <= PER_ID_LOOKUP_MAX
      ? (await Promise.all(ids.map((id) => collections.subscribers.findOne({ _id: id })))).filter(
          (document): document is SubscriberDocument => document !== null,
        )
      : await collections.subscribers.find({ _id: { $in: ids } }).toArray();
  return documents
    .filter((document) => document.orgId === orgId && document.enabled && keysMatch(document.matchKeys, eventType))
    .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}
