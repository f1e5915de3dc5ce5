// `BENCH_BASE=<revision> npm run bench` (or make bench): the delivery benchmark of a base revision
// and of the working tree, run alternately in one invocation (BENCH_PAIRS pairs, at least 2), so a
// change is judged against its base on the same machine at the same time. Each run is preceded by
// a raw ceiling of its own (bench/raw-probe.ts), which shows how fast the machine was then. Prints
// every figure of both sides with head ÷ base (median, min–max over the pairs) and adds `paired` to
// the head's summary (.data/bench/delivery.json, or the file of the BENCH_ONLY scenario).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeHead, prepareBaseTree } from './base-tree.js';
import { flattenFigures, formatRatio, pairFigures, type Figures } from './paired-figures.js';
import { runRawProbe, type RawProbe } from './raw-probe.js';

const ROOT = resolve(import.meta.dirname, '..');
const BASE = process.env.BENCH_BASE;
if (!BASE) throw new Error('BENCH_BASE must name the base revision (a sha, tag, branch or HEAD~1)');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2);
if (!Number.isInteger(PAIRS) || PAIRS < 2) throw new Error('BENCH_PAIRS must be an integer ≥ 2: one pair cannot tell a change from the machine');
const ONLY = process.env.BENCH_ONLY;
const PROBE_REQUESTS = Number(process.env.BENCH_PROBE_REQUESTS ?? 5_000);
/** Where the delivery benchmark writes the figures of what it ran. */
const SUMMARY = `.data/bench/${ONLY === undefined || ONLY === 'ordering' ? 'delivery' : ONLY}.json`;

type Side = 'base' | 'head';
interface RunRecord {
  side: Side;
  pair: number;
  rawProbe: RawProbe;
  seconds: number;
  summary: Record<string, unknown>;
}

// The child benchmarks must not start pairs of their own.
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'BENCH_BASE' && name !== 'BENCH_PAIRS'));

function runSide(side: Side, pair: number, tree: string): RunRecord {
  const rawProbeResult = runRawProbe(PROBE_REQUESTS);
  console.log(`\n=== pair ${pair}, ${side} (raw ceiling just before: ${rawProbeResult.requestsPerSecond} req/s) ===`);
  const summaryPath = join(tree, SUMMARY);
  const started = performance.now();
  const bench = spawnSync('npm', ['run', '--silent', 'bench:delivery'], { cwd: tree, env: childEnv, stdio: 'inherit' });
  if (bench.status !== 0) throw new Error(`the ${side}'s benchmark exited ${bench.status}${side === 'base' && ONLY ? ` (does the base have BENCH_ONLY=${ONLY}?)` : ''}`);
  if (!existsSync(summaryPath)) throw new Error(`the ${side}'s benchmark wrote no ${SUMMARY}`);
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Record<string, unknown>;
  delete summary.paired; // a previous paired run's, when the file carried one
  return { side, pair, rawProbe: rawProbeResult, seconds: Math.round((performance.now() - started) / 1000), summary };
}

const base = prepareBaseTree(ROOT, BASE);
const headLabel = describeHead(ROOT);
console.log(`Paired benchmark: base ${base.sha.slice(0, 12)} (${BASE}) vs head ${headLabel}, ${PAIRS} pairs${ONLY ? `, BENCH_ONLY=${ONLY}` : ''}`);
const runs: RunRecord[] = [];
for (let pair = 1; pair <= PAIRS; pair += 1) {
  // Alternating which side goes first spreads a drift of the machine over both sides.
  const order: Side[] = pair % 2 === 1 ? ['base', 'head'] : ['head', 'base'];
  for (const side of order) runs.push(runSide(side, pair, side === 'base' ? base.dir : ROOT));
}

const figuresOf = (side: Side): Figures[] =>
  runs.filter((run) => run.side === side).sort((a, b) => a.pair - b.pair).map((run) => flattenFigures({ rawProbe: run.rawProbe, ...run.summary }));
const { rows, constant } = pairFigures(figuresOf('base'), figuresOf('head'));

console.log(`\nPaired results: head ${headLabel} ÷ base ${base.sha.slice(0, 12)}, ${PAIRS} pairs (ratio: median, min–max over the pairs)`);
console.log('Raw ceiling before each run, req/s:', runs.map((run) => `${run.side} ${run.pair}: ${run.rawProbe.requestsPerSecond}`).join(', '));
console.table(rows.map((row) => ({ figure: row.figure, base: row.base.join(' / '), head: row.head.join(' / '), 'head ÷ base': formatRatio(row) })));
if (constant > 0) console.log(`(${constant} figures equal in every run, settings or zeros, left out)`);

const paired = {
  base: { revision: BASE, sha: base.sha },
  head: headLabel,
  pairs: PAIRS,
  only: ONLY ?? null,
  runs: runs.map(({ side, pair, rawProbe: probe, seconds }) => ({ side, pair, rawCeilingRps: probe.requestsPerSecond, rawCpuMsPerRequest: probe.cpuMsPerRequest, seconds })),
  figures: rows,
};
const lastHead = runs.filter((run) => run.side === 'head').at(-1)!;
mkdirSync(join(ROOT, '.data/bench'), { recursive: true });
writeFileSync(join(ROOT, SUMMARY), `${JSON.stringify({ ...lastHead.summary, paired }, null, 2)}\n`);
console.log(`\nWritten: ${SUMMARY} (the last head run's figures, with \`paired\`)`);
