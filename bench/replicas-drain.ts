// Replicas draining one backlog: EVENTS (1,000) events × 10 subscribers are published while no
// engine runs, so every row waits PENDING in the queue, as after an outage; then WORKERS (2)
// engines start on the same database at once and the drain is timed to the last delivery. Prints
// the drain rate, duplicates (a delivery received twice) and the claims that lost rows to another
// engine (each followed by a read of which rows it won). Run it with WORKERS=1 beside WORKERS=2 to
// see whether a second replica adds throughput.
//
//   npm run bench:replicas
//
// MONGODB_URI names the store (else memory-mongo is started: scripts/tools/memory-mongo.sh). The
// engines share this process, as the receiver does: it measures how they share the queue, not CPU.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient, type Db } from 'mongodb';
import { createHerald, type Herald } from '@herald/core';
import { endScript, scriptStore } from './memory-mongo.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000);
const WORKERS = Number(process.env.WORKERS ?? 2);
const SUBSCRIBERS = 10;
const scope = { orgId: 'replicas', actor: 'bench' };
const masterKeys = { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } };

const store = await scriptStore();
const { uri } = store;

const received = new Map<string, number>();
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const id = String(request.headers['herald-delivery-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
    response.end();
  });
});
await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

/** The engines' reads of which rows a claim won: sent only when a claim lost some. */
let lostClaims = 0;
const monitored = (): MongoClient => {
  const monitoredClient = new MongoClient(uri, { monitorCommands: true });
  monitoredClient.on('commandStarted', (event) => {
    const command = event.command as { find?: string; filter?: Record<string, unknown> };
    if (command.find === 'herald_delivery_queue' && command.filter && 'leaseOwner' in command.filter) lostClaims += 1;
  });
  return monitoredClient;
};
const client = monitored();
await client.connect();
const db = client.db(`replicas_${randomBytes(3).toString('hex')}`);
const silent = () => {};
const open = (database: Db): Promise<Herald> =>
  createHerald({
    mongo: { db: database },
    masterKeys,
    eventTypes: [{ type: 'order.created' }],
    logger: { debug: silent, info: silent, warn: (obj, msg) => console.warn(msg, obj), error: (obj, msg) => console.error(msg, obj) },
    delivery: { ssrfAllowList: ['127.0.0.0/8'], pollIntervalMs: 1_000, retentionMs: 0 },
  });

// The publisher's engine never starts: every row it writes waits for the workers' polls.
const publisher = await open(db);
for (let i = 0; i < SUBSCRIBERS; i += 1) {
  await publisher.subscribers.create(scope, { displayName: `s${i}`, targetUrl: `${receiverUrl}/s${i}`, secret: `replica-secret-${i}-0123456789`, events: ['order.*'] });
}
const expected = EVENTS * SUBSCRIBERS;
const publishing = Date.now();
for (let first = 0; first < EVENTS; first += 100) {
  const items = Array.from({ length: Math.min(100, EVENTS - first) }, (_, k) => ({ eventType: 'order.created', aggregateId: `o${first + k}`, data: { n: first + k } }));
  await publisher.events.publishMany(scope, items);
}
console.error(`  ${expected} rows queued in ${((Date.now() - publishing) / 1000).toFixed(1)} s`);
// Each worker has a connection pool of its own, as a replica would.
const workerClients = await Promise.all(Array.from({ length: WORKERS }, () => monitored().connect()));
const workers = await Promise.all(workerClients.map((workerClient) => open(workerClient.db(db.databaseName))));
lostClaims = 0;
const started = Date.now();
await Promise.all(workers.map((worker) => worker.start()));
let reported = started;
while (received.size < expected && Date.now() - started < 300_000) {
  await new Promise((tick) => setTimeout(tick, 20));
  if (Date.now() - reported >= 5_000) {
    reported = Date.now();
    console.error(`  … ${received.size} of ${expected} delivered after ${Math.round((reported - started) / 1000)} s`);
  }
}
const drainMs = Date.now() - started;
await new Promise((settle) => setTimeout(settle, 500)); // a late duplicate would arrive now
const duplicates = [...received.values()].reduce((sum, count) => sum + count - 1, 0);
console.log(
  JSON.stringify({ store: store.label, workers: WORKERS, rows: expected, received: received.size, drainMs, deliveriesPerSecond: Math.round((received.size / drainMs) * 1000), duplicates, lostClaims }),
);

await endScript(store, async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await publisher.close();
  await Promise.all(workerClients.map((workerClient) => workerClient.close()));
  await db.dropDatabase();
  await client.close();
  receiver.closeAllConnections();
  receiver.close();
});
