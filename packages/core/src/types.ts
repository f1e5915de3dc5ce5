// Public option and service types of @herald/core (ARCHITECTURE.md "Core public API").
import type { Db, MongoClient } from 'mongodb';
import type { DeliveryEngine, DeliveryOptions, EngineDeps, EngineLogger, EngineMetrics } from './engine/index.js';
import type {
  EventStatus,
  Page,
  PublishBatchItem,
  PublishEventInput,
  Recovery,
  RecoveryRequest,
  WebhookEvent,
  WebhookEventDelivery,
  WebhookEventDetail,
  WebhookSubscriberCreateRequest,
  WebhookFilterPreview,
  WebhookFilterPreviewRequest,
  WebhookSubscriberDeliverySummary,
  WebhookSubscriberListItem,
  WebhookSubscriberResponse,
  WebhookSubscriberUpdateRequest,
} from './schemas/index.js';

import type { HeraldError } from './errors/index.js';
import type { ErasedEvent } from './events/erase.js';
import type { RetentionService } from './retention/service.js';
export type { ErasedEvent } from './events/erase.js';

/** Every call names its org and, when it writes, its actor (principal id for createdBy/updatedBy). */
export interface Scope {
  orgId: string;
  actor?: string;
}

export type SigningProfile = 'standard' | 'api-portal';

export type MongoConnection =
  | { uri: string; dbName?: string }
  | { client: MongoClient; dbName?: string }
  | { db: Db };

export interface MasterKeys {
  /** Key id used to seal new secrets. */
  current: string;
  /** Every known key: 32 bytes, raw or base64. Old ids stay here so older secrets can still be opened. */
  keys: Record<string, Uint8Array | string>;
}

export interface EventTypeDefinition {
  /** `family.action`. */
  type: string;
  /** JSON Schema (draft 2020-12 subset understood by ajv 8) that `data` must satisfy. */
  dataSchema?: Record<string, unknown>;
  /** Top-level fields of `data` that are encrypted per subscriber and never stored in plaintext. */
  sensitive?: string[];
  /** What happened when this event is published, for the people who subscribe to it. */
  description?: string;
  /**
   * A sample `data`, valid against `dataSchema` when one is given (checkEventTypeDefinition): it
   * documents the type and is what a test publish (`herald webhooks trigger`) sends.
   */
  example?: Record<string, unknown>;
}

export interface PrincipalDirectory {
  /** Returns the subset of `ids` that still exist; the others are shown as `deleted_user`. */
  existing(ids: string[]): Promise<Set<string>>;
}

export type HeraldLogger = EngineLogger;

export interface HeraldOptions {
  mongo: MongoConnection;
  masterKeys?: MasterKeys;
  signingProfile?: SigningProfile;
  eventTypes?: EventTypeDefinition[];
  principals?: PrincipalDirectory;
  delivery?: DeliveryOptions;
  /** Default 'herald_'. */
  /**
   * Store-compatibility mode (storage/compat.ts): 'auto' (default) detects FerretDB v1 from
   * `buildInfo`; 'mongodb' or 'ferretdb-v1' forces one.
   */
  storeCompat?: 'auto' | 'mongodb' | 'ferretdb-v1';
  collectionPrefix?: string;
  logger?: HeraldLogger;
  /** Clock, for tests. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * Engine factory, for tests and embedders that want to replace delivery; default
   * `createDeliveryEngine` from the engine module.
   */
  engineFactory?: (deps: EngineDeps) => DeliveryEngine;
}

/**
 * An ephemeral subscriber that relays to a developer's machine (`herald webhooks listen`): the host
 * deletes it when the stream closes; `expiresAt` lets any process remove one whose host died.
 */
export interface ListenerOptions {
  expiresAt: Date;
}

/** A page of a subscriber's deliveries (the API's WebhookSubscriberDeliveryList). */
export interface SubscriberDeliveryPage {
  list: WebhookSubscriberDeliverySummary[];
  nextCursor?: string;
}

export interface SubscriberService {
  create(scope: Scope, input: WebhookSubscriberCreateRequest, options?: { listener?: ListenerOptions }): Promise<WebhookSubscriberResponse>;
  get(scope: Scope, handle: string): Promise<WebhookSubscriberResponse>;
  /** Listeners are left out unless `listeners` is true (they are not configuration). */
  list(scope: Scope, query?: { limit?: number; offset?: number; listeners?: boolean }): Promise<Page<WebhookSubscriberListItem>>;
  /** Moves a live listener's expiry forward; false when it is gone. */
  renewListener(scope: Scope, handle: string, expiresAt: Date): Promise<boolean>;
  /** Handles of listeners whose expiry has passed (their stream died with its host). */
  expiredListeners(scope: Scope, now: Date): Promise<string[]>;
  update(scope: Scope, handle: string, patch: WebhookSubscriberUpdateRequest): Promise<WebhookSubscriberResponse>;
  delete(scope: Scope, handle: string): Promise<void>;
  /** Newest attempt first (rows never attempted by creation time), at most 50. */
  deliveries(scope: Scope, handle: string): Promise<WebhookSubscriberDeliverySummary[]>;
  /** The same, page by page: `cursor` is a previous page's `nextCursor`. */
  deliveriesPage(scope: Scope, handle: string, query?: { cursor?: string }): Promise<SubscriberDeliveryPage>;
  /** Which of the org's most recent events a filter (and patterns) would have delivered; nothing is stored. */
  previewFilter(scope: Scope, input: WebhookFilterPreviewRequest): Promise<WebhookFilterPreview>;
}

export interface EventCatalog {
  register(definition: EventTypeDefinition): void;
  get(type: string): EventTypeDefinition | undefined;
  list(): EventTypeDefinition[];
}

export interface PublishResult {
  event: WebhookEvent;
  /** false: the same idempotency key was seen before; the stored event is returned, nothing fanned out again. */
  created: boolean;
}

/** One item's outcome in `publishMany`: its event (durable), or why it was not published. */
export type PublishManyResult = ({ ok: true } & PublishResult) | { ok: false; error: HeraldError };

export interface EventService {
  publish(scope: Scope, input: PublishEventInput, options?: { idempotencyKey?: string }): Promise<PublishResult>;
  /**
   * Publishes each item as `publish` would (its `idempotencyKey` as publish's option), sharing the
   * store's round trips; one result per item, in order. An invalid item fails alone. Items with the
   * same key are taken in order, as repeated publishes would be. `error` is a typed error
   * (ValidationError, ConflictError, StoreUnavailableError, or code INTERNAL_SERVER_ERROR).
   */
  publishMany(scope: Scope, items: readonly PublishBatchItem[]): Promise<PublishManyResult[]>;
  /** `cursor`: a previous page's `nextCursor` (not with `offset`). */
  list(scope: Scope, query?: { status?: EventStatus; limit?: number; offset?: number; cursor?: string }): Promise<Page<WebhookEvent>>;
  get(scope: Scope, eventId: string): Promise<WebhookEventDetail>;
  /** Every row back to PENDING (due now), the event back to DISPATCHED. */
  redeliver(scope: Scope, eventId: string): Promise<WebhookEventDetail>;
  /**
   * Erases the event, its rows and their attempts now. ConflictError while rows are still to be
   * sent, unless `force` (which removes them too); NotFoundError when nothing of it is left.
   */
  erase(scope: Scope, eventId: string, options?: { force?: boolean }): Promise<ErasedEvent>;
}

export interface DeliveryService {
  /** One row back to PENDING (due now); its event back to DISPATCHED. */
  retry(scope: Scope, deliveryId: string): Promise<WebhookEventDelivery>;
  /**
   * Sends a subscriber's settled deliveries created in a time range (default: FAILED ones) again,
   * as new attempts; answers at once with the recovery, which the engine's jobs carry out.
   */
  recover(scope: Scope, subscriberHandle: string, input: RecoveryRequest): Promise<Recovery>;
  recovery(scope: Scope, subscriberHandle: string, recoveryId: string): Promise<Recovery>;
}

export interface HeraldHealth {
  mongo: boolean;
  engine: 'running' | 'stopped';
}

export interface Herald {
  readonly subscribers: SubscriberService;
  readonly catalog: EventCatalog;
  readonly events: EventService;
  readonly deliveries: DeliveryService;
  /** The organization's retention policy for settled events (retention/service.ts). */
  readonly retention: RetentionService;
  /** Completes interrupted fan-outs, then starts the delivery engine. */
  start(): Promise<void>;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
  /** stop() and close the MongoClient if Herald opened it. */
  close(): Promise<void>;
  health(): Promise<HeraldHealth>;
  /**
   * How long the store has answered no command while some waited (0 when none waits, or when the
   * client Herald was given was created without `monitorCommands`, which it needs to see them).
   */
  storeSilentForMs(): number;
  /** Counters and gauges of the delivery engine, for the host's /metrics. */
  metrics(): EngineMetrics;
}
