// MongoDB document shapes (ARCHITECTURE.md "MongoDB data model"). Times are BSON dates here and
// ISO-8601 strings only in API shapes.
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';

/** AES-256-GCM under a master key; base64 fields. */
export interface SealedSecret {
  keyId: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

export interface PreviousSecret {
  secret: SealedSecret;
  expiresAt: Date;
}

export interface SubscriberDocument {
  /** Internal uuid; never shown by the API (the handle is). */
  _id: string;
  orgId: string;
  handle: string;
  displayName: string;
  targetUrl: string;
  events: string[];
  /** Derived from `events` (see events/matching.ts); the indexed matching key. */
  matchKeys: string[];
  enabled: boolean;
  timeoutMs: number;
  secret?: SealedSecret;
  previousSecrets?: PreviousSecret[];
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
  /** Incremented by every update; the condition of the optimistic-concurrency replace. */
  revision: number;
}

/**
 * The matching index: one bucket per (org, matchKey) listing the enabled subscribers whose filter
 * yields that key. `_id` = matchBucketId(orgId, matchKey), so matching an event is at most four
 * `_id` lookups (see events/matching.ts for why this is not a multikey index on subscribers).
 */
export interface MatchBucketDocument {
  _id: string;
  orgId: string;
  matchKey: string;
  /** Internal subscriber uuids. May briefly hold a stale id (filtered on read), never miss one. */
  subscriberIds: string[];
}

/** Handle → subscriber id, `_id` = handleKey(orgId, handle). A verified accelerator (subscribers/handle-index.ts). */
export interface HandleDocument {
  _id: string;
  orgId: string;
  handle: string;
  subscriberId: string;
}

export interface EventDocument {
  _id: string;
  orgId: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  status: EventStatus;
  occurredAt: Date;
  createdAt: Date;
  idempotencyKey?: string;
  /** The payload without its sensitive fields. */
  data: Record<string, unknown>;
  /** Names of the sensitive fields that were removed from `data`. */
  sensitiveFields: string[];
  /** Sensitive values sealed under the master key, only until the fan-out completes (crash recovery). */
  pendingSensitive?: SealedSecret;
  /** Set while rows are being written (events/fan-out.ts); the event is DISPATCHED by then. */
  fanOutIncomplete?: true;
  deliveryCount: number;
  updatedAt: Date;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  responseBodySnippet: string | null;
}

export interface DeliveryDocument {
  _id: string;
  orgId: string;
  eventId: string;
  /** Internal subscriber uuid. */
  subscriberId: string;
  subscriberHandle: string;
  targetUrl: string;
  eventType: string;
  occurredAt: Date;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  leaseOwner?: string | null;
  leaseUntil?: Date | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** The exact JSON body sent, sensitive fields already encrypted for this subscriber. */
  body: string;
  encryptedFields: string[];
  attemptHistory: AttemptRecord[];
  createdAt: Date;
  updatedAt: Date;
}
