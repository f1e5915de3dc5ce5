// Indexes of the data model, created at start-up. Idempotent: createIndex with the same keys and
// options is a no-op. Only plain and unique indexes (FerretDB v1 has no partial or TTL indexes).
// Indexes the delivery engine needs for claiming rows are the engine's to create.
import { MongoServerError, type Collection, type Document } from 'mongodb';
import { MATCH_INDEX } from './match-index.js';
import type { Collections } from './collections.js';

/**
 * The events list's order, newest first; `_id` breaks ties between events of the same instant, so
 * pages never overlap or skip. The list's indexes end with exactly these keys: a MongoDB index
 * ending in `occurredAt` alone cannot give this order, and the server would then read and sort
 * every event of the org in memory for each page.
 */
export const EVENT_LIST_ORDER = { occurredAt: -1, _id: -1 } as const;

/**
 * A subscriber's deliveries, newest attempt first: rows never attempted (`lastAttemptAt` null) sort
 * below every date, so they come last; then creation, then id (subscribers/deliveries-query.ts). Its
 * index ends with exactly these keys, as the events list's does.
 */
export const SUBSCRIBER_DELIVERIES_ORDER = { lastAttemptAt: -1, createdAt: -1, _id: -1 } as const;
export const SUBSCRIBER_DELIVERIES_INDEX = { subscriberId: 1, ...SUBSCRIBER_DELIVERIES_ORDER } as const;

export interface DeclaredIndex {
  collection: 'subscribers' | 'events' | 'deliveries';
  name: string;
  key: Readonly<Record<string, 1 | -1>>;
}

/**
 * The indexes the API's lists are read through (docs/ARCHITECTURE.md "Hot queries of the read
 * side"); test/hot-queries.test.ts checks every list query against them.
 */
export const READ_INDEXES: readonly DeclaredIndex[] = [
  { collection: 'subscribers', name: 'org_list_order', key: { orgId: 1, createdAt: 1, handle: 1 } },
  { collection: 'events', name: 'org_list_order', key: { orgId: 1, ...EVENT_LIST_ORDER } },
  { collection: 'events', name: 'org_status_list_order', key: { orgId: 1, status: 1, ...EVENT_LIST_ORDER } },
  { collection: 'deliveries', name: 'subscriber_recent_order', key: SUBSCRIBER_DELIVERIES_INDEX },
];

/**
 * Indexes of earlier versions that a current one covers (their keys are a prefix of its keys):
 * dropped at start-up, so publishing stops maintaining them.
 */
const SUPERSEDED_EVENT_INDEXES = ['org_occurred', 'org_status_occurred'];
const SUPERSEDED_DELIVERY_INDEXES = ['subscriber_recent'];
const INDEX_NOT_FOUND = 27;

async function dropIndexesIfPresent<T extends Document>(collection: Collection<T>, names: readonly string[]): Promise<void> {
  const present = new Set((await collection.indexes()).map((index) => index.name));
  for (const name of names.filter((candidate) => present.has(candidate))) {
    // Another replica starting at the same time may have dropped it first.
    await collection.dropIndex(name).catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === INDEX_NOT_FOUND)) throw error;
    });
  }
}

export async function ensureIndexes(collections: Collections): Promise<void> {
  await Promise.all([
    collections.subscribers.createIndex({ orgId: 1, handle: 1 }, { unique: true, name: 'org_handle_unique' }),
    ...READ_INDEXES.map((index) => collections[index.collection].createIndex({ ...index.key }, { name: index.name })),
    collections.subscribers.createIndex(MATCH_INDEX.key, { name: MATCH_INDEX.name }),
    collections.events.createIndex({ status: 1, createdAt: 1 }, { name: 'status_created' }),
    collections.events.createIndex({ createdAt: 1, _id: 1 }, { name: 'created' }),
    collections.attempts.createIndex({ eventId: 1 }, { name: 'event' }),
    collections.attempts.createIndex({ startedAt: 1 }, { name: 'started' }),
    collections.queue.createIndex({ eventId: 1, subscriberId: 1 }, { unique: true, name: 'event_subscriber_unique' }),
    collections.queue.createIndex({ subscriberId: 1, status: 1 }, { name: 'subscriber_status' }),
    collections.deliveries.createIndex({ eventId: 1, subscriberId: 1 }, { name: 'event_subscriber' }),
    collections.deliveries.createIndex({ subscriberId: 1, createdAt: 1, _id: 1 }, { name: 'subscriber_created' }),
    collections.recoveries.createIndex({ status: 1, createdAt: 1 }, { name: 'status_created' }),
  ]);
  // After their replacements exist, so a list query always has an index to use.
  await Promise.all([
    dropIndexesIfPresent(collections.events, SUPERSEDED_EVENT_INDEXES),
    dropIndexesIfPresent(collections.deliveries, SUPERSEDED_DELIVERY_INDEXES),
  ]);
}
