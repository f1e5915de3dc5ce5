// Where Herald's CPU goes per delivery: a fan-out run (`BENCH_PROFILE_EVENTS` events × 10
// subscribers, 4 publishers, the receiver in its own process) with V8's sampling profiler on for
// the measured part only (after a warm-up), then the functions that took the most self time, and
// the same summed per source (a core file, a dependency, node's own). Writes the whole profile to
// .data/bench/delivery.cpuprofile, which Chrome's DevTools opens. Then the raw client's CPU per
// request (bench/raw-probe.ts, a process of its own) on the same machine, right after, to divide by.
// `BENCH_PROFILE_V8=0` leaves V8's profiler off, for `perf`, which samples every thread itself.
//
//   npm run bench:profile                      the default store (FerretDB)
//   BENCH_STORE=memory-mongo npm run bench:profile   the MongoDB path
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import { clientTimeoutOptions, createHerald } from '../packages/core/src/index.js';
import { startStoreProcess } from '../test/support/store-process.js';
import { startMemoryMongo } from './memory-mongo.js';
import { runRawProbe } from './raw-probe.js';

const EVENTS = Number(process.env.BENCH_PROFILE_EVENTS ?? 2_000);
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? 300);
const SUBSCRIBERS = 10;
const PUBLISHERS = 4;
const TOP = 25;
const V8_PROFILER = process.env.BENCH_PROFILE_V8 !== '0';
const root = resolve(import.meta.dirname, '..');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

async function startStore(): Promise<{ uri: string; stop(): Promise<void> }> {
  if (process.env.MONGODB_URI) return { uri: process.env.MONGODB_URI, stop: async () => undefined };
  return process.env.BENCH_STORE === 'memory-mongo' ? startMemoryMongo() : startStoreProcess();
}

async function startSink(): Promise<{ url: string; count(): Promise<number>; stop(): void }> {
  const child = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done) => createInterface({ input: child.stdout! }).once('line', (line) => done((JSON.parse(line) as { port: number }).port)));
  const url = `http://127.0.0.1:${port}`;
  let seen = 0;
  return {
    url,
    async count() {
      seen += ((await (await fetch(`${url}/receipts?since=${seen}`)).json()) as unknown[]).length;
      return seen;
    },
    stop: () => void child.kill('SIGTERM'),
  };
}

/** A dependency by its package name, a file of ours by its path, the rest by kind. */
function sourceOf(file: string, functionName: string): string {
  if (file.includes('node_modules/')) {
    const inside = file.split('node_modules/').at(-1)!.split('/');
    return `dependency ${inside.slice(0, inside[0]!.startsWith('@') ? 2 : 1).join('/')}`;
  }
  if (file.startsWith('packages/') || file.startsWith('bench/')) return file;
  if (file.startsWith('node:')) return 'node internals';
  return functionName.startsWith('(') ? functionName : 'other (V8 builtins, natives)';
}

/** Self time per function and per source, from the sampled call tree. */
function summarize(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }) {
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000));
  const byFunction = new Map<string, number>();
  const bySource = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(`file://${root}/`, '');
    const name = `${functionName || '(anonymous)'}  ${file || '(native)'}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    const source = sourceOf(file, functionName);
    bySource.set(source, (bySource.get(source) ?? 0) + ms);
  }
  const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  return { total, byFunction, bySource };
}

async function main(): Promise<void> {
  const store = await startStore();
  const sink = await startSink();
  // The client the host creates. Operations are counted from its pool's check-outs: command events
  // would need `monitorCommands`, which costs CPU the host does not spend.
  const client = new MongoClient(store.uri, clientTimeoutOptions(store.uri));
  let commands = 0;
  client.on('connectionCheckedOut', () => { commands += 1; });
  await client.connect();
  const herald = await createHerald({
    mongo: { client, dbName: `profile_${Date.now()}` },
    masterKeys: { current: 'k1', keys: { k1: randomBytes(32).toString('base64') } },
    eventTypes: [{ type: 'order.created', sensitive: ['card'] }],
    logger: { debug() {}, info() {}, warn: (o, m) => console.warn(m, JSON.stringify(o)), error: (o, m) => console.error(m, JSON.stringify(o)) },
    delivery: { ssrfAllowList: ['127.0.0.0/8'], retrySchedule: [200], maxAttempts: 5 },
  });
  await herald.start();
  const scope = { orgId: 'profile', actor: 'bench' };
  for (let i = 0; i < SUBSCRIBERS; i++) {
    await herald.subscribers.create(scope, { displayName: `s${i}`, targetUrl: `${sink.url}/s${i}`, events: ['order.*'], secret: `profile-secret-${i}-0123456789` });
  }
  const fanOut = async (events: number) => {
    const target = (await sink.count()) + events * SUBSCRIBERS;
    let next = 0;
    await Promise.all(Array.from({ length: PUBLISHERS }, async () => {
      while (next < events) {
        const i = next++;
        await herald.events.publish(scope, { eventType: 'order.created', aggregateId: `o-${i}`, data: { total: i, card: '4111111111111111' } });
      }
    }));
    while ((await sink.count()) < target) await new Promise((done) => setTimeout(done, 50));
  };
  await fanOut(WARMUP);

  const session = V8_PROFILER ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  const cpuBefore = process.cpuUsage();
  const commandsBefore = commands;
  const started = performance.now();
  await session?.post('Profiler.start');
  await fanOut(EVENTS);
  const profile = session ? (await session.post('Profiler.stop')).profile : undefined;
  const cpu = process.cpuUsage(cpuBefore);
  const commandsPerDelivery = (commands - commandsBefore) / (EVENTS * SUBSCRIBERS);
  const seconds = (performance.now() - started) / 1000;
  session?.disconnect();

  const deliveries = EVENTS * SUBSCRIBERS;
  const cpuMsPerDelivery = (cpu.user + cpu.system) / 1000 / deliveries;
  console.log(`${deliveries} deliveries in ${seconds.toFixed(1)} s; Herald's process CPU ${cpuMsPerDelivery.toFixed(3)} ms per delivery (${(cpu.system / 1000 / deliveries).toFixed(3)} of it in the kernel), ${commandsPerDelivery.toFixed(2)} store operations per delivery`);
  const raw = runRawProbe(20_000).cpuMsPerRequest;
  console.log(`the raw client right after: ${raw.toFixed(3)} ms CPU per request; Herald ÷ raw ${(cpuMsPerDelivery / raw).toFixed(2)}${V8_PROFILER ? ' (V8\'s profiler on: Herald\'s figure includes its cost)' : ''}`);
  if (profile) {
    mkdirSync(resolve(root, '.data/bench'), { recursive: true });
    writeFileSync(resolve(root, '.data/bench/delivery.cpuprofile'), JSON.stringify(profile));
    const { total, byFunction, bySource } = summarize(profile as unknown as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] });
    const share = (ms: number) => `${((ms / total) * 100).toFixed(1).padStart(5)} %  ${(ms / deliveries * 1000).toFixed(1).padStart(6)} µs/delivery`;
    console.log('profile written to .data/bench/delivery.cpuprofile');
    console.log('\nself time by source ((idle): the process waited; (garbage collector) and (program): V8 itself):');
    for (const [source, ms] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${share(ms)}  ${source}`);
    console.log('\nself time by function:');
    for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${share(ms)}  ${name}`);
  }

  await herald.close();
  await client.close();
  sink.stop();
  await store.stop();
}

await main();
