// A Herald over the test database with fast engine timings, plus polling helpers.
import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { createHerald, type DeliveryOptions, type Herald, type HeraldOptions, type SigningProfile, type WebhookEventDetail } from '../../../src/index.js';
import { openTestDatabase, type TestDatabase } from '../../../../../test/support/mongo.js';

export const scope = { orgId: 'acme', actor: 'tester' };

export const FAST_DELIVERY: DeliveryOptions = {
  retrySchedule: [150, 300],
  maxAttempts: 3,
  pollIntervalMs: 100,
  leaseMarginMs: 500,
  maintenanceIntervalMs: 300,
  jobPollIntervalMs: 200,
  ssrfAllowList: ['127.0.0.0/8', '::1'],
};

export interface Harness {
  database: TestDatabase;
  herald: Herald;
  masterKey: string;
  close(): Promise<void>;
}

export async function startHarness(options: { profile?: SigningProfile; delivery?: DeliveryOptions; start?: boolean; database?: TestDatabase; masterKey?: string; now?: () => Date } = {}): Promise<Harness> {
  const database = options.database ?? (await openTestDatabase('engine'));
  const masterKey = options.masterKey ?? randomBytes(32).toString('base64');
  const herald = await createHerald({
    mongo: { db: database.db },
    masterKeys: { current: 'k1', keys: { k1: masterKey } },
    signingProfile: options.profile ?? 'standard',
    delivery: { ...FAST_DELIVERY, ...options.delivery },
    eventTypes: [{ type: 'card.issued', sensitive: ['pan'] }, { type: 'order.created' }],
    ...(options.now ? { now: options.now } : {}),
  });
  if (options.start !== false) await herald.start();
  return {
    database,
    herald,
    masterKey,
    async close() {
      await herald.close();
      if (!options.database) await database.close();
    },
  };
}

export interface WatchedHarness {
  database: TestDatabase;
  herald: Herald;
  /** Every command Herald sent, in order (the harness's client is Herald's alone). */
  started: CommandStartedEvent[];
  close(): Promise<void>;
}

/** A Herald (not started) over a client of its own that records every command it sends. */
export async function startWatchedHarness(prefix: string, options: Pick<HeraldOptions, 'storeCompat'> = {}): Promise<WatchedHarness> {
  const database = await openTestDatabase(prefix);
  const started: CommandStartedEvent[] = [];
  const client = new MongoClient(database.uri, { monitorCommands: true });
  client.on('commandStarted', (command) => started.push(command));
  await client.connect();
  const herald = await createHerald({
    mongo: { client, dbName: database.dbName },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: FAST_DELIVERY,
    ...options,
  });
  return {
    database,
    herald,
    started,
    async close() {
      await herald.close();
      await client.close();
      await database.close();
    },
  };
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  return last;
}

export function eventSettles(herald: Herald, eventId: string, timeoutMs?: number): Promise<WebhookEventDetail> {
  return eventually(
    () => herald.events.get(scope, eventId),
    (event) => event.status === 'ALL_DELIVERED' || event.status === 'FAILED',
    timeoutMs,
  );
}
