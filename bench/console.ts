// `npm run bench:console` (also the second half of `npm run bench`): the console benchmark (not a
// test). It checks the console issue's budget, "the events screen stays responsive with 10,000
// events (server-side paging)", on real parts: FerretDB (or MONGODB_URI), a real herald-server
// process serving the API and the console, BENCH_CONSOLE_EVENTS events published through the
// public HTTP API into the host's one organization, and Debian's chromium driven by playwright-core.
// It times, in the page, each user action to the moment the DOM shows its result (first rows of
// the Events screen, next and previous page, a status filter, an event's detail and back, the
// Subscribers screen, a cold reload; the first rows, next page and reload again once the store has
// grown to BENCH_CONSOLE_GROWTH_EVENTS), and reads the server-side time of every API request from the
// host's own request log. Each figure is printed beside its target; .data/bench/console.json has
// them all. Knobs: bench/README.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../packages/console/test/support/chromium.js';
import { ensureConsoleBuilt } from '../packages/console/test/support/build.js';
import { freePort } from '../test/support/ferretdb.js';
import { startStoreProcess } from '../test/support/store-process.js';
import { waitForPing } from '../test/support/ping.js';
import { copyHistory, type HistoryCopyResult } from './history-copy.js';
import { percentile, round } from './stats.js';

const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const EVENTS = num('BENCH_CONSOLE_EVENTS', 10_000);
const PUBLISH_CONCURRENCY = num('BENCH_CONSOLE_PUBLISH_CONCURRENCY', 32);
const REPEATS = num('BENCH_CONSOLE_REPEATS', 5);
const SETTLE_TIMEOUT_MS = num('BENCH_CONSOLE_SETTLE_S', 600) * 1000;
const QUIET_TIMEOUT_MS = num('BENCH_CONSOLE_QUIET_S', 300) * 1000;
/**
 * The last row of the growth table: the store grown to this many events by copying the seeded ones
 * (bench/history-copy.ts), after the browser steps. BENCH_QUICK keeps it small.
 */
const GROWTH_EVENTS = num('BENCH_CONSOLE_GROWTH_EVENTS', process.env.BENCH_QUICK === '1' ? 20_000 : 100_000);
/** How far back the copies go: inside the host's 30-day retention, so its hourly pass keeps them. */
const GROWTH_SPREAD_MS = 20 * 24 * 60 * 60 * 1000;
/** Store sizes at which the events list's server time is also taken while seeding (to show how it grows). */
const CHECKPOINTS = [20, 1_000].filter((size) => size < EVENTS);
const ROOT = resolve(import.meta.dirname, '..');
const API = '/api/v0.9';
const PAGE_SIZE = 20; // the console's page (packages/console/src/api/endpoints.ts)

// Targets. A screen change or a page change inside a list should keep the user's flow: 1 s is the
// classic limit for that, and the console shows "Loading…" meanwhile. Moving within a list the user
// is already reading (next, previous, a filter, into a row and back) should feel immediate, so half
// of that. The server's share of a page change must leave room for transfer and rendering (a few
// ms on loopback) and for a real network, hence 200 ms; a reload also loads the console's
// JavaScript and /me before the list, hence 1.5 s.
const TARGETS = {
  signIn: 1_000,
  eventsFirstRows: 1_000,
  nextPage: 500,
  previousPage: 500,
  statusFilter: 500,
  allStatuses: 500,
  eventDetail: 500,
  backToList: 500,
  subscribers: 500,
  coldReload: 1_500,
  eventsFirstRowsAtVolume: 1_000,
  nextPageAtVolume: 500,
  coldReloadAtVolume: 1_500,
  serverList: 200,
} as const;
/** How long a browser step waits for its result before it fails. */
const STEP_WAIT_MS = 30_000;

/**
 * What this process started, stopped last-started first on any way out: at the end, on an error, on
 * Ctrl-C or SIGTERM (`stop`, awaited: the host before its store, since a host whose store vanished
 * first was seen not to exit on SIGTERM); `kill` is the synchronous last resort of an exit that
 * leaves no time to wait (an uncaught exception).
 */
interface Started {
  stop(): Promise<void>;
  kill(): void;
}
const running: Started[] = [];
let stopping: Promise<void> | undefined;

function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (let next = running.pop(); next; next = running.pop()) {
      await next.stop().catch(() => next.kill());
    }
  })();
  return stopping;
}

process.on('exit', () => {
  for (const next of running.reverse()) next.kill();
});
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the browser, the host and the store`);
    void stopAll().finally(() => process.exit(130));
  });
}

/** Stops `child` with SIGTERM, and with SIGKILL if it has not exited after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  if (await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)])) return;
  child.kill('SIGKILL');
  await exited;
}

// --- the store ------------------------------------------------------------------------------

/**
 * BENCH_STORE=memory-mongo: scripts/tools/memory-mongo.sh's in-memory MongoDB-wire server instead
 * of FerretDB. Herald takes its MongoDB path there, and the store does not pay FerretDB v1's cost
 * per document read, which shows what the host and the console cost on their own.
 */
const MEMORY_MONGO = process.env.BENCH_STORE === 'memory-mongo';

async function startMemoryMongo(): Promise<{ uri: string; stop(): Promise<void> }> {
  const launcher = join(ROOT, '.tools/bin/memory-mongo');
  if (!existsSync(launcher)) throw new Error("memory-mongo is not built: run 'bash scripts/tools/memory-mongo.sh' first");
  const port = await freePort();
  const child = spawn(launcher, [String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = () => stopChild(child, 5_000);
  running.push({ stop, kill: () => child.kill('SIGKILL') });
  const uri = `mongodb://127.0.0.1:${port}/`;
  await waitForPing(uri, child, 30_000); // the JVM takes a few seconds to start
  return { uri, stop };
}

// --- the host -------------------------------------------------------------------------------

interface Host {
  origin: string;
  /** The host's database, which the growth step copies events into. */
  dbName: string;
  token: string;
  /** Server-side duration (Fastify's responseTime, ms) of a request, by its x-request-id. */
  serverMs: Map<string, number>;
}

/** The built host, as `make up` runs it (its sources use TypeScript that Node cannot strip). */
const SERVER_BIN = join(ROOT, 'packages/server/dist/bin/herald-server.js');

/**
 * herald-server in its own process, configured as `make up` configures it (loopback allowed for
 * deliveries), plus a short retry schedule and no breaker so the seeded failures settle in seconds.
 * Its JSON request log gives the server-side time of each request.
 */
async function startHost(mongodbUri: string): Promise<Host> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-console-'));
  const dbName = `bench_console_${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  // Only our settings: a HERALD_* variable of the caller's shell must not change what is measured.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HERALD_') && name !== 'MONGODB_URI'));
  Object.assign(env, {
    HERALD_MONGODB_URI: mongodbUri,
    HERALD_MONGODB_DB: dbName,
    HERALD_HOST: '127.0.0.1',
    HERALD_PORT: String(port),
    HERALD_DATA_DIR: dataDir,
    HERALD_MASTER_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    HERALD_SSRF_ALLOW_LIST: '127.0.0.0/8',
    HERALD_RETRY_SCHEDULE: '1s',
    HERALD_MAX_ATTEMPTS: '2',
    // The receiver answering 500 would open its subscriber's breaker, which then holds its last
    // deliveries PENDING (as designed) until a probe succeeds, which never happens here; the
    // benchmark wants every event settled, those FAILED.
    HERALD_BREAKER: 'off',
    HERALD_DRAIN_TIMEOUT: '2s',
    HERALD_LOG_LEVEL: 'info',
    HERALD_LOG_FORMAT: 'json',
  });
  const child: ChildProcess = spawn(process.execPath, [SERVER_BIN, 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  running.push({
    // Its drain timeout is 2 s: 10 s is plenty for a host that is going to exit.
    stop: () => stopChild(child, 10_000).finally(removeDataDir),
    kill: () => {
      child.kill('SIGKILL');
      removeDataDir();
    },
  });
  const serverMs = new Map<string, number>();
  const recent: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
    if (!line.startsWith('{')) return;
    try {
      const entry = JSON.parse(line) as { reqId?: string; responseTime?: number };
      if (entry.reqId && typeof entry.responseTime === 'number') serverMs.set(entry.reqId, entry.responseTime);
    } catch {
      // Not a log line (the bootstrap token banner is plain text).
    }
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`herald-server exited with ${child.exitCode}:\n${recent.join('\n')}`);
    const ready = await fetch(`${origin}/readyz`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`herald-server was not ready within 60 s:\n${recent.join('\n')}`);
    await sleep(200);
  }
  const token = readFileSync(join(dataDir, 'bootstrap-token'), 'utf8').trim();
  return { origin, dbName, token, serverMs };
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

async function api<T>(host: Host, method: string, path: string, body?: unknown): Promise<{ body: T; requestId: string }> {
  const response = await fetch(`${host.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${host.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return { body: (await response.json()) as T, requestId: response.headers.get('x-request-id') ?? '' };
}

/** The host logs a request's responseTime just after answering it: wait for the line. */
async function serverTimeOf(host: Host, requestId: string): Promise<number> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    const ms = host.serverMs.get(requestId);
    if (ms !== undefined) return ms;
    await sleep(10);
  }
  return Number.NaN;
}

// --- seeding --------------------------------------------------------------------------------

/** A webhook receiver on loopback answering `status` to every delivery. */
async function startReceiver(status: number): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'down for the benchmark'));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

/**
 * The event mix: mostly types nobody subscribes to (recorded ALL_DELIVERED with no deliveries, as
 * most events of a busy org are), 1 % delivered to a receiver answering 200 and 1 % to one answering
 * 500, which end FAILED — so the status filter has a small set to find among the 10,000.
 */
function eventTypeOf(index: number): string {
  if (index % 100 === 7) return 'invoice.paid';
  if (index % 100 === 53) return 'payment.declined';
  return index % 3 === 0 ? 'order.updated' : 'order.created';
}

/** Creates the subscribers and publishes the events; resolves with how fast and how many subscribers. */
async function seed(host: Host, onCheckpoint: (size: number) => Promise<void>): Promise<{ seconds: number; eventsPerSecond: number; subscribers: number }> {
  const ok = await startReceiver(200);
  const down = await startReceiver(500);
  const close = () => {
    ok.server.closeAllConnections();
    ok.server.close();
    down.server.closeAllConnections();
    down.server.close();
  };
  running.push({ stop: async () => close(), kill: close });
  const subscribers = [
    { id: 'billing', targetUrl: ok.url, events: ['invoice.*'], enabled: true },
    { id: 'payments', targetUrl: down.url, events: ['payment.*'], enabled: true },
    // Disabled: listed on the Subscribers screen, receives none of the order events.
    { id: 'audit-paused', targetUrl: ok.url, events: ['order.*'], enabled: false },
  ];
  for (const subscriber of subscribers) {
    await api(host, 'POST', `${API}/webhook-subscribers`, { ...subscriber, displayName: subscriber.id, secret: `bench-secret-${subscriber.id}-0123456789` });
  }

  let next = 0;
  let pausedMs = 0;
  const checkpoints = [...CHECKPOINTS];
  const started = performance.now();
  let lastReport = started;
  // Publishers take indexes in order; at a checkpoint, every publisher waits until the events
  // before it are recorded, the list is timed, then publishing resumes.
  let published = 0;
  let pause: Promise<void> | undefined;
  const publisher = async () => {
    for (;;) {
      if (pause) await pause;
      const index = next++;
      if (index >= EVENTS) return;
      const eventType = eventTypeOf(index);
      await api(host, 'POST', `${API}/webhook-events`, { eventType, aggregateId: `${eventType.split('.')[0]}-${index}`, data: { n: index, total: (index % 997) * 3 } });
      published += 1;
      if (checkpoints[0] !== undefined && published >= checkpoints[0] && !pause) {
        checkpoints.shift();
        let release = () => {};
        pause = new Promise((done) => (release = done));
        // Let the publishes already sent finish: the list is then timed at `published` events.
        const pausedAt = performance.now();
        await sleep(200);
        await onCheckpoint(published);
        pausedMs += performance.now() - pausedAt;
        pause = undefined;
        release();
      }
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(`  seeded ${published} of ${EVENTS} events (${round(published / ((lastReport - started) / 1000), 1)}/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_CONCURRENCY }, publisher));
  // The checkpoints' list timings are not publishing time.
  const seconds = (performance.now() - started - pausedMs) / 1000;
  return { seconds: round(seconds, 1), eventsPerSecond: round(EVENTS / seconds, 1), subscribers: subscribers.length };
}

/** Waits until no event is PENDING or DISPATCHED, so the screens are measured on a quiet host. */
async function settle(host: Host): Promise<void> {
  const started = Date.now();
  let reported = started;
  for (;;) {
    const open: Record<string, number> = {};
    for (const status of ['PENDING', 'DISPATCHED']) {
      open[status] = (await api<{ pagination: { total: number } }>(host, 'GET', `${API}/webhook-events?status=${status}&limit=1`)).body.pagination.total;
    }
    if (Object.values(open).every((count) => count === 0)) return;
    if (Date.now() - started > SETTLE_TIMEOUT_MS) throw new Error(`events still in delivery after ${SETTLE_TIMEOUT_MS / 1000} s: ${JSON.stringify(open)}`);
    if (Date.now() - reported > 15_000) {
      reported = Date.now();
      console.log(`  waiting for deliveries to settle: ${JSON.stringify(open)} after ${Math.round((reported - started) / 1000)} s`);
    }
    await sleep(1_000);
  }
}

/**
 * Waits until the events list's server time stops falling: no page-1 request 10 % faster than the
 * fastest so far for 30 s. After a burst of publishes the engine's maintenance walks the new
 * events (on FerretDB v1 each page of the walk reads the whole collection) and the list is slower
 * until it is done, while steady at that slower level: a plateau is not enough, the fall must have
 * stopped. The browser steps are measured after, in the steady state. Resolves with the wait.
 */
async function waitForQuiet(host: Host): Promise<{ seconds: number; fastestMs: number }> {
  const started = Date.now();
  let fastest = Number.POSITIVE_INFINITY;
  let fastestAt = started;
  for (;;) {
    const { requestId } = await api(host, 'GET', `${API}/webhook-events?limit=${PAGE_SIZE}`);
    const ms = await serverTimeOf(host, requestId);
    if (ms < 0.9 * fastest) fastestAt = Date.now();
    fastest = Math.min(fastest, ms);
    const seconds = round((Date.now() - started) / 1000, 1);
    if (Date.now() - fastestAt >= 30_000) return { seconds, fastestMs: round(fastest, 1) };
    if (Date.now() - started > QUIET_TIMEOUT_MS) {
      console.log(`  the events list was still getting faster after ${QUIET_TIMEOUT_MS / 1000} s; measuring anyway`);
      return { seconds, fastestMs: round(fastest, 1) };
    }
    await sleep(2_000);
  }
}

// --- the server's share -----------------------------------------------------------------------

interface ServerListTimes {
  storeEvents: number;
  firstPageMs: number;
  secondPageMs: number;
  lastPageMs: number;
  /** Page 2 by page 1's nextCursor, as the console's Next asks for it. */
  secondPageByCursorMs: number;
  /** The last page reached by cursor (the nextCursor of the page before it), as `Next` asks for it. */
  lastPageByCursorMs: number;
  failedFilterMs: number;
}

/** The cursor of the page that starts at `offset` (from the page before it; not timed). */
async function cursorBefore(host: Host, offset: number): Promise<string> {
  const { body } = await api<{ nextCursor?: string }>(host, 'GET', `${API}/webhook-events?limit=${PAGE_SIZE}&offset=${offset - PAGE_SIZE}`);
  return body.nextCursor ?? '';
}

/** Median server time of the events list requests the console makes, at the current store size. */
async function timeServerList(host: Host, storeEvents: number): Promise<ServerListTimes> {
  const lastOffset = Math.max(0, Math.floor((storeEvents - 1) / PAGE_SIZE) * PAGE_SIZE);
  const median = async (query: string) => {
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const { requestId } = await api(host, 'GET', `${API}/webhook-events?${query}`);
      times.push(await serverTimeOf(host, requestId));
    }
    return round(percentile([...times].sort((a, b) => a - b), 50), 1);
  };
  return {
    storeEvents,
    firstPageMs: await median(`limit=${PAGE_SIZE}&offset=0`),
    secondPageMs: await median(`limit=${PAGE_SIZE}&offset=${PAGE_SIZE}`),
    secondPageByCursorMs: await median(`limit=${PAGE_SIZE}&cursor=${encodeURIComponent(await cursorBefore(host, PAGE_SIZE))}`),
    lastPageMs: await median(`limit=${PAGE_SIZE}&offset=${lastOffset}`),
    lastPageByCursorMs: await median(lastOffset === 0 ? `limit=${PAGE_SIZE}&offset=0` : `limit=${PAGE_SIZE}&cursor=${encodeURIComponent(await cursorBefore(host, lastOffset))}`),
    failedFilterMs: await median(`status=FAILED&limit=${PAGE_SIZE}&offset=0`),
  };
}

/**
 * Grows the store to GROWTH_EVENTS events by copying the settled ones (fresh ids, older dates, the
 * same org and subscribers) and times the list at that size. The copies are older than every
 * seeded event, so page 1 is unchanged and the deep pages read them.
 */
async function growStore(uri: string, host: Host): Promise<{ times: ServerListTimes; seeding: HistoryCopyResult }> {
  const client = new MongoClient(uri);
  await client.connect();
  try {
    console.log(`  growing the store to ${GROWTH_EVENTS} events by copying the settled ones`);
    const seeding = await copyHistory(client.db(host.dbName), {
      sample: { status: { $in: ['ALL_DELIVERED', 'FAILED'] } },
      targetEvents: GROWTH_EVENTS,
      spreadMs: GROWTH_SPREAD_MS,
      progress: (events, target) => console.log(`  ${events} of ${target} events stored`),
    });
    console.log(`  copied ${seeding.copiedEvents} events (${seeding.copiedDeliveries} rows, ${seeding.copiedAttempts} attempts) in ${seeding.seconds} s`);
    const times = await timeServerList(host, GROWTH_EVENTS);
    console.log(`  events list at ${GROWTH_EVENTS} events: ${JSON.stringify(times)}`);
    return { times, seeding };
  } finally {
    await client.close();
  }
}

// --- the browser ----------------------------------------------------------------------------

interface Step {
  name: string;
  key: keyof typeof TARGETS;
  samples: number[];
  /** The slowest server time among the API requests each sample made, ms. */
  serverSamples: number[];
}

/**
 * Runs `action` in the page and resolves with the ms until `ready` holds, both page-side
 * JavaScript expressions. A MutationObserver checks `ready` after each DOM change, so the time is
 * that of the DOM change that showed the result (paint follows within a frame). `ready` must be
 * false before the action: a condition that already held would time nothing. Table rows on screen
 * before the action are marked stale, so a condition can tell the rows of the new answer from the
 * old ones still shown between the click and the re-render (NOT_STALE).
 */
async function timeInPage(page: Page, action: string, ready: string, timeoutMs = STEP_WAIT_MS): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve, reject) => {
    for (const row of document.querySelectorAll('tr')) row.dataset.benchStale = '1';
    const ready = () => { try { return Boolean(${ready}); } catch { return false; } };
    if (ready()) { reject(new Error('already showing the result before the action: ' + ${JSON.stringify(ready)})); return; }
    const started = performance.now();
    const observer = new MutationObserver(() => {
      if (!ready()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(performance.now() - started);
    });
    const timer = setTimeout(() => { observer.disconnect(); reject(new Error('timed out waiting for ' + ${JSON.stringify(ready)})); }, ${timeoutMs});
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    ${action};
  })`);
}

/**
 * The page's clock (ms since its navigation started) when `ready` first holds, checked after each
 * DOM change. (Not page.waitForFunction: it evaluates a string in the page, which the console's CSP
 * refuses.)
 */
async function readyAtInPage(page: Page, ready: string, timeoutMs = STEP_WAIT_MS): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve, reject) => {
    const ready = () => { try { return Boolean(${ready}); } catch { return false; } };
    if (ready()) { resolve(performance.now()); return; }
    const observer = new MutationObserver(() => {
      if (!ready()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(performance.now());
    });
    const timer = setTimeout(() => { observer.disconnect(); reject(new Error('timed out waiting for ' + ${JSON.stringify(ready)})); }, ${timeoutMs});
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  })`);
}

/** The page's API requests between start() and stop(), to read their server times from the host's log. */
function apiRequests(page: Page) {
  let ids: string[] = [];
  let recording = false;
  page.on('response', (response) => {
    if (recording && response.url().includes('/api/')) ids.push(response.headers()['x-request-id'] ?? '');
  });
  return {
    start() {
      ids = [];
      recording = true;
    },
    async stop(host: Host): Promise<number> {
      recording = false;
      const times = await Promise.all(ids.map((id) => serverTimeOf(host, id)));
      return times.length === 0 ? 0 : Math.max(...times);
    },
  };
}

const NOT_STALE = `!document.querySelector('tr[data-bench-stale]')`;
const EVENTS_READY = (first: number) =>
  `${NOT_STALE} && document.querySelectorAll('tr[data-event-id]').length > 0 && document.querySelector('.pager-position')?.textContent.startsWith('${first}–') && !document.querySelector('[aria-busy="true"]')`;
const FILTERED_READY = (status: string) =>
  `${NOT_STALE} && location.hash.includes('status=${status}') && document.querySelectorAll('tr[data-event-id]').length > 0 && [...document.querySelectorAll('tr[data-event-id] [data-status]')].every((badge) => badge.dataset.status === '${status}')`;
const ALL_READY = `!location.hash.includes('status=') && ${EVENTS_READY(1)}`;
const DETAIL_READY = (eventId: string) => `[...document.querySelectorAll('dl.facts code')].some((code) => code.textContent === '${eventId}')`;
const SUBSCRIBERS_READY = (count: number) =>
  `${NOT_STALE} && document.querySelector('main h1')?.textContent === 'Subscribers' && document.querySelectorAll('main tbody tr').length === ${count}`;
const SET_STATUS = (status: string) =>
  `(() => { const select = document.getElementById('status-filter'); select.value = '${status}'; select.dispatchEvent(new Event('change', { bubbles: true })); })()`;

/** A fresh browser context signed in as a user does, and a timer of user actions in it. */
async function signedInSession(browser: Browser, host: Host, subscriberCount: number) {
  const steps = new Map<keyof typeof TARGETS, Step>();
  const record = (key: keyof typeof TARGETS, name: string, ms: number, serverMsOfStep: number) => {
    const step = steps.get(key) ?? { name, key, samples: [], serverSamples: [] };
    step.samples.push(round(ms, 1));
    step.serverSamples.push(round(serverMsOfStep, 1));
    steps.set(key, step);
  };
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const requests = apiRequests(page);
  const time = async (key: keyof typeof TARGETS, name: string, action: string, ready: string) => {
    requests.start();
    const ms = await timeInPage(page, action, ready);
    record(key, name, ms, await requests.stop(host));
  };
  // A reload of the Events screen (the token stays in this tab's sessionStorage): from the start of
  // navigation, JavaScript, /me and the list included. Timed by the page's own clock.
  const reload = async (key: keyof typeof TARGETS, name: string) => {
    requests.start();
    await page.reload({ waitUntil: 'commit' });
    record(key, name, await readyAtInPage(page, EVENTS_READY(1)), await requests.stop(host));
  };
  const end = async (): Promise<Step[]> => {
    await context.close();
    if (problems.length > 0) throw new Error(`page errors: ${problems.join('; ')}`);
    return [...steps.values()];
  };

  // Sign in as a user does: paste the token, press Enter; done when the Subscribers screen lists them.
  await page.goto(`${host.origin}/console/`);
  await page.locator('#token').fill(host.token);
  await time('signIn', 'sign in → Subscribers screen', `document.getElementById('token').form.requestSubmit()`, SUBSCRIBERS_READY(subscriberCount));
  return { page, time, reload, end };
}

const EVENTS_LINK = `document.querySelector('nav[aria-label="Sections"] a[href^="#/events"]').click()`;
const SUBSCRIBERS_LINK = `document.querySelector('nav[aria-label="Sections"] a[href^="#/subscribers"]').click()`;

async function driveConsole(browser: Browser, host: Host, subscriberCount: number): Promise<Step[]> {
  const { page, time, reload, end } = await signedInSession(browser, host, subscriberCount);
  for (let i = 0; i < REPEATS; i++) {
    await time('eventsFirstRows', 'Events screen: first rows', EVENTS_LINK, EVENTS_READY(1));
    await time('subscribers', 'Subscribers screen', SUBSCRIBERS_LINK, SUBSCRIBERS_READY(subscriberCount));
  }
  await time('eventsFirstRows', 'Events screen: first rows', EVENTS_LINK, EVENTS_READY(1));
  for (let i = 0; i < REPEATS; i++) {
    await time('nextPage', 'next page', `document.querySelector('a[rel=next]').click()`, EVENTS_READY(PAGE_SIZE + 1));
    await time('previousPage', 'previous page', `document.querySelector('a[rel=prev]').click()`, EVENTS_READY(1));
  }
  for (let i = 0; i < REPEATS; i++) {
    await time('statusFilter', 'status filter → Failed', SET_STATUS('FAILED'), FILTERED_READY('FAILED'));
    await time('allStatuses', 'status filter → All statuses', SET_STATUS(''), ALL_READY);
  }
  for (let i = 0; i < REPEATS; i++) {
    const eventId = await page.evaluate<string>(`document.querySelectorAll('tr[data-event-id]')[${i % PAGE_SIZE}].dataset.eventId`);
    await time('eventDetail', 'open an event', `document.querySelector('tr[data-event-id="${eventId}"] a').click()`, DETAIL_READY(eventId));
    await time('backToList', 'back to the list', 'history.back()', EVENTS_READY(1));
  }
  for (let i = 0; i < REPEATS; i++) await reload('coldReload', 'reload of the Events screen');
  return end();
}

/** The Events screen once the store has grown: its first rows, the next page (by cursor) and a reload. */
async function driveConsoleAtVolume(browser: Browser, host: Host, subscriberCount: number, events: number): Promise<Step[]> {
  const { time, reload, end } = await signedInSession(browser, host, subscriberCount);
  for (let i = 0; i < REPEATS; i++) {
    await time('eventsFirstRowsAtVolume', `Events screen: first rows, ${events} events`, EVENTS_LINK, EVENTS_READY(1));
    await time('nextPageAtVolume', `next page, ${events} events`, `document.querySelector('a[rel=next]').click()`, EVENTS_READY(PAGE_SIZE + 1));
    await time('subscribers', 'Subscribers screen', SUBSCRIBERS_LINK, SUBSCRIBERS_READY(subscriberCount));
  }
  await time('eventsFirstRowsAtVolume', `Events screen: first rows, ${events} events`, EVENTS_LINK, EVENTS_READY(1));
  for (let i = 0; i < REPEATS; i++) await reload('coldReloadAtVolume', `reload of the Events screen, ${events} events`);
  // Only the steps at volume: sign-in and the Subscribers screen were measured before the growth.
  return (await end()).filter((step) => step.key.endsWith('AtVolume'));
}

// --- main -----------------------------------------------------------------------------------

function summarize(step: Step) {
  const sorted = [...step.samples].sort((a, b) => a - b);
  const server = [...step.serverSamples].sort((a, b) => a - b);
  // What the browser adds to the server's time, sample by sample: the request on loopback, parsing
  // and rendering (and for a reload, the console's JavaScript and /me).
  const browserShare = step.samples.map((ms, i) => round(ms - (step.serverSamples[i] ?? 0), 1)).sort((a, b) => a - b);
  const target = TARGETS[step.key];
  const medianMs = percentile(sorted, 50);
  return {
    step: step.name,
    key: step.key,
    targetMs: target,
    medianMs,
    maxMs: sorted.at(-1) ?? Number.NaN,
    serverMedianMs: percentile(server, 50),
    browserShareMedianMs: percentile(browserShare, 50),
    samplesMs: step.samples,
    serverSamplesMs: step.serverSamples,
    met: medianMs <= target,
  };
}

async function main(): Promise<void> {
  if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run 'make build' (make bench does)`);
  await ensureConsoleBuilt();
  let uri = process.env.MONGODB_URI;
  if (!uri && MEMORY_MONGO) uri = (await startMemoryMongo()).uri;
  if (!uri) {
    const ferret = await startStoreProcess();
    running.push({ stop: () => ferret.stop(), kill: () => ferret.kill() });
    uri = ferret.uri;
  }
  const store = process.env.MONGODB_URI ? 'MONGODB_URI' : MEMORY_MONGO ? 'memory-mongo (in-memory, MongoDB path)' : 'FerretDB v1.24.2 (PostgreSQL 16 handler)';
  console.log(`Herald console benchmark — ${store}, ${EVENTS} events, node ${process.version}, ${REPEATS} samples per step`);

  const host = await startHost(uri);
  const growth: ServerListTimes[] = [];
  const seeding = await seed(host, async (size) => {
    growth.push(await timeServerList(host, size));
    console.log(`  events list at ${size} events: ${JSON.stringify(growth.at(-1))}`);
  });
  console.log(`  seeded ${EVENTS} events in ${seeding.seconds} s (${seeding.eventsPerSecond}/s, ${PUBLISH_CONCURRENCY} concurrent publishes)`);
  await settle(host);
  const failedEvents = (await api<{ pagination: { total: number } }>(host, 'GET', `${API}/webhook-events?status=FAILED&limit=1`)).body.pagination.total;
  console.log(`  every delivery settled: ${failedEvents} events FAILED (1 % of them were sent to the receiver answering 500)`);
  const afterSettling = await timeServerList(host, EVENTS);
  console.log(`  events list at ${EVENTS} events, just settled: ${JSON.stringify(afterSettling)}`);
  const quiet = await waitForQuiet(host);
  console.log(`  the events list steadied after ${quiet.seconds} s more (fastest page 1: ${quiet.fastestMs} ms)`);

  const browser = await launchBrowser();
  // On a sudden exit playwright-core kills the browsers it launched by itself.
  running.push({ stop: () => browser.close(), kill: () => undefined });
  const steps = (await driveConsole(browser, host, seeding.subscribers)).map(summarize);
  // Again in the steady state, after the browser steps.
  const atSize = await timeServerList(host, EVENTS);
  growth.push(atSize);
  console.log(`  events list at ${EVENTS} events, after the browser steps: ${JSON.stringify(atSize)}`);
  const grown = GROWTH_EVENTS > EVENTS ? await growStore(uri, host) : undefined;
  // The browser steps at volume, where the store can answer a page well within a step's wait (30 s):
  // FerretDB v1 reads and sorts the whole org for every page, so at 100,000 events it cannot.
  let volumeBrowser: string | undefined;
  if (grown && grown.times.firstPageMs * 3 > STEP_WAIT_MS) {
    volumeBrowser = `not timed: page 1 took ${grown.times.firstPageMs} ms on the server at ${grown.times.storeEvents} events`;
  } else if (grown) {
    try {
      steps.push(...(await driveConsoleAtVolume(browser, host, seeding.subscribers, grown.times.storeEvents)).map(summarize));
    } catch (error) {
      volumeBrowser = `stopped: ${(error as Error).message.slice(0, 200)}`;
    }
  }
  if (grown) growth.push(grown.times);
  if (volumeBrowser) console.log(`  the browser at ${grown!.times.storeEvents} events: ${volumeBrowser}`);
  await stopAll();

  const listMet = (times: ServerListTimes) => [times.firstPageMs, times.secondPageMs, times.failedFilterMs].every((ms) => ms <= TARGETS.serverList);
  const serverListMet = listMet(afterSettling) && listMet(atSize);
  // At volume the console pages by cursor: page 1, the next by cursor, the last by cursor, a filter.
  const volumeListMet = (times: ServerListTimes) => [times.firstPageMs, times.secondPageByCursorMs, times.lastPageByCursorMs, times.failedFilterMs].every((ms) => ms <= TARGETS.serverList);
  const summary = {
    store,
    node: process.version,
    events: EVENTS,
    failedEvents,
    repeats: REPEATS,
    seeding,
    serverList: { targetMs: TARGETS.serverList, ...atSize, met: listMet(atSize) },
    serverListJustSettled: { targetMs: TARGETS.serverList, ...afterSettling, met: listMet(afterSettling) },
    steadiedAfterSeconds: quiet.seconds,
    serverListGrowth: growth,
    ...(grown ? { serverListAtVolume: { targetMs: TARGETS.serverList, ...grown.times, met: volumeListMet(grown.times) }, volumeSeeding: grown.seeding } : {}),
    ...(volumeBrowser ? { browserAtVolume: volumeBrowser } : {}),
    steps,
    met: serverListMet && volumeBrowser === undefined && steps.every((step) => step.met),
  };
  mkdirSync(join(ROOT, '.data/bench'), { recursive: true });
  writeFileSync(join(ROOT, '.data/bench/console.json'), `${JSON.stringify(summary, null, 2)}\n`);

  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const line = (label: string, figure: string, target: string, ok?: boolean) =>
    console.log(`  ${label.padEnd(54)} ${figure.padEnd(50)} target ${target.padEnd(10)} ${ok === undefined ? '' : verdict(ok)}`);
  console.log(
    `\nTargets (median of ${REPEATS} samples; in brackets the slowest sample, the median server time of the step's slowest API request, and the median of what the browser added to it)`,
  );
  for (const [when, times] of [['just settled', afterSettling], ['after the browser', atSize]] as const) {
    line(`server: events list, page 1, ${when}`, `${times.firstPageMs} ms`, `≤ ${TARGETS.serverList} ms`, times.firstPageMs <= TARGETS.serverList);
    line(`server: events list, page 2, ${when}`, `${times.secondPageMs} ms`, `≤ ${TARGETS.serverList} ms`, times.secondPageMs <= TARGETS.serverList);
    line(`server: events list, last page, ${when}`, `${times.lastPageMs} ms`, '—');
    line(`server: events list, last page by cursor, ${when}`, `${times.lastPageByCursorMs} ms`, '—');
    line(`server: events list, status=FAILED, ${when}`, `${times.failedFilterMs} ms`, `≤ ${TARGETS.serverList} ms`, times.failedFilterMs <= TARGETS.serverList);
  }
  if (grown) {
    const t = grown.times;
    for (const [label, ms] of [['page 1', t.firstPageMs], ['page 2 by cursor', t.secondPageByCursorMs], ['last page by cursor', t.lastPageByCursorMs], ['status=FAILED', t.failedFilterMs]] as const) {
      line(`server: events list at ${t.storeEvents} events, ${label}`, `${ms} ms`, `≤ ${TARGETS.serverList} ms`, ms <= TARGETS.serverList);
    }
    line(`server: events list at ${t.storeEvents} events, last page by offset`, `${t.lastPageMs} ms`, '—');
    if (volumeBrowser) line(`Events screen: first rows, ${t.storeEvents} events`, volumeBrowser.split(':')[0]!, `≤ ${TARGETS.eventsFirstRowsAtVolume} ms`, false);
  }
  for (const step of steps) {
    line(step.step, `${step.medianMs} ms (max ${step.maxMs}, server ${step.serverMedianMs}, browser ${step.browserShareMedianMs})`, `≤ ${step.targetMs} ms`, step.met);
  }
  console.log(`\nWritten: .data/bench/console.json`);
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    // After a signal, requests failing because the host is stopping are expected, not the news.
    if (!interrupted) console.error(error);
    await stopAll();
    process.exit(1);
  },
);
