// Shared set-up for core's database tests: a Herald on its own test database, with a recording
// engine in place of the delivery engine (delivery itself is tested under test/engine).
import { DeliveryStats } from '../src/engine/stats.js';
import { randomBytes } from 'node:crypto';
import type { DeliveryEngine, EngineDeps } from '../src/engine/index.js';
import { NO_FAST_PATH } from '../src/handover/fast-path.js';
import { storeCompat } from '../src/storage/compat.js';
import { createSubscriberDirectory } from '../src/model/subscriber-directory.js';
import { createHerald } from '../src/index.js';
import type { Herald, HeraldOptions } from '../src/index.js';
import type { CoreContext } from '../src/context.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { createCatalog } from '../src/model/catalog.js';
import { silentLogger } from '../src/shared/logger.js';
import { collectionsFor } from '../src/storage/collections.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';

export interface RecordingEngine extends DeliveryEngine {
  /** How often rows were made due (notify). */
  notified: number;
  deps: EngineDeps | undefined;
}

/** An engine that takes no fresh rows (they are written PENDING) and only counts notifications. */
export function recordingEngine(): RecordingEngine {
  let running = false;
  const engine: RecordingEngine = {
    notified: 0,
    deps: undefined,
    async start() { running = true; },
    async stop() { running = false; },
    admit: (requests, now) => NO_FAST_PATH.admit(requests, now),
    handOver(handOver) { if (handOver.leftToPoll) engine.notified += 1; },
    notify() { engine.notified += 1; },
    get running() { return running; },
    metrics: () => ({ inFlight: 0, delivered: 0, failed: 0, retried: 0, loop: { stepForMs: 0, sinceKeptUpMs: 0, stuck: false, stalled: false }, bySubscriber: [], firstAttemptLatency: new DeliveryStats().firstAttemptLatency() }),
  };
  return engine;
}

export function masterKeys(): NonNullable<HeraldOptions['masterKeys']> {
  return { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } };
}

export interface TestHerald {
  herald: Herald;
  options: HeraldOptions;
  engine: RecordingEngine;
  database: TestDatabase;
  close(): Promise<void>;
}

export async function openTestHerald(prefix: string, options: Partial<HeraldOptions> = {}): Promise<TestHerald> {
  const database = await openTestDatabase(prefix);
  const engine = recordingEngine();
  const heraldOptions: HeraldOptions = {
    mongo: { db: database.db },
    masterKeys: masterKeys(),
    ...options,
    engineFactory: (deps) => {
      engine.deps = deps;
      return engine;
    },
  };
  const herald = await createHerald(heraldOptions);
  return {
    herald,
    options: heraldOptions,
    engine,
    database,
    async close() {
      await herald.close();
      await database.close();
    },
  };
}

/** A CoreContext over the same database and keys as `t.herald`, to drive internal modules directly. */
export function coreContextFor(t: TestHerald): CoreContext {
  const collections = collectionsFor(t.database.db, t.options.collectionPrefix ?? 'herald_');
  return {
    collections,
    compat: t.engine.deps?.compat ?? storeCompat('mongodb'),
    directory: createSubscriberDirectory(collections),
    secretBox: createSecretBox(t.options.masterKeys),
    catalog: createCatalog(t.options.eventTypes),
    signingProfile: t.options.signingProfile ?? 'standard',
    principals: undefined,
    logger: silentLogger,
    now: () => new Date(),
    secretRotationOverlapMs: 1000,
    engine: t.engine,
    emit: () => undefined,
    background: new Set(),
  };
}

/** Every document of every collection of the test database, as one JSON text (to scan for plaintext). */
export async function rawDatabaseText(database: TestDatabase): Promise<string> {
  const collections = await database.db.listCollections().toArray();
  const documents = await Promise.all(collections.map((info) => database.db.collection(info.name).find({}).toArray()));
  return JSON.stringify(documents);
}
