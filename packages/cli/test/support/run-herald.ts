// Runs the built `herald` executable as a subprocess with the Node that runs the tests (Node 24),
// in a temporary config directory and working directory of the test's choosing.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';

export const heraldBin = resolve(import.meta.dirname, '../../dist/bin/herald.js');

export function assertBuilt(): void {
  if (!existsSync(heraldBin)) throw new Error(`${heraldBin} is missing: run 'npx tsc -b packages/cli' (npm test builds it)`);
}

export interface HeraldRun {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly text: string;
}

export interface RunOptions {
  readonly configDir: string;
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string | Buffer;
  /** Extra Node flags before the script, e.g. ['--import', hook]. */
  readonly nodeArgs?: readonly string[];
}

// Imported at a test file's top level, so this hook belongs to that file: its directories go when
// its tests are done, not one per test left in the system's temp folder on every run.
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

export function temporaryDirectory(prefix: string): string {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  directories.push(directory);
  return directory;
}

export function runHerald(args: readonly string[], options: RunOptions): Promise<HeraldRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: options.cwd, HERALD_CONFIG_DIR: options.configDir, CI: 'true' };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), heraldBin, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolveRun, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const out = Buffer.concat(stdout);
      resolveRun({ code, stdout: out, stderr: Buffer.concat(stderr).toString('utf8'), text: out.toString('utf8') });
    });
  });
}
