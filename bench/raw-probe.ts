// The raw ceiling of one paired run (bench/paired.ts), measured before each side's benchmark in a
// process of its own, so every run of base and head has it whatever the scenario: plain undici
// POSTs to bench/sink.ts, nothing stored. It shows how fast the machine was at that moment.
// Run: node bench/raw-probe.ts [requests] → prints {"requestsPerSecond", "cpuMsPerRequest"};
// runRawProbe does that from another script.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { round } from './stats.js';

export interface RawProbe {
  requestsPerSecond: number;
  cpuMsPerRequest: number;
}

/** Runs the probe in a process of its own, with its own receiver, and returns its figures. */
export function runRawProbe(requests: number): RawProbe {
  const hooks = resolve(import.meta.dirname, '../packages/core/test/engine/support/register-ts.mjs');
  const probe = spawnSync(process.execPath, ['--no-warnings', '--import', hooks, import.meta.filename, String(requests)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (probe.status !== 0) throw new Error(`raw probe exited ${probe.status}`);
  return JSON.parse(probe.stdout.trim().split('\n').at(-1)!) as RawProbe;
}

/** The delivery benchmark's concurrency (its engine's, which its own raw ceiling uses too). */
const CONCURRENCY = 128;

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 5_000);
  /** About the size of a delivery body of the benchmark's events (an envelope, one encrypted field). */
  const body = JSON.stringify({ type: 'order.created', id: randomBytes(16).toString('hex'), data: { padding: randomBytes(180).toString('hex') } });
  const sink = spawn(process.execPath, ['--no-warnings', resolve(import.meta.dirname, 'sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => sink.kill('SIGTERM'));
  const port = await new Promise<number>((done, fail) => {
    sink.once('exit', (code) => fail(new Error(`sink exited ${code}`)));
    createInterface({ input: sink.stdout! }).once('line', (line) => done((JSON.parse(line) as { port: number }).port));
  });
  const agent = new Agent({ connections: 32, keepAliveTimeout: 10_000 });
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        const i = next++;
        const response = await request(`http://127.0.0.1:${port}/s${i % 10}`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'x-raw-id': `raw-${i}` }, body });
        await response.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  const figures: RawProbe = { requestsPerSecond: round(requests / seconds, 1), cpuMsPerRequest: round((used.user + used.system) / 1000 / requests, 3) };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) await main();
