// The delivery engine's contract: what it is given, what it offers, what it reports. The factory
// (engine/index.ts) and every part of the engine depend on this file; it depends on none of them
// but for the plain data types they declare.
import type { Db } from 'mongodb';
import type { FastPath } from '../handover/fast-path.js';
import type { EmitOperational } from '../model/operational.js';
import type { EventPayload } from '../model/payload.js';
import type { EngineLogger } from '../shared/logger.js';
import type { SigningProfile } from '../shared/signing.js';
import type { StoreCompat } from '../storage/compat.js';
import type { EventDocument, SealedSecret } from '../storage/documents.js';
import type { BreakerPolicy } from './breaker.js';
import type { HttpSender } from './http/sender.js';
import type { LatencyHistogram, SubscriberFigures } from './stats.js';

export type { EngineLogger } from '../shared/logger.js';

export interface DeliveryOptions {
  /** Retry delays in ms before attempt 2, 3, …; the last one repeats until maxAttempts. */
  retrySchedule?: number[];
  maxAttempts?: number;
  /** How long a previous secret keeps signing after a rotation (standard profile). Default 24 h. */
  secretRotationOverlapMs?: number;
  /** Global and per-subscriber concurrency caps. Defaults 128 and 16. */
  concurrency?: number;
  perSubscriberConcurrency?: number;
  /** CIDRs exempt from the SSRF guard (e.g. ['127.0.0.0/8'] in the dev stack). */
  ssrfAllowList?: string[];
  /**
   * How long a settled event (ALL_DELIVERED or FAILED) is kept with its rows and attempts, ms after
   * it was created. Default 30 days; 0 keeps them forever. Unsettled events are never removed.
   */
  retentionMs?: number;
  /** Per event type, overriding `retentionMs` for that type (0 = forever), ms. */
  retentionByEventType?: Record<string, number>;
  /** Polling interval for due rows created by other processes and due retries, ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * Lease = subscriber timeout + this margin, ms. Default 15 000: with the default 5 s timeout and
   * maintenance interval, a crashed worker's rows are sent again within about 30 s.
   */
  leaseMarginMs?: number;
  /** Interval of the lease-recovery job (fan-out completion runs at twice it), ms. Default 10 000. */
  maintenanceIntervalMs?: number;
  /** How often Agenda looks for due jobs, ms. Default 5000. */
  jobPollIntervalMs?: number;
  /** Most rows per claim or outcome write. Default 200. */
  batchSize?: number;
  /** User-Agent of deliveries. Default `Herald/0.1.0`. */
  userAgent?: string;
  /**
   * Endpoint health: hold a subscriber's deliveries (PENDING, attempts untouched) after
   * `failures` (10) failed attempts in a row with no success for `windowMs` (60 s), probing one
   * at a time on `probeBackoffMs`; `false` turns it off. See engine/breaker.ts.
   */
  breaker?: Partial<BreakerPolicy> | false;
  /**
   * Due deliveries waiting this long while the engine's poll claims none are a stall: logged once and
   * published as `herald.delivery_stalled` (engine/stall-watch.ts), ms. Default 45 000.
   */
  stallAfterMs?: number;
  /** One step of a poll lasting this long means the loop is stuck and the engine not live, ms. Default 120 000. */
  loopStuckAfterMs?: number;
  /** Send a W3C `traceparent` header (the attempt's span) with each delivery. Default false. */
  traceparentHeader?: boolean;
  /**
   * The embedding host's own listen endpoint, e.g. `http://127.0.0.1:8080/internal/listen/`: target
   * URLs starting with exactly this prefix skip the SSRF guard (the host relays them to a CLI
   * listener). A function because the host knows its bound port only after the engine started.
   * Nothing else on loopback is exempted.
   */
  selfTargetPrefix?: () => string | undefined;
  /**
   * `http://[user:password@]host:port` of an HTTP CONNECT proxy every delivery goes through unless
   * its subscriber says otherwise (egress/proxy-config.ts; the SSRF guard still applies: http/tunnel-connector.ts).
   */
  egressProxy?: string;
  /**
   * Disable a subscriber whose every delivery has failed for this long (rules/auto-disable.ts), ms:
   * its reason is stored, `herald.subscriber_disabled` published, its PENDING rows end FAILED.
   * Default 5 days; 0 turns it off. Needs the breaker, whose stored health it reads.
   */
  autoDisableAfterMs?: number;
  /** Proxies a subscriber may choose by name (`egressProxy` on the subscriber), name → URL as egressProxy. */
  egressProxies?: Record<string, string>;
}

export interface EngineDeps {
  db: Db;
  /** Collection name prefix, e.g. 'herald_'. */
  prefix: string;
  signingProfile: SigningProfile;
  options: DeliveryOptions;
  logger: EngineLogger;
  /** The store-compatibility seam (storage/compat.ts). */
  compat: StoreCompat;
  /** Decrypts a subscriber secret sealed under the master key. */
  openSecret(sealed: SealedSecret): string;
  /** The event as an attempt needs it (sensitive values opened). */
  payloadOf(event: EventDocument): EventPayload;
  /** Finishes fan-outs interrupted by a crash (run by a periodic job). */
  completePendingFanOuts?: () => Promise<number>;
  /** Publishes Herald's own events (model/operational.ts). */
  emit?: EmitOperational;
  /** One step of the oldest unfinished recovery (deliveries/recovery.ts); rows requeued. */
  stepRecoveries?: () => Promise<number>;
  /** Writes an auto-disable (subscribers/auto-disable.ts); absent: auto-disable is off. */
  disableSubscriber?: DisableSubscriber;
  /** The clock of the auto-disable check (Herald's `now` option). Default: the system clock. */
  now?: () => Date;
  /** Replaces the HTTP sender (tests). */
  sender?: HttpSender;
}

export type DisableSubscriber = (request: { subscriberId: string; failingFrom: Date; message: string; now: Date }) => Promise<{ orgId: string; handle: string } | undefined>;

export interface EngineMetrics {
  inFlight: number;
  delivered: number;
  failed: number;
  retried: number;
  /** The poll loop as the stall watch sees it (engine/stall-watch.ts). */
  loop: EngineLoopMetrics;
  /** Attempts of this process per subscriber, by outcome (engine/stats.ts). */
  bySubscriber: SubscriberFigures[];
  /** Publish to end of first attempt, this process. */
  firstAttemptLatency: LatencyHistogram;
  /** Settled events removed by retention runs of this process (absent: no engine jobs here). */
  prunedEvents?: number;
}

export interface EngineLoopMetrics {
  /** How long the poll in progress has been in one step; 0 between polls. */
  stepForMs: number;
  /** Since the poll last kept up: claimed rows, found none it could take now, or had no slot free. */
  sinceKeptUpMs: number;
  /** A step has lasted `loopStuckAfterMs`: the engine is not live. */
  stuck: boolean;
  /** Deliveries wait past `stallAfterMs` while the poll claims none. */
  stalled: boolean;
}

export interface DeliveryEngine extends FastPath {
  start(): Promise<void>;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
  readonly running: boolean;
  metrics(): EngineMetrics;
}
