// Delivery engine entry point. The data-model side of core (herald.ts) creates the engine through
// this function and calls it; the engine owns everything under src/engine/.
// NOTE: placeholder with the agreed interface — the engine work replaces the body.
import type { Db } from 'mongodb';

export interface DeliveryOptions {
  /** Retry delays in ms before attempt 2, 3, …; the last one repeats until maxAttempts. */
  retrySchedule?: number[];
  maxAttempts?: number;
  /** How long a previous secret keeps signing after a rotation (standard profile). Default 24 h. */
  secretRotationOverlapMs?: number;
  /** Global and per-subscriber concurrency caps. */
  concurrency?: number;
  perSubscriberConcurrency?: number;
  /** CIDRs exempt from the SSRF guard (e.g. ['127.0.0.0/8'] in the dev stack). */
  ssrfAllowList?: string[];
  /** Retention of finished events and deliveries, ms. Default 30 days. */
  retentionMs?: number;
  /** Polling interval for due rows created by other processes, ms. */
  pollIntervalMs?: number;
}

export interface EngineLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EngineDeps {
  db: Db;
  /** Collection name prefix, e.g. 'herald_'. */
  prefix: string;
  signingProfile: 'standard' | 'api-portal';
  options: DeliveryOptions;
  logger: EngineLogger;
  /** Decrypts a subscriber secret sealed under the master key. */
  openSecret(sealed: { keyId: string; iv: string; tag: string; ciphertext: string }): string;
}

export interface EngineMetrics {
  inFlight: number;
  delivered: number;
  failed: number;
  retried: number;
}

export interface DeliveryEngine {
  start(): Promise<void>;
  stop(options?: { drainTimeoutMs?: number }): Promise<void>;
  /** Fast-path hint: these rows were just written as PENDING. Rows are also found by polling. */
  notify(deliveryIds: string[]): void;
  readonly running: boolean;
  metrics(): EngineMetrics;
}

export function createDeliveryEngine(_deps: EngineDeps): DeliveryEngine {
  let running = false;
  return {
    async start() { running = true; },
    async stop() { running = false; },
    notify() {},
    get running() { return running; },
    metrics: () => ({ inFlight: 0, delivered: 0, failed: 0, retried: 0 }),
  };
}
