// createHerald: wires storage, crypto, catalog, services and the delivery engine (the imperative shell).
import { MongoClient, type Db } from 'mongodb';
import { DEFAULT_SECRET_ROTATION_OVERLAP_MS, type CoreContext } from './context.js';
import { createSecretBox } from './crypto/secret-box.js';
import { createDeliveryService } from './deliveries/service.js';
import { createDeliveryEngine, type DeliveryEngine, type EngineDeps } from './engine/index.js';
import { createCatalog } from './model/catalog.js';
import { payloadOf } from './events/fan-out.js';
import { completeInterruptedFanOuts } from './events/fan-out-recovery.js';
import { OPERATIONAL_EVENT_TYPES, operationalEmitter } from './model/operational.js';
import { createEventService } from './events/service.js';
import { stepRecoveries } from './deliveries/recovery.js';
import { silentLogger } from './shared/logger.js';
import { collectionsFor, DEFAULT_COLLECTION_PREFIX, type Collections } from './storage/collections.js';
import { ConfigError } from './shared/errors.js';
import { clientTimeoutOptions } from './storage/availability.js';
import { keepClientConnected } from './storage/client-keeper.js';
import { detectStoreCompat, type StoreCompat } from './storage/compat.js';
import { ensureIndexes } from './storage/indexes.js';
import { watchStore } from './storage/store-watch.js';
import { reportStoreSilence } from './storage/silence-report.js';
import { createSubscriberDirectory } from './model/subscriber-directory.js';
import { createSubscriberService } from './subscribers/service.js';
import { autoDisableSubscriber } from './subscribers/auto-disable.js';
import { createRetentionService } from './retention/service.js';
import { resolveConfig } from './engine/config.js';
import { createEgressProxies, type EgressProxies, type EgressProxyOptions } from './engine/egress/proxy-config.js';
import type { Herald, HeraldOptions, MongoConnection } from './types.js';

/** How long the readiness probe waits for its own read. */
export const HEALTH_PROBE_TIMEOUT_MS = 1_000;

/**
 * A probe read that has not answered in time still reads as up when the store answered another
 * command this recently: the store is busy (a long cancellation, a burst of publishes), not stuck.
 */
export const HEALTH_BUSY_WINDOW_MS = 2_000;

/** An event this old with fewer rows than it planned is not a publish in progress but an interrupted one. */
export const PENDING_FAN_OUT_GRACE_MS = 30_000;

async function connect(mongo: MongoConnection): Promise<{ db: Db; ownedClient: MongoClient | undefined }> {
  if ('db' in mongo) return { db: mongo.db, ownedClient: undefined };
  if ('client' in mongo) return { db: mongo.client.db(mongo.dbName), ownedClient: undefined };
  const client = new MongoClient(mongo.uri, clientTimeoutOptions(mongo.uri));
  await client.connect();
  return { db: client.db(mongo.dbName), ownedClient: client };
}

/** Stored secrets sealed under a key that is not configured could never sign: refuse to start. */
async function assertSecretsReadable(collections: Collections, keyIds: readonly string[]): Promise<void> {
  const unreadable = await collections.subscribers.findOne(
    { secret: { $exists: true }, 'secret.keyId': { $nin: [...keyIds] } },
    { projection: { 'secret.keyId': 1 } },
  );
  if (unreadable?.secret) {
    throw new ConfigError(
      keyIds.length === 0
        ? 'subscribers have secrets stored, but no master key is configured (masterKeys option)'
        : `subscribers have secrets sealed with master key "${unreadable.secret.keyId}", which is not configured`,
    );
  }
  const unreadableOAuth2 = await collections.subscribers.findOne(
    { 'oauth2.clientSecret': { $exists: true }, 'oauth2.clientSecret.keyId': { $nin: [...keyIds] } },
    { projection: { 'oauth2.clientSecret.keyId': 1 } },
  );
  if (unreadableOAuth2?.oauth2) {
    throw new ConfigError(
      keyIds.length === 0
        ? 'subscribers have OAuth2 client secrets stored, but no master key is configured (masterKeys option)'
        : `subscribers have OAuth2 client secrets sealed with master key "${unreadableOAuth2.oauth2.clientSecret.keyId}", which is not configured`,
    );
  }
  const unreadableKey = await collections.subscribers.findOne(
    { 'tls.key': { $exists: true }, 'tls.key.keyId': { $nin: [...keyIds] } },
    { projection: { 'tls.key.keyId': 1 } },
  );
  if (unreadableKey?.tls?.key) {
    throw new ConfigError(
      keyIds.length === 0
        ? 'subscribers have TLS client keys stored, but no master key is configured (masterKeys option)'
        : `subscribers have TLS client keys sealed with master key "${unreadableKey.tls.key.keyId}", which is not configured`,
    );
  }
}

/** Checked before connecting, like the master keys: a bad proxy URL is a ConfigError, its text never repeated. */
function egressProxiesOf(options: EgressProxyOptions): EgressProxies {
  try {
    return createEgressProxies(options);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

export async function createHerald(options: HeraldOptions): Promise<Herald> {
  // Configuration errors first, before any connection is opened.
  const secretBox = createSecretBox(options.masterKeys);
  const catalog = createCatalog(options.eventTypes);
  for (const definition of OPERATIONAL_EVENT_TYPES) catalog.register(definition);
  const egressProxies = egressProxiesOf(options.delivery ?? {});
  const { db, ownedClient } = await connect(options.mongo);
  const prefix = options.collectionPrefix ?? DEFAULT_COLLECTION_PREFIX;
  const collections = collectionsFor(db, prefix);
  const logger = options.logger ?? silentLogger;
  const signingProfile = options.signingProfile ?? 'standard';

  let compat: StoreCompat;
  try {
    compat = await detectStoreCompat(db, options.storeCompat);
    await ensureIndexes(collections);
    await assertSecretsReadable(collections, secretBox.keyIds);
  } catch (error) {
    await ownedClient?.close();
    throw error;
  }

  // The context only calls the engine after createHerald has returned, by which time
  // `deliveryEngine` (declared below) exists.
  const context: CoreContext = {
    collections,
    compat,
    directory: createSubscriberDirectory(collections),
    secretBox,
    catalog,
    signingProfile,
    principals: options.principals,
    logger,
    now: options.now ?? (() => new Date()),
    secretRotationOverlapMs: options.delivery?.secretRotationOverlapMs ?? DEFAULT_SECRET_ROTATION_OVERLAP_MS,
    engine: {
      admit: (requests, now) => deliveryEngine.admit(requests, now),
      handOver: (handOver) => deliveryEngine.handOver(handOver),
      notify: () => deliveryEngine.notify(),
    },
    // Herald's own events go through the event service, created below with this context.
    emit: (orgId, event, cause) => emit(orgId, event, cause),
    egressProxyNames: egressProxies.names,
    background: new Set(),
  };
  const events = createEventService(context);
  const emit = operationalEmitter(events.publishOperational, logger);

  const completePending = () =>
    completeInterruptedFanOuts(context, new Date(context.now().getTime() - PENDING_FAN_OUT_GRACE_MS));
  const deps: EngineDeps = {
    db,
    prefix,
    signingProfile,
    options: options.delivery ?? {},
    logger,
    compat,
    openSecret: (sealed) => secretBox.open(sealed),
    payloadOf: (event) => payloadOf(context, event),
    completePendingFanOuts: completePending,
    stepRecoveries: () => stepRecoveries(context),
    emit: (orgId, event, cause) => emit(orgId, event, cause),
    disableSubscriber: (request) => autoDisableSubscriber(context, request),
    ...(options.now ? { now: options.now } : {}),
  };
  const deliveryEngine: DeliveryEngine = (options.engineFactory ?? createDeliveryEngine)(deps);

  /** The smallest read Herald has: one `_id` of a tiny collection. The store watch and health() send it. */
  const probeRead = () => collections.orgState.findOne({}, { projection: { _id: 1 } });
  const storeWatch = watchStore(db.client, { probe: probeRead });
  const silenceReport = reportStoreSilence(storeWatch, logger);
  // Only a client Herald made is reopened; one handed in is its owner's to keep (keepClientConnected is exported).
  const keeper = ownedClient ? keepClientConnected(ownedClient, { logger }) : undefined;

  let closed = false;
  return {
    subscribers: createSubscriberService(context),
    catalog,
    events,
    deliveries: createDeliveryService(context),
    retention: createRetentionService(context, resolveConfig(options.delivery ?? {})),
    async start() {
      await completePending();
      await deliveryEngine.start();
    },
    async stop(stopOptions) {
      await deliveryEngine.stop(stopOptions);
    },
    async close() {
      if (closed) return;
      closed = true;
      await deliveryEngine.stop();
      await Promise.all(context.background);
      silenceReport.stop();
      storeWatch.stop();
      await keeper?.stop();
      await ownedClient?.close();
    },
    async health() {
      // A read of its own, outside the store lane (a busy lane is not a down store), bounded: a
      // store that accepts connections but answers nothing reads as down within a second, one that
      // answered other commands just now as busy and up.
      const probe = probeRead().then(
        () => 'up' as const,
        () => 'down' as const,
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), HEALTH_PROBE_TIMEOUT_MS); });
      const outcome = await Promise.race([probe, late]).finally(() => clearTimeout(timer));
      const mongo = outcome === 'up' || (outcome === 'late' && storeWatch.sinceLastAnswerMs() < HEALTH_BUSY_WINDOW_MS);
      return { mongo, engine: deliveryEngine.running ? 'running' : 'stopped' };
    },
    storeSilentForMs: () => storeWatch.silentForMs(),
    metrics: () => deliveryEngine.metrics(),
  };
}
