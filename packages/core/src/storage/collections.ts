// Collection handles with the configured prefix.
import type { Collection, Db, MongoBulkWriteError } from 'mongodb';
import type {
  AttemptDocument,
  ClaimDocument,
  DeliveryDocument,
  EngineStateDocument,
  EventDocument,
  HandleDocument,
  OrderKeyDocument,
  OrderMarkerDocument,
  OrgStateDocument,
  RecoveryDocument,
  SubscriberDocument,
  SubscriberHealthDocument,
  SubscriberRevisionDocument,
  WriteTurnDocument,
} from './documents.js';

export const DEFAULT_COLLECTION_PREFIX = 'herald_';

export const COLLECTION_SUFFIXES = {
  subscribers: 'subscribers',
  subscriberRevisions: 'subscriber_revisions',
  handles: 'subscriber_handles',
  events: 'events',
  queue: 'delivery_queue',
  deliveries: 'deliveries',
  attempts: 'delivery_attempts',
  orgState: 'org_state',
  engineState: 'engine_state',
  recoveries: 'recoveries',
  health: 'subscriber_health',
  orderKeys: 'order_keys',
  orderMarkers: 'order_markers',
  writeTurns: 'write_turns',
  claims: 'delivery_claims',
} as const;

export interface Collections {
  subscribers: Collection<SubscriberDocument>;
  /** Per org, the token publishers cache their matching under (model/subscriber-directory.ts). */
  subscriberRevisions: Collection<SubscriberRevisionDocument>;
  handles: Collection<HandleDocument>;
  events: Collection<EventDocument>;
  /** Rows PENDING or IN_FLIGHT: the engine's working set (model/delivery-rows.ts). */
  queue: Collection<DeliveryDocument>;
  /** Rows DELIVERED or FAILED: the history. */
  deliveries: Collection<DeliveryDocument>;
  attempts: Collection<AttemptDocument>;
  orgState: Collection<OrgStateDocument>;
  engineState: Collection<EngineStateDocument>;
  recoveries: Collection<RecoveryDocument>;
  health: Collection<SubscriberHealthDocument>;
  /** Sequence counters of ordered keys (events/ordering.ts). */
  orderKeys: Collection<OrderKeyDocument>;
  /** Sequence numbers taken, FerretDB v1 only (ordering/sequences.ts). */
  orderMarkers: Collection<OrderMarkerDocument>;
  /** Writers' turns at a document's revision, FerretDB v1 only (storage/write-turns.ts). */
  writeTurns: Collection<WriteTurnDocument>;
  /** Claims of a queued row's incarnations, FerretDB v1 only (ClaimDocument). */
  claims: Collection<ClaimDocument>;
}

export function collectionsFor(db: Db, prefix: string): Collections {
  return {
    subscribers: db.collection<SubscriberDocument>(prefix + COLLECTION_SUFFIXES.subscribers),
    subscriberRevisions: db.collection<SubscriberRevisionDocument>(prefix + COLLECTION_SUFFIXES.subscriberRevisions),
    handles: db.collection<HandleDocument>(prefix + COLLECTION_SUFFIXES.handles),
    events: db.collection<EventDocument>(prefix + COLLECTION_SUFFIXES.events),
    queue: db.collection<DeliveryDocument>(prefix + COLLECTION_SUFFIXES.queue),
    deliveries: db.collection<DeliveryDocument>(prefix + COLLECTION_SUFFIXES.deliveries),
    attempts: db.collection<AttemptDocument>(prefix + COLLECTION_SUFFIXES.attempts),
    orgState: db.collection<OrgStateDocument>(prefix + COLLECTION_SUFFIXES.orgState),
    engineState: db.collection<EngineStateDocument>(prefix + COLLECTION_SUFFIXES.engineState),
    recoveries: db.collection<RecoveryDocument>(prefix + COLLECTION_SUFFIXES.recoveries),
    health: db.collection<SubscriberHealthDocument>(prefix + COLLECTION_SUFFIXES.health),
    orderKeys: db.collection<OrderKeyDocument>(prefix + COLLECTION_SUFFIXES.orderKeys),
    orderMarkers: db.collection<OrderMarkerDocument>(prefix + COLLECTION_SUFFIXES.orderMarkers),
    writeTurns: db.collection<WriteTurnDocument>(prefix + COLLECTION_SUFFIXES.writeTurns),
    claims: db.collection<ClaimDocument>(prefix + COLLECTION_SUFFIXES.claims),
  };
}

/** The claim `_id` of a row's current incarnation: a new `attempts` or `nextAttemptAt` is a new one. */
export function claimKey(row: Pick<DeliveryDocument, '_id' | 'attempts' | 'nextAttemptAt'>): string {
  return `${row._id}:${row.attempts}:${row.nextAttemptAt?.getTime() ?? 0}`;
}

/**
 * A filter on one field matching any of `values`: a plain equality when there is one value. Both
 * stores serve an equality from their cheapest path — MongoDB from an index, as it does a `$in`;
 * FerretDB v1 hands only an equality to PostgreSQL and matches a `$in` in Go after decoding every
 * document — and a retry or redelivery usually touches one event.
 */
export function anyOf<T>(values: readonly T[]): T | { $in: T[] } {
  return values.length === 1 ? values[0]! : { $in: [...values] };
}

/** MongoDB's duplicate-key error code (E11000). */
export const DUPLICATE_KEY = 11000;

/**
 * A unique-index violation. MongoDB (and FerretDB on insert) report code 11000; FerretDB v1 reports
 * a violation on *update* as InternalError (code 1) carrying its backend's own text: SQLite's
 * "UNIQUE constraint failed" or PostgreSQL's SQLSTATE 23505.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === DUPLICATE_KEY) return true;
  return code === 1 && typeof message === 'string' && (message.includes('UNIQUE constraint failed') || message.includes('SQLSTATE 23505'));
}

/**
 * Runs an upsert, retrying when it loses an insert race: two concurrent upserts of one new `_id`
 * may both try to insert, and the loser gets a duplicate-key error although an update would now
 * succeed (documented MongoDB behaviour; FerretDB does the same).
 */
export async function upsertWithRetry<T>(upsert: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await upsert();
    } catch (error) {
      if (attempt >= attempts || !isDuplicateKeyError(error)) throw error;
    }
  }
}

/** The indexes of an unordered insert's duplicate-key failures, or undefined if anything else failed. */
export function duplicateIndexes(error: unknown): Set<number> | undefined {
  const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0 || list.some((writeError) => !isDuplicateKeyError({ code: writeError.code, message: writeError.errmsg }))) return undefined;
  return new Set(list.map((writeError) => writeError.index));
}
