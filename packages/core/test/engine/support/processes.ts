// Spawns engine-process.ts children and reads their JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const here = import.meta.dirname;
const repoRoot = resolve(here, '../../../../..');
/** Node 24 from the `node` devDependency (plain `node` on PATH may be older). */
const nodeBinary = process.execPath;

export interface EngineChild {
  child: ChildProcess;
  accepted: string[];
  ready: Promise<void>;
  /** Settles once the child has closed Herald on SIGINT. */
  closed: Promise<void>;
  exited: Promise<number | null>;
  stderr(): string;
}

export function spawnEngine(env: Record<string, string>): EngineChild {
  const child = spawn(
    nodeBinary,
    ['--import', resolve(here, 'register-ts.mjs'), '--conditions=herald-source', '--no-warnings', resolve(here, 'engine-process.ts')],
    { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const accepted: string[] = [];
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => { errors += chunk.toString(); });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolveReady, rejectReady) => {
    markReady = resolveReady;
    child.once('exit', (code) => rejectReady(new Error(`engine process exited (${code}) before it was ready: ${errors.slice(-2000)}`)));
  });
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolveClosed) => { markClosed = resolveClosed; });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line) as { ready?: number; accepted?: string; closed?: boolean };
    if (message.ready) markReady();
    if (message.accepted) accepted.push(message.accepted);
    if (message.closed) markClosed();
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { child, accepted, ready, closed, exited, stderr: () => errors };
}
