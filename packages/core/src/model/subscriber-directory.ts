// Matching for publish, cached per org and checked against the org's subscriber revision: one `_id`
// read per publish instead of the matching query (storage/match-index.ts), which runs only
// when a subscriber of the org changed since it was cached.
//
// The revision is a fresh random token that every subscriber write sets after the write is complete
// (never a counter: a token needs no atomic read-modify-write, so two writers that overlap cannot
// leave a value behind that some process already cached under). A publish that reads token T sees
// every write completed before it: whichever write set T came after each of them in the store's
// order of writes to that one document, and entries cached under T were loaded after T was read.
// Exact across replicas, with no expiry to tune. The token has a document of its own, so no other
// writer (retention's policy lives in org_state) rewrites it.
import { randomUUID } from 'node:crypto';
import { upsertWithRetry, type Collections } from '../storage/collections.js';
import type { SubscriberDocument } from '../storage/documents.js';
import { findMatchingSubscribers } from '../storage/match-index.js';

/** Cached orgs and event types per org; beyond these the oldest go. */
const MAX_ORGS = 1_000;
const MAX_TYPES_PER_ORG = 1_000;

interface OrgEntry {
  revision: string;
  byType: Map<string, SubscriberDocument[]>;
}

/** Matches for one org under the revision read for it. */
export interface Matcher {
  readonly revision: string;
  /** The enabled subscribers whose filter matches `eventType` (no I/O while cached). */
  match(eventType: string): Promise<SubscriberDocument[]>;
  /** The matches held for `eventType` under this revision, without I/O; undefined when none are. */
  known(eventType: string): SubscriberDocument[] | undefined;
}

/** Matches held from an earlier read, and the revision they were loaded under. */
export interface CachedMatches {
  revision: string;
  subscribers: SubscriberDocument[];
}

export interface SubscriberDirectory {
  /** Reads the org's revision once; the matcher answers under it. */
  forOrg(orgId: string): Promise<Matcher>;
  /**
   * The matches cached under the revision last read for the org, without I/O; undefined when none
   * are. They are current only if a read of the revision (`forOrg`) still finds that revision.
   */
  cached(orgId: string, eventType: string): CachedMatches | undefined;
  /** The enabled subscribers of `orgId` whose filter matches `eventType`. */
  matching(orgId: string, eventType: string): Promise<SubscriberDocument[]>;
}

export function createSubscriberDirectory(collections: Collections): SubscriberDirectory {
  const orgs = new Map<string, OrgEntry>();
  const directory: SubscriberDirectory = {
    async forOrg(orgId) {
      const state = await collections.subscriberRevisions.findOne({ _id: orgId });
      const revision = state?.revision ?? '';
      let entry = orgs.get(orgId);
      if (!entry || entry.revision !== revision) {
        entry = { revision, byType: new Map() };
        orgs.delete(orgId);
        orgs.set(orgId, entry);
        if (orgs.size > MAX_ORGS) orgs.delete(orgs.keys().next().value as string);
      }
      const current = entry;
      return {
        revision,
        known: (eventType) => current.byType.get(eventType),
        async match(eventType) {
          const cached = current.byType.get(eventType);
          if (cached) return cached;
          const found = await findMatchingSubscribers(collections, orgId, eventType);
          // A concurrent load for a newer revision may have replaced the entry meanwhile: keep that one.
          if (orgs.get(orgId) === current) {
            current.byType.set(eventType, found);
            if (current.byType.size > MAX_TYPES_PER_ORG) current.byType.delete(current.byType.keys().next().value as string);
          }
          return found;
        },
      };
    },
    cached(orgId, eventType) {
      const entry = orgs.get(orgId);
      const subscribers = entry?.byType.get(eventType);
      return entry && subscribers ? { revision: entry.revision, subscribers } : undefined;
    },
    async matching(orgId, eventType) {
      return (await directory.forOrg(orgId)).match(eventType);
    },
  };
  return directory;
}

/** Called after every completed subscriber write of the org. */
export async function bumpSubscribersRevision(collections: Collections, orgId: string): Promise<void> {
  // A token per try: a retried upsert must not write a value an earlier try may have written.
  await upsertWithRetry(() => collections.subscriberRevisions.updateOne({ _id: orgId }, { $set: { revision: randomUUID() } }, { upsert: true }));
}
