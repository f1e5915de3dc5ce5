// Keeps a MongoClient that Herald owns connected after a store outage, whatever the driver's server
// monitor did. The driver learns that a server is back only from its monitor's `hello`. On a store
// whose `hello` carries no `topologyVersion` (FerretDB) the monitor keeps its connection after a
// network error, and a `hello` written to it in the moment the peer closed it waits for a socket
// drain that never comes: the monitor stops, and every operation fails server selection for good.
// No driver option ends that wait, so when no data-bearing server has been known for
// `reopenAfterMs`, the keeper closes the client and connects it again: `close` + `connect` build a
// new topology (new monitors, new pool) inside the same MongoClient, so every Db and Collection made
// from it stays valid, and listeners on the client keep receiving events. While the store stays
// away this repeats: a connect that failed leaves the client's topology closed, so the next check
// connects again (each failed connect takes the server selection timeout), and once the store
// answers a connect finds it. The check is the same on every store: on MongoDB a healthy monitor
// usually finds the server first, and then no reopen happens.
import type { MongoClient, TopologyDescriptionChangedEvent } from 'mongodb';
import type { EngineLogger } from '../shared/logger.js';

export interface ClientKeeper {
  /** Stops watching; waits for a reopen in progress, so the caller may close the client after. */
  stop(): Promise<void>;
}

export interface ClientKeeperOptions {
  logger: Pick<EngineLogger, 'warn' | 'info'>;
  /** How long no data-bearing server may be known before the client is reopened; again as often while it lasts. */
  reopenAfterMs?: number;
}

const CHECK_EVERY_MS = 1_000;

export const DEFAULT_REOPEN_AFTER_MS = 5_000;

export function keepClientConnected(client: MongoClient, options: ClientKeeperOptions): ClientKeeper {
  const { logger, reopenAfterMs = DEFAULT_REOPEN_AFTER_MS } = options;
  const now = Date.now;
  let unreachableSince: number | undefined;
  let lastReopenAt = Number.NEGATIVE_INFINITY;
  /** The last reopen's connect failed: the client's topology is closed until the next one. */
  let closed = false;
  let reopensThisOutage = 0;
  let reopening: Promise<void> | undefined;
  let stopped = false;

  const described = (event: TopologyDescriptionChangedEvent) => {
    if (event.newDescription.hasDataBearingServers) {
      if (unreachableSince !== undefined && reopensThisOutage > 0) {
        logger.info({ reopens: reopensThisOutage, unreachableMs: now() - unreachableSince }, 'database reachable again after reopening the connection');
      }
      unreachableSince = undefined;
      reopensThisOutage = 0;
      closed = false;
    } else {
      unreachableSince ??= now();
    }
  };
  client.on('topologyDescriptionChanged', described);

  const reopen = async () => {
    reopensThisOutage += 1;
    if (reopensThisOutage === 1) {
      logger.warn({ unreachableMs: now() - (unreachableSince ?? now()) }, 'no database server known; reopening the connection, and again every few seconds until one answers');
    }
    // Either step fails while the store is away; the next check tries again.
    await client.close().catch(() => undefined);
    closed = stopped || !(await client.connect().then(() => true, () => false));
    lastReopenAt = now();
  };

  const timer = setInterval(() => {
    if (stopped || reopening || unreachableSince === undefined) return;
    if (!closed && now() - Math.max(unreachableSince, lastReopenAt) < reopenAfterMs) return;
    reopening = reopen().finally(() => {
      reopening = undefined;
    });
  }, CHECK_EVERY_MS);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      client.off('topologyDescriptionChanged', described);
      await reopening;
    },
  };
}
