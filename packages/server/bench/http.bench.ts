// HTTP benchmark of the real host (herald-server from dist, on FerretDB): a mixed load at a fixed
// 500 req/s (70% subscriber reads, 20% event lists, 10% writes) for p50/p99, then each route's
// ceiling, and the ratio to a trivial Fastify route measured in the same run.
// Run: npm run bench -w packages/server   (compiles first; MONGODB_URI to use another server)
// Written as erasable TypeScript so Node 24 runs it directly (no build step for the bench itself).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort, startFerretDb } from '../../../test/support/ferretdb.ts';

const repoRoot = resolve(import.meta.dirname, '../../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CEILING_SECONDS = Number(process.env.BENCH_CEILING_SECONDS ?? 6);
const children: ChildProcess[] = [];
const stoppers: (() => Promise<void>)[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'herald-bench-'));

interface Result {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  ['2xx']: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

function start(command: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function mongoUri(): Promise<string> {
  if (process.env.MONGODB_URI) return process.env.MONGODB_URI;
  const ferret = await startFerretDb({ dataDir: scratch });
  stoppers.push(() => ferret.stop());
  return ferret.uri;
}

async function startHerald(uri: string): Promise<{ url: string; token: string }> {
  const port = await freePort();
  const dataDir = join(scratch, 'data');
  start(process.execPath, [join(repoRoot, 'packages/server/dist/bin/herald-server.js'), 'start'], {
    HERALD_MONGODB_URI: uri,
    HERALD_MONGODB_DB: 'bench',
    HERALD_PORT: String(port),
    HERALD_DATA_DIR: dataDir,
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    HERALD_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, 'herald-server');
  return { url, token: readFileSync(join(dataDir, 'bootstrap-token'), 'utf8').trim() };
}

async function startTrivial(): Promise<string> {
  const port = await freePort();
  const source = `import Fastify from 'fastify';
const app = Fastify();
app.get('/trivial', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: ${port} });`;
  start(process.execPath, ['--input-type=module', '-e', source]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/trivial`)).ok, 'trivial Fastify');
  return url;
}

async function seed(url: string, token: string): Promise<string[]> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const handles: string[] = [];
  for (let i = 0; i < 50; i++) {
    const response = await fetch(`${url}/api/v0.9/webhook-subscribers`, {
      method: 'POST',
      headers,
      // A filter no bench event matches: the engine stays idle and the figures are the API's own.
      body: JSON.stringify({ id: `bench-${i}`, displayName: `Bench ${i}`, targetUrl: `https://example.com/hooks/${i}`, events: ['bench.never'], secret: 'bench-secret-value-0001' }),
    });
    if (response.status !== 201) throw new Error(`seeding subscribers: ${response.status}`);
    handles.push(`bench-${i}`);
  }
  for (let i = 0; i < 100; i++) {
    const response = await fetch(`${url}/api/v0.9/webhook-events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ eventType: 'apikey.generated', aggregateId: `key-${i}`, data: { n: i } }),
    });
    if (response.status !== 201) throw new Error(`seeding events: ${response.status}`);
  }
  return handles;
}

type Mix = Array<{ weight: number; make: () => Omit<Request, 'headers'> }>;

function pick(mix: Mix): Omit<Request, 'headers'> {
  let roll = Math.random() * mix.reduce((sum, entry) => sum + entry.weight, 0);
  for (const entry of mix) {
    roll -= entry.weight;
    if (roll <= 0) return entry.make();
  }
  return mix[mix.length - 1]!.make();
}

async function load(url: string, token: string | undefined, mix: Mix, options: { seconds: number; rate?: number; connections: number }): Promise<Result> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    ...(options.rate ? { overallRate: options.rate } : {}),
    // A fresh request each time: autocannon reuses the object, and a stale body must not leak into a GET.
    requests: [
      {
        setupRequest: (_previous: Request): Request => {
          const next = pick(mix);
          return next.body === undefined
            ? { method: next.method, path: next.path, headers: auth }
            : { ...next, headers: { ...auth, 'content-type': 'application/json' } };
        },
      },
    ],
  }) as Promise<Result>;
}

function routes(handles: string[]) {
  const randomHandle = () => handles[Math.floor(Math.random() * handles.length)]!;
  let created = 0;
  return {
    // Auth, routing, validation and serialization without a database round trip: the host's own cost.
    listOrgs: () => ({ method: 'GET', path: '/api/v1/orgs' }),
    getSubscriber: () => ({ method: 'GET', path: `/api/v0.9/webhook-subscribers/${randomHandle()}` }),
    listSubscribers: () => ({ method: 'GET', path: '/api/v0.9/webhook-subscribers?limit=20' }),
    listEvents: () => ({ method: 'GET', path: '/api/v0.9/webhook-events?limit=20' }),
    createSubscriber: () => ({
      method: 'POST',
      path: '/api/v0.9/webhook-subscribers',
      body: JSON.stringify({ id: `load-${process.pid}-${created++}-${randomBytes(3).toString('hex')}`, displayName: 'Load', targetUrl: 'https://example.com/load', events: ['bench.never'] }),
    }),
    updateSubscriber: () => ({
      method: 'PUT',
      path: `/api/v0.9/webhook-subscribers/${randomHandle()}`,
      body: JSON.stringify({ displayName: `Renamed ${randomBytes(2).toString('hex')}` }),
    }),
  };
}

function statuses(result: Result): string {
  return Object.entries(result.statusCodeStats ?? {})
    .map(([status, { count }]) => `${status}×${count}`)
    .join(' ');
}

function row(name: string, result: Result, trivial?: number): string {
  const ratio = trivial ? `${((result.requests.average / trivial) * 100).toFixed(1)}%` : '';
  return `| ${name} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${statuses(result)} | ${result.errors + result.timeouts} | ${ratio} |`;
}

async function main(): Promise<void> {
  const uri = await mongoUri();
  const { url, token } = await startHerald(uri);
  const trivialUrl = await startTrivial();
  const handles = await seed(url, token);
  const route = routes(handles);

  const { listOrgs: _listOrgs, ...mixRoutes } = route;
  const mixed = await load(url, token, [
    { weight: 35, make: mixRoutes.getSubscriber },
    { weight: 35, make: mixRoutes.listSubscribers },
    { weight: 20, make: mixRoutes.listEvents },
    { weight: 5, make: mixRoutes.createSubscriber },
    { weight: 5, make: mixRoutes.updateSubscriber },
  ], { seconds: SECONDS, rate: 500, connections: 20 });
  console.log(`\nMixed load at 500 req/s for ${SECONDS} s (35% GET subscriber, 35% list subscribers, 20% list events, 5% create, 5% update):`);
  console.log(`  achieved ${mixed.requests.average.toFixed(0)} req/s, latency p50 ${mixed.latency.p50} ms, p99 ${mixed.latency.p99} ms (target ≤ 25 ms), statuses ${statuses(mixed)}, connection errors/timeouts ${mixed.errors + mixed.timeouts}`);

  const trivial = await load(trivialUrl, undefined, [{ weight: 1, make: () => ({ method: 'GET', path: '/trivial' }) }], { seconds: CEILING_SECONDS, connections: 20 });
  const ceilings: Array<[string, Result]> = [];
  for (const [name, make] of Object.entries(route)) {
    ceilings.push([name, await load(url, token, [{ weight: 1, make }], { seconds: CEILING_SECONDS, connections: 20 })]);
  }
  console.log(`\nCeilings (${CEILING_SECONDS} s each, 20 connections, unthrottled):\n`);
  console.log('| route | req/s | p50 ms | p99 ms | statuses | errors | of trivial |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(row('trivial Fastify GET', trivial));
  for (const [name, result] of ceilings) console.log(row(name, result, trivial.requests.average));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const child of children.reverse()) child.kill('SIGTERM');
    for (const stop of stoppers) await stop();
    setTimeout(() => rmSync(scratch, { recursive: true, force: true }), 1_000);
  });
