// The built host (`herald-server start`, packages/server/dist) in its own process on loopback, for
// the HTTP fan-out scenario: the process a deployment runs, with the chart's V8 option, so its CPU
// is measured apart from the publishers'. Its delivery settings are the embedded benchmark's where
// the host exposes them (retries, SSRF allow-list, no retention pass); the rest are the host's defaults.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../test/support/ferretdb.js';

const SERVER_BIN = resolve(import.meta.dirname, '../packages/server/dist/bin/herald-server.js');

export interface HostProcess {
  origin: string;
  token: string;
  pid: number;
  stop(): Promise<void>;
}

export interface HostSettings {
  mongodbUri: string;
  dbName: string;
  eventTypes: Array<{ type: string; sensitive?: string[] }>;
  retryScheduleMs: number[];
  maxAttempts: number;
}

export async function startHostProcess(settings: HostSettings): Promise<HostProcess> {
  if (!existsSync(SERVER_BIN)) throw new Error("the host is not built: run 'make build' (make bench does) first");
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-host-'));
  const port = await freePort();
  const configFile = join(dataDir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ eventTypes: settings.eventTypes, retryScheduleMs: settings.retryScheduleMs, maxAttempts: settings.maxAttempts, retentionMs: 0 }));
  // Only these settings: a HERALD_* variable of the caller's shell must not change what is measured.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('HERALD_') && name !== 'MONGODB_URI' && name !== 'NODE_OPTIONS'));
  Object.assign(env, {
    HERALD_CONFIG: configFile,
    HERALD_MONGODB_URI: settings.mongodbUri,
    HERALD_MONGODB_DB: settings.dbName,
    HERALD_HOST: '127.0.0.1',
    HERALD_PORT: String(port),
    HERALD_DATA_DIR: dataDir,
    HERALD_MASTER_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    HERALD_SSRF_ALLOW_LIST: '127.0.0.0/8',
    HERALD_LOG_LEVEL: 'warn',
    HERALD_LOG_FORMAT: 'json',
  });
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=16', SERVER_BIN, 'start'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const recent: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async (): Promise<void> => {
    process.off('exit', kill);
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(kill, 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`herald-server exited with ${child.exitCode}:\n${recent.join('\n')}`);
    }
    if (await fetch(`${origin}/readyz`).then((response) => response.ok, () => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`herald-server was not ready within 60 s:\n${recent.join('\n')}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const token = readFileSync(join(dataDir, 'bootstrap-token'), 'utf8').trim();
  return { origin, token, pid: child.pid!, stop };
}
