// `npm run bench:mtls` (also the last step of `make bench`): one subscriber delivering over mutual
// TLS and one with OAuth2 client credentials (a Bearer token from a loopback token endpoint) beside
// one delivering over plain HTTP, the same events published the same way, each on a fresh database. Starts FerretDB (or uses MONGODB_URI), makes a private CA, a server certificate and a
// client certificate with openssl, and runs both receivers in a process of their own
// (bench/mtls-sink.ts) so that Herald's process does only Herald's side of each handshake.
// Figures: deliveries/s (first publish → last receipt) and publish → receipt p50/p99 per subscriber,
// and the mTLS / plain and OAuth2 / plain ratios. Writes .data/bench/mtls.json. Knobs: BENCH_MTLS_EVENTS (2,000; quick
// 500), BENCH_PUBLISH_CONCURRENCY (4), BENCH_PER_SUBSCRIBER_CONCURRENCY (16).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import { request } from 'undici';
import { createHerald, type WebhookSubscriberCreateRequest } from '@herald/core';
import { certificateFactory } from '../test/support/certificates.js';
import { startStoreProcess } from '../test/support/store-process.js';
import { latencySummary, round } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_MTLS_EVENTS', QUICK ? 500 : 2_000);
const PUBLISHERS = num('BENCH_PUBLISH_CONCURRENCY', 4);
const PER_SUBSCRIBER = num('BENCH_PER_SUBSCRIBER_CONCURRENCY', 16);
const scope = { orgId: 'bench-mtls', actor: 'bench' };

type Kind = 'plain' | 'mtls' | 'oauth2';

interface Sinks {
  plainUrl: string;
  mtlsUrl: string;
  oauth2Url: string;
  oauth2TokenUrl: string;
  /** Receipt times (ms since epoch) by event id, of deliveries whose peer presented the client certificate (mtls), an issued token (oauth2) or any (plain). */
  receipts(): Promise<Record<Kind, Record<string, number>>>;
  stop(): void;
}

async function startSinks(serverCert: string, serverKey: string, clientCa: string): Promise<Sinks> {
  const child = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'mtls-sink.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ serverCert, serverKey, clientCa }));
  const ports = await new Promise<Record<Kind, number>>((resolvePorts, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolvePorts(JSON.parse(line) as Record<Kind, number>));
    child.once('exit', (code) => reject(new Error(`the mTLS sink exited ${code}`)));
  });
  return {
    plainUrl: `http://127.0.0.1:${ports.plain}/hook`,
    mtlsUrl: `https://127.0.0.1:${ports.mtls}/hook`,
    oauth2Url: `http://127.0.0.1:${ports.oauth2}/hook`,
    oauth2TokenUrl: `http://127.0.0.1:${ports.oauth2}/token`,
    async receipts() {
      const response = await request(`http://127.0.0.1:${ports.plain}/receipts`);
      return (await response.body.json()) as Record<Kind, Record<string, number>>;
    },
    stop: () => child.kill('SIGTERM'),
  };
}

interface Run {
  deliveriesPerSecond: number;
  latencyMs: ReturnType<typeof latencySummary>;
  lost: number;
}

async function run(uri: string, dbName: string, sinks: Sinks, kind: Kind, subscriber: Omit<WebhookSubscriberCreateRequest, 'displayName'>): Promise<Run> {
  const client = new MongoClient(uri);
  await client.connect();
  const herald = await createHerald({
    mongo: { db: client.db(dbName) },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    delivery: { ssrfAllowList: ['127.0.0.0/8'], perSubscriberConcurrency: PER_SUBSCRIBER, pollIntervalMs: 250, retrySchedule: [250, 500, 1_000], maxAttempts: 10 },
  });
  await herald.subscribers.create(scope, { displayName: `bench ${kind}`, events: ['bench.*'], secret: 'bench-secret-0123456789', ...subscriber });
  await herald.start();
  const published = new Map<string, number>();
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PUBLISHERS }, async () => {
      while (next < EVENTS) {
        const i = next;
        next += 1;
        const at = Date.now();
        const { event } = await herald.events.publish(scope, { eventType: 'bench.tick', aggregateId: `a-${i}`, data: { i, pad: 'x'.repeat(200) } });
        published.set(event.eventId, at);
      }
    }),
  );
  const deadline = Date.now() + 120_000;
  let received: Record<string, number> = {};
  while (Date.now() < deadline) {
    received = (await sinks.receipts())[kind];
    if ([...published.keys()].every((id) => received[id] !== undefined)) break;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  await herald.close();
  await client.db(dbName).dropDatabase();
  await client.close();
  const arrivals = [...published].flatMap(([id, at]) => (received[id] === undefined ? [] : [{ at, receivedAt: received[id] }]));
  const latencies = arrivals.map(({ at, receivedAt }) => receivedAt - at);
  const last = Math.max(started, ...arrivals.map(({ receivedAt }) => receivedAt));
  return {
    deliveriesPerSecond: round((latencies.length * 1000) / Math.max(1, last - started)),
    latencyMs: latencySummary(latencies),
    lost: published.size - latencies.length,
  };
}

async function main(): Promise<void> {
  const store = process.env.MONGODB_URI ? undefined : await startStoreProcess();
  const uri = process.env.MONGODB_URI ?? store!.uri;
  const certs = certificateFactory();
  const serverCa = certs.authority('bench receiver CA');
  const clientCa = certs.authority('bench client CA');
  const server = certs.leaf('bench receiver', serverCa, { serverNames: ['127.0.0.1'] });
  const clientCert = certs.leaf('herald-bench', clientCa);
  const sinks = await startSinks(server.cert, server.key, clientCa.cert);
  try {
    console.log(`Herald mTLS and OAuth2 benchmark — ${EVENTS} events to one subscriber, ${PUBLISHERS} publishers, per-subscriber concurrency ${PER_SUBSCRIBER}`);
    const suffix = randomBytes(4).toString('hex');
    const plain = await run(uri, `bench_plain_${suffix}`, sinks, 'plain', { targetUrl: sinks.plainUrl });
    const mtls = await run(uri, `bench_mtls_${suffix}`, sinks, 'mtls', {
      targetUrl: sinks.mtlsUrl,
      tls: { clientCertificate: clientCert.cert, clientKey: clientCert.key, caBundle: serverCa.cert },
    });
    const oauth2 = await run(uri, `bench_oauth2_${suffix}`, sinks, 'oauth2', {
      targetUrl: sinks.oauth2Url,
      oauth2: { tokenUrl: sinks.oauth2TokenUrl, clientId: 'herald-bench', clientSecret: 'bench-client-secret' },
    });
    const ratio = round(mtls.deliveriesPerSecond / Math.max(1, plain.deliveriesPerSecond));
    const oauth2Ratio = round(oauth2.deliveriesPerSecond / Math.max(1, plain.deliveriesPerSecond));
    for (const [name, figures] of [['plain http', plain], ['mTLS https', mtls], ['OAuth2 http', oauth2]] as const) {
      console.log(`  ${name.padEnd(11)} ${String(figures.deliveriesPerSecond).padStart(8)} deliveries/s   p50 ${figures.latencyMs.p50} ms   p99 ${figures.latencyMs.p99} ms   lost ${figures.lost}`);
    }
    console.log(`  mTLS / plain deliveries/s: ${ratio}`);
    console.log(`  OAuth2 / plain deliveries/s: ${oauth2Ratio}`);
    mkdirSync('.data/bench', { recursive: true });
    writeFileSync('.data/bench/mtls.json', `${JSON.stringify({ events: EVENTS, publishers: PUBLISHERS, perSubscriberConcurrency: PER_SUBSCRIBER, plain, mtls, oauth2, ratio, oauth2Ratio }, null, 2)}\n`);
  } finally {
    sinks.stop();
    certs.dispose();
    await store?.stop();
  }
}

await main();
