// Starts FerretDB with its PostgreSQL handler over a throwaway PostgreSQL cluster, through
// scripts/ferretdb-postgres.sh (which installs PostgreSQL from Debian if needed). For benchmarks
// that want the production-like backend (docs/benchmarks.md); tests keep startFerretDb() (SQLite).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunningFerretDb } from './ferretdb.js';

const script = resolve(import.meta.dirname, '../../scripts/ferretdb-postgres.sh');

/**
 * `dataDir` is kept (and its cluster reused) when given; without it the script uses a temporary
 * directory and removes it on stop. The first start may take a minute (apt-get, initdb).
 */
export async function startFerretDbPostgres(options: { dataDir?: string; port?: number; timeoutMs?: number } = {}): Promise<RunningFerretDb> {
  const args = [script];
  if (options.port !== undefined) args.push('--port', String(options.port));
  if (options.dataDir !== undefined) args.push(options.dataDir);
  const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const uri = await new Promise<string>((found, fail) => {
    const timer = setTimeout(() => fail(new Error('ferretdb-postgres.sh printed no MONGODB_URI in time')), options.timeoutMs ?? 180_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^MONGODB_URI=(\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        found(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`ferretdb-postgres.sh exited with code ${code} before it was ready`));
    });
  }).catch(async (error: unknown) => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    throw error;
  });

  return {
    uri,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM'); // the script stops FerretDB and PostgreSQL, then exits
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    },
  };
}
