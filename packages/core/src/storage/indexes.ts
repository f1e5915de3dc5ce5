// Indexes of the data model, created at start-up. Idempotent: createIndex with the same keys and
// options is a no-op. Only plain and unique indexes (FerretDB v1 has no partial or TTL indexes).
// Indexes the delivery engine needs for claiming rows are the engine's to create.
import type { Collections } from './collections.js';

export async function ensureIndexes(collections: Collections): Promise<void> {
  await Promise.all([
    collections.subscribers.createIndex({ orgId: 1, handle: 1 }, { unique: true, name: 'org_handle_unique' }),
    collections.subscribers.createIndex({ orgId: 1, createdAt: 1, handle: 1 }, { name: 'org_list_order' }),
    collections.events.createIndex({ orgId: 1, occurredAt: -1 }, { name: 'org_occurred' }),
    collections.events.createIndex({ orgId: 1, status: 1, occurredAt: -1 }, { name: 'org_status_occurred' }),
    collections.events.createIndex({ status: 1, createdAt: 1 }, { name: 'status_created' }),
    collections.events.createIndex({ createdAt: 1, _id: 1 }, { name: 'created' }),
    collections.attempts.createIndex({ eventId: 1 }, { name: 'event' }),
    collections.attempts.createIndex({ startedAt: 1 }, { name: 'started' }),
    collections.queue.createIndex({ eventId: 1, subscriberId: 1 }, { unique: true, name: 'event_subscriber_unique' }),
    collections.queue.createIndex({ subscriberId: 1, status: 1 }, { name: 'subscriber_status' }),
    collections.deliveries.createIndex({ eventId: 1, subscriberId: 1 }, { name: 'event_subscriber' }),
    collections.deliveries.createIndex({ subscriberId: 1, lastAttemptAt: -1, createdAt: -1 }, { name: 'subscriber_recent' }),
    collections.deliveries.createIndex({ subscriberId: 1, createdAt: 1, _id: 1 }, { name: 'subscriber_created' }),
    collections.recoveries.createIndex({ status: 1, createdAt: 1 }, { name: 'status_created' }),
  ]);
}
