// MongoDB document shapes (ARCHITECTURE.md "MongoDB data model"). Times are BSON dates here and
// ISO-8601 strings only in API shapes.
import type { StoredRetention } from '../rules/retention-policy.js';
import type { DeliveryStatus, EventStatus } from '../schemas/index.js';
import type { ClientCertificateFacts } from '../validation/client-tls.js';

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

/**
 * TLS towards the endpoint (validation/client-tls.ts): a client certificate and its key (mutual TLS;
 * the certificate is public, the key sealed), CAs trusted for the endpoint, or both.
 */
export interface SubscriberTlsDocument extends ClientCertificateFacts {
  certificate?: string;
  key?: SealedSecret;
  caBundle?: string;
}

/** OAuth2 client credentials (validation/oauth2.ts): everything but the client secret in clear. */
export interface SubscriberOAuth2Document {
  tokenUrl: string;
  clientId: string;
  clientSecret: SealedSecret;
  scope?: string;
  audience?: string;
  clientAuthentication: 'basic' | 'body';
}

export interface SubscriberDocument {
  /** Internal uuid; never shown by the API (the handle is). */
  _id: string;
  orgId: string;
  handle: string;
  displayName: string;
  targetUrl: string;
  events: string[];
  /** Derived from `events` (see rules/matching.ts); the indexed matching key. */
  matchKeys: string[];
  /**
   * The payload filter (rules/filter.ts) as JSON text: its keys start with `$` or contain dots,
   * which are not portable field names across MongoDB versions and FerretDB.
   */
  filter?: string;
  /** Per-key ordering (events/ordering.ts); absent: none. */
  ordering?: 'aggregate';
  enabled: boolean;
  timeoutMs: number;
  /** Per-engine limits (engine/limits.ts); absent: the engine's defaults. */
  maxConcurrency?: number;
  rateLimitPerSecond?: number;
  /** A configured egress proxy's name or `none` (engine/egress/proxy-config.ts); absent: the host's default. */
  egressProxy?: string;
  secret?: SealedSecret;
  previousSecrets?: PreviousSecret[];
  tls?: SubscriberTlsDocument;
  oauth2?: SubscriberOAuth2Document;
  createdBy: string;
  updatedBy: string;
  createdAt: Date;
  updatedAt: Date;
  /** Incremented by every update; the condition of the optimistic-concurrency replace. */
  revision: number;
  /** Present on ephemeral CLI listeners only (subscribers/contract.ts ListenerOptions). */
  listener?: { expiresAt: Date };
  /** Why Herald disabled it (rules/auto-disable.ts); cleared by any change of `enabled`. */
  disabledReason?: SubscriberDisabledReason;
  /** When it was last enabled again after being disabled: auto-disable counts failures from no earlier. */
  enabledSince?: Date;
}

export interface SubscriberDisabledReason {
  code: 'AUTO_DISABLED';
  message: string;
  at: Date;
}

/**
 * Per org, a token every subscriber write replaces after it is complete: a publisher that reads the
 * token it cached its matching under knows its cache is current (model/subscriber-directory.ts).
 */
export interface SubscriberRevisionDocument {
  _id: string;
  revision: string;
}

/**
 * Where conditional updates are not atomic (FerretDB v1), the claim of one incarnation of a queued
 * row: whoever inserts it first may change that incarnation (engine/store.ts, deliveries/requeue.ts).
 */
export interface ClaimDocument {
  /** claimKey(row): `${deliveryId}:${attempts}:${nextAttemptAt ms}`. */
  _id: string;
  deliveryId: string;
  owner: string;
  createdAt: Date;
}

/** A writer's turn at one revision of a document, where conditional updates are not atomic (storage/write-turns.ts). */
export interface WriteTurnDocument {
  _id: string;
  createdAt: Date;
}

/** Per-org settings. */
export interface OrgStateDocument {
  _id: string;
  /** The organization's retention policy, when it set one (rules/retention-policy.ts). */
  retention?: StoredRetention;
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
  /** With an idempotency key: the request's fingerprint (events/ids.ts), which a repeat must match. */
  requestFingerprint?: string;
  /**
   * The payload without its sensitive fields, as JSON text: any JSON object the API admits (keys
   * with dots or `$`, arrays of arrays) is stored as sent, whatever the store allows in documents.
   */
  data: string;
  /** Names of the sensitive fields that were removed from `data`. */
  sensitiveFields: string[];
  /**
   * The sensitive values (and `data`'s original key order) sealed under the master key. Each attempt
   * opens them and encrypts them for its subscriber with the secret that signs it (DECISIONS §6).
   */
  sealedSensitive?: SealedSecret;
  /**
   * The subscribers matched at publish: what an interrupted fan-out is completed with. Removed when
   * the event settles (a settled event has all its rows), so the history does not carry it.
   */
  subscriberIds?: string[];
  deliveryCount: number;
  /** Rows not yet DELIVERED or FAILED, and rows FAILED: the event's status follows from these. */
  openDeliveries: number;
  failedDeliveries: number;
  updatedAt: Date;
  /** W3C traceparent of the publish span (tracing.ts), when the publish was traced. */
  traceparent?: string;
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
  /** Attempts made, ever: the number of the next attempt is this + 1, across redeliveries. */
  attempts: number;
  /**
   * Attempts made before the current retry budget began (a redelivery or recovery starts a fresh
   * budget without renumbering). Absent: 0.
   */
  retryBudgetFrom?: number;
  nextAttemptAt: Date | null;
  leaseOwner?: string | null;
  leaseUntil?: Date | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** The fields the last attempt encrypted (bodies are built at send time, never stored). */
  encryptedFields: string[];
  /** The lease token of the attempt whose outcome is recorded: tells a writer its write applied. */
  settledBy?: string | null;
  /**
   * On a history copy: when its writer took the row (the engine's claim, a cancellation's lease).
   * Takes of one row follow each other a lease's length apart, so a copy replaces another only if
   * taken later (model/delivery-rows.ts insertOrReplace).
   */
  takenAt?: Date;
  /**
   * On a row a redelivery moved back from the history: that redelivery's holding lease (`by`) and
   * the incarnation of the history copy it moved. Kept after the move, into the row's next history
   * copy, so whoever finishes the move tells that copy from a newer one (model/moves-back.ts).
   */
  movedBack?: { by: string; attempts: number; updatedAt: Date };
  createdAt: Date;
  updatedAt: Date;
  /** The event's traceparent: each attempt is a span of the publish's trace. */
  traceparent?: string;
  /**
   * Rows of an ordered subscriber (events/ordering.ts): the key, `[subscriberId, aggregateType,
   * aggregateId]` as JSON, and the row's place in it. A queued row of a key whose turn has not come
   * is PENDING with `nextAttemptAt: null` (held): the poll never finds it.
   */
  orderKey?: string;
  orderSeq?: number;
}

/** One attempt of one delivery, append-only (collection `delivery_attempts`). */
export interface AttemptDocument extends AttemptRecord {
  _id: string;
  deliveryId: string;
  eventId: string;
  subscriberId: string;
  orgId: string;
}

/** Small cluster-wide engine state (cursors of the maintenance jobs, notes of erasures to finish). */
export interface EngineStateDocument {
  _id: string;
  createdAt?: Date;
  eventId?: string;
  orgId?: string;
}

/**
 * Per ordered key (events/ordering.ts), two documents: `_id` = `seq:<orderKey>` holds `last`, the
 * highest sequence number handed out (written by publishers only); `done:<orderKey>` holds `done`,
 * the sequence of the last row of the key that settled (written by engines only). Two documents, so
 * that neither writer's update can overwrite the other's field.
 */
export interface OrderKeyDocument {
  _id: string;
  last?: number;
  done?: number;
}

/** FerretDB v1 only (ordering/sequences.ts): one per sequence number taken, `_id` = `<orderKey>:<number>`. */
export interface OrderMarkerDocument {
  _id: string;
  orderKey: string;
  createdAt: Date;
}

/** A recovery of one subscriber's settled deliveries over a time range (deliveries/recovery.ts). */
export interface RecoveryDocument {
  _id: string;
  orgId: string;
  subscriberId: string;
  subscriberHandle: string;
  since: Date;
  until: Date;
  statuses: Array<'FAILED' | 'DELIVERED'>;
  status: 'QUEUED' | 'RUNNING' | 'COMPLETED';
  requeued: number;
  /** Where the next step starts: the last row taken, by (createdAt, _id). */
  cursor: { createdAt: Date; id: string } | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** A subscriber's endpoint health as last changed by an engine (engine/breaker.ts); `_id` = subscriber id. */
export interface SubscriberHealthDocument {
  _id: string;
  state: 'healthy' | 'failing' | 'open';
  since: Date;
  /** The first failure of the current run of failures; absent in records written before it was kept (then `since`). */
  failingSince?: Date | null;
  consecutiveFailures: number;
  lastError: string | null;
  probes: number;
  nextProbeAt: Date | null;
  updatedAt: Date;
}
