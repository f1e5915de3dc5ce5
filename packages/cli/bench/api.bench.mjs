// Benchmark (not a test): wall time of `herald api /orgs` against a loopback server, compared with
// a bare `node -e "fetch(…)"` doing the same request, measured in the same run, interleaved.
// Run: npm run bench -w packages/cli   (BENCH_RUNS=N to change the number of runs; default 30)
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';

const runs = Number(process.env.BENCH_RUNS ?? 30);
const warmups = 3;
const heraldBin = resolve(import.meta.dirname, '../dist/bin/herald.js');
const body = JSON.stringify({ list: [{ id: 'acme', displayName: 'Acme' }], count: 1, pagination: { total: 1, limit: 20, offset: 0 } });

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(body);
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${server.address().port}`;
const env = { PATH: process.env.PATH, HERALD_URL: url, HERALD_TOKEN: 'bench-token', HERALD_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'herald-bench-')) };

const commands = {
  herald: [heraldBin, 'api', '/orgs'],
  baseline: ['-e', `fetch(${JSON.stringify(`${url}/api/v1/orgs`)}, { headers: { authorization: 'Bearer bench-token', accept: 'application/json' } }).then((r) => r.arrayBuffer()).then((b) => process.stdout.write(Buffer.from(b)))`],
};

function timeOnce(args) {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0 || output !== body) fail(new Error(`${args.join(' ')} exited ${code} with ${JSON.stringify(output)}`));
      else done(milliseconds);
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const samples = { herald: [], baseline: [] };
for (let index = 0; index < warmups; index++) for (const args of Object.values(commands)) await timeOnce(args);
for (let index = 0; index < runs; index++) {
  for (const [name, args] of Object.entries(commands)) samples[name].push(await timeOnce(args));
}
server.close();

const print = (line) => process.stdout.write(`${line}\n`);
const heraldMedian = median(samples.herald);
const baselineMedian = median(samples.baseline);
print(`node ${process.version}, ${runs} runs each (after ${warmups} warm-ups), interleaved`);
print(`herald api /orgs       median ${heraldMedian.toFixed(1)} ms  (min ${Math.min(...samples.herald).toFixed(1)})`);
print(`node -e "fetch(...)"   median ${baselineMedian.toFixed(1)} ms  (min ${Math.min(...samples.baseline).toFixed(1)})`);
print(`ratio herald/baseline  ${(heraldMedian / baselineMedian).toFixed(2)}x (target <= 2x)`);
