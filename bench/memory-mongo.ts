// scripts/tools/memory-mongo.sh's in-memory MongoDB-wire server on a free loopback port: the
// engine's MongoDB path for the benchmarks. And the store of a one-off bench script: the server
// `MONGODB_URI` names, else memory-mongo started here.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort, type RunningFerretDb } from '../test/support/ferretdb.js';
import { waitForPing } from '../test/support/ping.js';

export async function startMemoryMongo(): Promise<RunningFerretDb & { pid: number }> {
  const launcher = resolve(import.meta.dirname, '../.tools/bin/memory-mongo');
  if (!existsSync(launcher)) throw new Error("memory-mongo is not built: run 'bash scripts/tools/memory-mongo.sh' first");
  const port = await freePort();
  const child = spawn(launcher, [String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const uri = `mongodb://127.0.0.1:${port}/`;
  await waitForPing(uri, child, 30_000); // the JVM takes a few seconds to start
  return {
    uri,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export interface ScriptStore {
  uri: string;
  /** What the figures were measured on. */
  label: 'memory-mongo' | 'MONGODB_URI';
  stop(): Promise<void>;
}

export async function scriptStore(): Promise<ScriptStore> {
  const uri = process.env.MONGODB_URI;
  if (uri) return { uri, label: 'MONGODB_URI', stop: async () => undefined };
  const started = await startMemoryMongo();
  return { uri: started.uri, label: 'memory-mongo', stop: () => started.stop() };
}

/**
 * Ends a bench script: its clean-up gets 10 s (a store or engine that does not let go must not
 * keep the run from ending), then the store it started is stopped and the process exits.
 */
export async function endScript(store: ScriptStore, cleanUp: () => Promise<void>): Promise<never> {
  await Promise.race([cleanUp(), new Promise((giveUp) => setTimeout(giveUp, 10_000).unref())]);
  await store.stop();
  process.exit(0);
}
