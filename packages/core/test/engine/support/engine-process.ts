// A Herald in its own process, for crash and multi-process tests. Run with
//   node --import ./register-ts.mjs --conditions=herald-source engine-process.ts
// Env: MONGO_URI, DB_NAME, MASTER_KEY (base64), PUBLISH (events to publish, default 0),
// EVENT_TYPE, CONCURRENCY, LEASE_MARGIN_MS. Prints one JSON line per accepted event: {"accepted": "<eventId>"}.
// SIGTERM closes Herald and exits; SIGINT closes Herald and its client, prints {"closed": true} and
// leaves the process to end by itself (an application that closes Herald and stops).
import { MongoClient } from 'mongodb';
import { createHerald } from '../../../src/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const client = new MongoClient(env('MONGO_URI'));
await client.connect();
const herald = await createHerald({
  mongo: { db: client.db(env('DB_NAME')) },
  masterKeys: { current: 'k1', keys: { k1: env('MASTER_KEY') } },
  delivery: {
    retrySchedule: [200, 400],
    maxAttempts: 5,
    pollIntervalMs: 100,
    leaseMarginMs: Number(process.env.LEASE_MARGIN_MS ?? 30_000),
    maintenanceIntervalMs: 300,
    jobPollIntervalMs: 200,
    concurrency: Number(process.env.CONCURRENCY ?? 16),
    perSubscriberConcurrency: Number(process.env.CONCURRENCY ?? 16),
    ssrfAllowList: ['127.0.0.0/8'],
  },
});
await herald.start();
process.stdout.write(`${JSON.stringify({ ready: process.pid })}\n`);

const toPublish = Number(process.env.PUBLISH ?? 0);
for (let i = 0; i < toPublish; i += 1) {
  const { event } = await herald.events.publish(
    { orgId: 'acme', actor: 'child' },
    { eventType: process.env.EVENT_TYPE ?? 'order.created', aggregateId: `a-${i}`, data: { i } },
  );
  process.stdout.write(`${JSON.stringify({ accepted: event.eventId })}\n`);
}

process.on('SIGTERM', () => {
  void herald.close().then(() => client.close()).then(() => process.exit(0));
});
process.on('SIGINT', () => {
  void herald.close().then(() => client.close()).then(() => process.stdout.write(`${JSON.stringify({ closed: true })}\n`));
});
