// A burst of publishes into an embedded Herald, and what the store was asked meanwhile: 1,000
// events × 10 subscribers published by 4 concurrent callers, in batches (`publishMany`, BATCH=100)
// or one per call (BATCH=1), delivered to a loopback receiver answering 200. Prints the publish
// time, the drain rate, and every command Herald sent by name, collection and statement count
// (one statement or several), with its count, total and mean time: where a burst's time goes.
//
//   npm run bench:burst
//
// MONGODB_URI names the store (else memory-mongo is started: scripts/tools/memory-mongo.sh);
// EVENTS and BATCH change the burst. A diagnosis, not a benchmark: one run, no targets.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { createHerald } from '@herald/core';
import { endScript, scriptStore } from './memory-mongo.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000);
const BATCH = Number(process.env.BATCH ?? 100);
const PUBLISHERS = 4;
const SUBSCRIBERS = 10;
const scope = { orgId: 'burst', actor: 'bench' };

const store = await scriptStore();
const { uri } = store;

let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received += 1;
    response.end();
  });
});
await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const client = new MongoClient(uri, { monitorCommands: true });
const names = new Map<number, string>();
const profile = new Map<string, { n: number; ms: number }>();
client.on('commandStarted', (event) => {
  const command = event.command as Record<string, unknown>;
  const statements = (command.updates ?? command.deletes ?? command.documents) as unknown[] | undefined;
  const shape = statements === undefined ? '' : statements.length > 1 ? ' (several)' : ' (one)';
  names.set(event.requestId, `${event.commandName} ${String(command[event.commandName])}${shape}`);
});
client.on('commandSucceeded', (event) => {
  const key = names.get(event.requestId) ?? event.commandName;
  names.delete(event.requestId);
  const entry = profile.get(key) ?? { n: 0, ms: 0 };
  entry.n += 1;
  entry.ms += event.duration;
  profile.set(key, entry);
});
await client.connect();
const db = client.db(`burst_${randomBytes(3).toString('hex')}`);
const silent = () => {};
const herald = await createHerald({
  mongo: { db },
  masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
  eventTypes: [{ type: 'order.created' }],
  logger: { debug: silent, info: silent, warn: (obj, msg) => console.warn(msg, obj), error: (obj, msg) => console.error(msg, obj) },
  // The host's poll interval, so the burst drains as it would behind `herald-server`.
  delivery: { ssrfAllowList: ['127.0.0.0/8'], pollIntervalMs: 1_000, retentionMs: 0 },
});
for (let i = 0; i < SUBSCRIBERS; i += 1) {
  await herald.subscribers.create(scope, { displayName: `s${i}`, targetUrl: `${receiverUrl}/s${i}`, secret: `burst-secret-${i}-0123456789`, events: ['order.*'] });
}
await herald.start();
profile.clear();

const started = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: PUBLISHERS }, async () => {
    while (next < EVENTS) {
      const first = next;
      next = Math.min(EVENTS, next + BATCH);
      const items = Array.from({ length: next - first }, (_, k) => ({ eventType: 'order.created', aggregateId: `o${first + k}`, data: { n: first + k } }));
      if (BATCH === 1) await herald.events.publish(scope, items[0]!);
      else await herald.events.publishMany(scope, items);
    }
  }),
);
const publishMs = Date.now() - started;
while (received < EVENTS * SUBSCRIBERS && Date.now() - started < 300_000) await new Promise((tick) => setTimeout(tick, 20));
const drainMs = Date.now() - started;
console.log(JSON.stringify({ store: store.label, events: EVENTS, batch: BATCH, publishMs, drainMs, received, deliveriesPerSecond: Math.round((received / drainMs) * 1000) }));
console.log('command (count, total ms, mean ms):');
for (const [key, { n, ms }] of [...profile].sort((a, b) => b[1].ms - a[1].ms)) console.log(`  ${key.padEnd(48)} ${String(n).padStart(6)} ${ms.toFixed(0).padStart(7)} ${(ms / n).toFixed(1).padStart(7)}`);

await endScript(store, async () => {
  await herald.close();
  await db.dropDatabase();
  await client.close();
  receiver.closeAllConnections();
  receiver.close();
});
