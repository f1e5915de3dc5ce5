// Starts a throwaway FerretDB (MongoDB wire protocol over SQLite) for tests and the dev stack.
// DECISIONS §8: no mongod can be installed here; FerretDB v1.24.2 is built by scripts/tools/ferretdb.sh.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface RunningFerretDb {
  uri: string;
  stop(): Promise<void>;
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

export async function startFerretDb(options: { dataDir?: string; port?: number } = {}): Promise<RunningFerretDb> {
  const ownDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'herald-ferretdb-'));
  const port = options.port ?? (await freePort());
  const child = spawn(
    ferretDbBinary(),
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      // FerretDB writes a state.json into its state dir, the working directory by default.
      `--state-dir=${dataDir}`,
      '--telemetry=disable',
      '--log-level=error',
      '--debug-addr=-',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  await waitForPort(port, child, 15_000);
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
