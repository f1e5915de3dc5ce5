// The imperative shell: connects MongoDB, creates Herald (core), the server's stores and the Fastify
// app, starts what the mode asks for, and knows how to stop it all in order.
import { clientTimeoutOptions, createHerald, keepClientConnected, type Herald } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import { MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { ensureBootstrapToken, type BootstrapResult } from './auth/bootstrap.js';
import { createJwtVerifier } from './auth/jwt-verifier.js';
import { seededTokenId } from './auth/api-token.js';
import { createPrincipalDirectory } from './auth/principals.js';
import { TokenStore } from './auth/token-store.js';
import { eventTypeDefinitions } from './config/event-types.js';
import type { HostConfig } from './config/schema.js';
import { readSeedTokensFile } from './config/seed-tokens.js';
import { createLogger, logFormatFor } from './logging/logger.js';
import { startTracing } from './telemetry/tracing.js';
import { HostMetrics } from './metrics/host-metrics.js';
import { readAttemptDurationsBetween, readQueueStats } from './metrics/queue-stats.js';
import { PortalStore } from './portal/portal-store.js';
import { ProjectStore } from './projects/project-store.js';
import { LISTEN_PATH } from './listen/registry.js';
import { connectWhenReachable, databaseHosts } from './store-wait.js';

export type HostMode = 'all' | 'api-only' | 'engine-only';

export interface StartHostOptions {
  mode?: HostMode;
  logger?: Logger;
}

export interface RunningHost {
  app: FastifyInstance;
  herald: Herald;
  /** http://host:port actually bound (port 0 resolved). */
  url: string;
  /** Present only on the very first start of a fresh instance. */
  bootstrap?: BootstrapResult;
  /** Stops accepting requests, drains in-flight deliveries within config.drainTimeoutMs, closes MongoDB. */
  close(): Promise<void>;
}

/** Upserts the deployer's tokens; logs names, ids and what changed — never a token value. */
async function seedTokens(tokens: TokenStore, file: string, logger: Logger): Promise<void> {
  for (const seed of readSeedTokensFile(file)) {
    const outcome = await tokens.upsertSeeded(seed);
    logger.info({ name: seed.name, tokenId: seededTokenId(seed.name), scopes: seed.scopes, outcome }, 'seeded API token');
  }
}

/** The address this process reaches itself on: a wildcard bind is reached over loopback. */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startHost(config: HostConfig, options: StartHostOptions = {}): Promise<RunningHost> {
  const mode = options.mode ?? 'all';
  const tracing = startTracing();
  const logger = options.logger ?? createLogger(config.logLevel, undefined, logFormatFor(config.logFormat, process.stdout.isTTY === true));
  // Driver options (timeouts, TLS, pool) come from the URI, so operators tune them in one place;
  // where it is silent, timeouts default to answering within seconds during an outage.
  const client = new MongoClient(config.mongodbUri, clientTimeoutOptions(config.mongodbUri));
  await connectWhenReachable(client, { logger, listen: { host: config.host, port: config.port }, engine: mode === 'api-only' ? 'disabled' : 'stopped' });
  const keeper = keepClientConnected(client, { logger: logger.child({ component: 'store' }) });
  const db = client.db(config.mongodbDbName);
  // Whatever started before a failure is stopped again, so a failed start never leaves work running.
  let herald: Herald | undefined;
  let app: FastifyInstance | undefined;
  try {
    const tokens = new TokenStore(db);
    const principals = createPrincipalDirectory(tokens);
    const projects = new ProjectStore(db, (ids) => principals.existing(ids));
    const portal = new PortalStore(db);
    await Promise.all([tokens.ensureIndexes(), projects.ensureIndexes(), portal.ensureIndexes()]);
    const bootstrap = mode === 'engine-only' ? undefined : await ensureBootstrapToken(db, tokens, config.dataDir);
    if (config.seedTokensFile && mode !== 'engine-only') await seedTokens(tokens, config.seedTokensFile, logger);

    // Known once the app listens; until then (and without an engine here) nothing is exempted.
    let selfOrigin: string | undefined;
    const core = await createHerald({
      mongo: { client, dbName: config.mongodbDbName },
      masterKeys: config.masterKeys,
      signingProfile: config.signingProfile,
      eventTypes: eventTypeDefinitions(config),
      principals,
      delivery: {
        ssrfAllowList: config.ssrfAllowList,
        ...(config.egressProxy !== undefined ? { egressProxy: config.egressProxy } : {}),
        ...(config.egressProxies !== undefined ? { egressProxies: config.egressProxies } : {}),
        ...(config.retryScheduleMs ? { retrySchedule: config.retryScheduleMs } : {}),
        ...(config.maxAttempts ? { maxAttempts: config.maxAttempts } : {}),
        ...(config.retentionMs !== undefined ? { retentionMs: config.retentionMs } : {}),
        ...(config.retentionByEventType ? { retentionByEventType: config.retentionByEventType } : {}),
        ...(config.leaseMarginMs ? { leaseMarginMs: config.leaseMarginMs } : {}),
        ...(config.maintenanceIntervalMs ? { maintenanceIntervalMs: config.maintenanceIntervalMs } : {}),
        ...(config.stallAfterMs ? { stallAfterMs: config.stallAfterMs } : {}),
        ...(config.loopStuckAfterMs ? { loopStuckAfterMs: config.loopStuckAfterMs } : {}),
        ...(config.breaker !== undefined ? { breaker: config.breaker } : {}),
        ...(config.autoDisableAfterMs !== undefined ? { autoDisableAfterMs: config.autoDisableAfterMs } : {}),
        ...(config.deliveryTraceparent ? { traceparentHeader: true } : {}),
        selfTargetPrefix: () => (selfOrigin === undefined ? undefined : `${selfOrigin}${LISTEN_PATH}`),
      },
      logger: logger.child({ component: 'core' }),
    });
    herald = core;
    const engineEnabled = mode !== 'api-only';
    if (engineEnabled) await core.start();

    const metrics = new HostMetrics();
    app = await buildApp(
      config,
      {
        herald: core,
        tokens,
        projects,
        portal,
        jwtVerifier: config.jwt ? createJwtVerifier(config.jwt) : undefined,
        logger,
        metrics,
        metricSources: {
          engine: () => (engineEnabled ? { running: true, ...core.metrics() } : undefined),
          queue: () => readQueueStats(db),
          attemptDurationsBetween: (since, until) => readAttemptDurationsBetween(db, since, until),
        },
        readiness: async () => {
          const state = await core.health();
          return state.mongo ? state : { ...state, database: `${databaseHosts(client)} does not answer` };
        },
        selfOrigin: () => selfOrigin,
      },
      { api: mode !== 'engine-only', engineEnabled },
    );
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    if (mode === 'all') selfOrigin = `http://${loopbackFor(config.host)}:${port}`;
    logger.info({ url, mode, org: config.org, readOnly: config.readOnly }, 'herald-server listening');

    let closing: Promise<void> | undefined;
    const startedApp = app;
    return {
      app: startedApp,
      herald: core,
      url,
      bootstrap,
      close() {
        closing ??= (async () => {
          await startedApp.close();
          await core.stop({ drainTimeoutMs: config.drainTimeoutMs });
          await keeper.stop();
          await client.close();
          await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'traces not exported at stop'));
          logger.info('herald-server stopped');
        })();
        return closing;
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await herald?.stop({ drainTimeoutMs: 0 }).catch(() => undefined);
    await keeper.stop();
    await client.close().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  }
}
