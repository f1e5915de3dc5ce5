// The raw ceiling of one paired run (bench/paired.ts), measured before each side's benchmark in a
// process of its own, so every run of base and head has it whatever the scenario: plain undici
// POSTs to bench/sink.ts, nothing stored. It shows how fast the machine was at that moment.
// Run: node bench/raw-probe.ts [requests] → prints {"requestsPerSecond", "cpuMsPerRequest"}.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { round } from './stats.js';

const REQUESTS = Number(process.argv[2] ?? 5_000);
/** The delivery benchmark's concurrency (its engine's, which its own raw ceiling uses too). */
const CONCURRENCY = 128;
/** About the size of a delivery body of the benchmark's events (an envelope, one encrypted field). */
const BODY = JSON.stringify({ type: 'order.created', id: randomBytes(16).toString('hex'), data: { padding: randomBytes(180).toString('hex') } });

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
    while (next < REQUESTS) {
      const i = next++;
      const response = await request(`http://127.0.0.1:${port}/s${i % 10}`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'x-raw-id': `raw-${i}` }, body: BODY });
      await response.body.dump();
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
await agent.close();
process.stdout.write(`${JSON.stringify({ requestsPerSecond: round(REQUESTS / seconds, 1), cpuMsPerRequest: round((used.user + used.system) / 1000 / REQUESTS, 3) })}\n`);
process.exit(0);
