// Public option and service types of @herald/core (ARCHITECTURE.md "Core public API").
import type { Db, MongoClient } from 'mongodb';
import type { DeliveryEngine, DeliveryOptions, EngineDeps, EngineLogger, EngineMetrics } from './engine/index.js';
import type { DeliveryService } from './deliveries/contract.js';
import type { EventCatalog, EventTypeDefinition } from './shared/event-types.js';
import type { EventService } from './events/contract.js';
import type { MasterKeys } from './shared/master-keys.js';
import type { PrincipalDirectory } from './shared/scope.js';
import type { RetentionService } from './retention/contract.js';
import type { SigningProfile } from './shared/signing.js';
import type { SubscriberService } from './subscribers/contract.js';

export type { Scope, PrincipalDirectory } from './shared/scope.js';
export type { MasterKeys } from './shared/master-keys.js';
export type { EventCatalog, EventTypeDefinition } from './shared/event-types.js';
export type { SigningProfile } from './shared/signing.js';
export type { ListenerOptions, SubscriberDeliveryPage, SubscriberService } from './subscribers/contract.js';
export type { ErasedEvent, EventService, PublishManyResult, PublishResult } from './events/contract.js';
export type { DeliveryService } from './deliveries/contract.js';
export type { RetentionService } from './retention/contract.js';

export type MongoConnection =
  | { uri: string; dbName?: string }
  | { client: MongoClient; dbName?: string }
  | { db: Db };

export type HeraldLogger = EngineLogger;

export interface HeraldOptions {
  mongo: MongoConnection;
  masterKeys?: MasterKeys;
  signingProfile?: SigningProfile;
  eventTypes?: EventTypeDefinition[];
  principals?: PrincipalDirectory;
  delivery?: DeliveryOptions;
  /**
   * Store-compatibility mode (storage/compat.ts): 'auto' (default) detects FerretDB v1 from
   * `buildInfo`; 'mongodb' or 'ferretdb-v1' forces one.
   */
  storeCompat?: 'auto' | 'mongodb' | 'ferretdb-v1';
  /** Default 'herald_'. */
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
   * How long the store has answered no operation while some waited (0 when none waits), read from
   * the client's connection pool events.
   */
  storeSilentForMs(): number;
  /** Counters and gauges of the delivery engine, for the host's /metrics. */
  metrics(): EngineMetrics;
}
