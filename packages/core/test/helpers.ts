// Shared set-up for core's database tests: a Herald on its own test database, with a recording
// engine in place of the delivery engine (delivery itself is tested under test/engine).
import { randomBytes } from 'node:crypto';
import type { DeliveryEngine, EngineDeps } from '../src/engine/index.js';
import { createHerald } from '../src/index.js';
import type { Herald, HeraldOptions } from '../src/index.js';
import type { CoreContext } from '../src/context.js';
import { createSecretBox } from '../src/crypto/secret-box.js';
import { createCatalog } from '../src/events/catalog.js';
import { silentLogger } from '../src/logger.js';
import { collectionsFor } from '../src/storage/collections.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';

export interface RecordingEngine extends DeliveryEngine {
  notified: string[][];
  deps: EngineDeps | undefined;
}

export function recordingEngine(): RecordingEngine {
  let running = false;
  const engine: RecordingEngine = {
    notified: [],
    deps: undefined,
    async start() { running = true; },
    async stop() { running = false; },
    notify(ids) { engine.notified.push([...ids]); },
    get running() { return running; },
    metrics: () => ({ inFlight: 0, delivered: 0, failed: 0, retried: 0 }),
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
  return {
    collections: collectionsFor(t.database.db, t.options.collectionPrefix ?? 'herald_'),
    secretBox: createSecretBox(t.options.masterKeys),
    catalog: createCatalog(t.options.eventTypes),
    signingProfile: t.options.signingProfile ?? 'standard',
    principals: undefined,
    logger: silentLogger,
    now: () => new Date(),
    secretRotationOverlapMs: 1000,
    notifyEngine: (ids) => t.engine.notify(ids),
  };
}

/** Every document of every collection of the test database, as one JSON text (to scan for plaintext). */
export async function rawDatabaseText(database: TestDatabase): Promise<string> {
  const collections = await database.db.listCollections().toArray();
  const documents = await Promise.all(collections.map((info) => database.db.collection(info.name).find({}).toArray()));
  return JSON.stringify(documents);
}
