// On-CPU time of one thread by the code that asked for it: reads `perf script` output (samples
// with call chains, `perf record -g` of a node run with `--perf-basic-prof`) on stdin and charges
// each sample of the thread to the nearest JavaScript frame, counted from the leaf, of ours or of a
// dependency (node's own JavaScript only when neither is on the stack). So a V8 builtin, a bson
// serializer or a socket write is charged to the package whose function asked for it, where `perf
// report` shows them as the node binary's and the kernel's.
// Samples with no such frame (the collector, the compiler, the event loop waiting) are grouped by
// the leaf's library. Method and example: bench/README.md, "Where the CPU goes".
//
//   perf script -i /tmp/perf.data --tid <tid> -F tid,ip,sym,dso | node bench/perf-by-package.ts <tid>
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface Frame {
  symbol: string;
  library: string;
}

/** Where a frame's code lives, from the source location `--perf-basic-prof` puts in its name. */
export function sourceOf(symbol: string): string | undefined {
  const located = /(file:\/\/[^\s:]+|node:[^\s:]+|\/[^\s:]+\.(?:c|m)?(?:js|ts)):\d+/.exec(symbol);
  if (!located) return undefined;
  const path = located[1]!;
  if (path.startsWith('node:')) {
    const parts = path.slice('node:'.length).split('/');
    return `node ${parts[0] === 'internal' ? (parts[1] ?? 'internal') : parts[0]}`;
  }
  const dependency = path.lastIndexOf('node_modules/');
  if (dependency >= 0) {
    const [scope, name] = path.slice(dependency + 'node_modules/'.length).split('/');
    return `dependency ${scope!.startsWith('@') ? `${scope}/${name}` : scope}`;
  }
  const ours = /packages\/([^/]+)\/(src|dist|test)\/([^/:]+)/.exec(path);
  if (ours) return ours[2] === 'test' ? `herald ${ours[1]} test support` : `herald ${ours[1]}/${ours[3]!.replace(/\.(?:c|m)?(?:js|ts)$/, '')}`;
  if (path.includes('/bench/')) return 'benchmark harness';
  return path;
}

export interface Charge {
  source: string;
  /** The charged frame's function, without its location. */
  fn: string;
}

/**
 * The frame a sample is charged to: leaf first, the first one of ours or of a dependency; node's own
 * JavaScript (its streams, its timers) only when neither is on the stack.
 */
export function chargeOf(frames: readonly Frame[]): Charge {
  let nodeFrame: Charge | undefined;
  for (const frame of frames) {
    const source = sourceOf(frame.symbol);
    if (!source) continue;
    const charge = { source, fn: frame.symbol.replace(/^JS:\S?'?/, '').split(' ')[0] || '(anonymous)' };
    if (!source.startsWith('node ')) return charge;
    nodeFrame ??= charge;
  }
  if (nodeFrame) return nodeFrame;
  const leaf = frames[0];
  const library = leaf?.library.split('/').pop() ?? 'unknown';
  return { source: `no JavaScript caller: ${library}`, fn: leaf?.symbol ?? 'unknown' };
}

export interface Sample {
  tid: string;
  frames: Frame[];
}

/** `perf script -F tid,ip,sym,dso` text: a line with the tid, then one indented line per frame. */
export function* parseSamples(lines: Iterable<string>): Generator<Sample> {
  let current: Sample | undefined;
  for (const line of lines) {
    if (line.trim() === '') {
      if (current) yield current;
      current = undefined;
    } else if (/^\s*\d+\s*$/.test(line)) {
      // perf pads the tid to a fixed width, so a header line may start with spaces.
      if (current) yield current;
      current = { tid: line.trim(), frames: [] };
    } else if (current) {
      const frame = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)$/.exec(line);
      if (frame) current.frames.push({ symbol: frame[1]!, library: frame[2]! });
    }
  }
  if (current) yield current;
}

export interface Breakdown {
  samples: number;
  bySource: Array<[string, number]>;
  byFunction: Array<[string, number]>;
}

export function breakdown(samples: Iterable<Sample>, tid: string): Breakdown {
  const bySource = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const sample of samples) {
    if (sample.tid !== tid) continue;
    total += 1;
    const { source, fn } = chargeOf(sample.frames);
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
    const key = `${fn} (${source})`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  }
  const sorted = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1]);
  return { samples: total, bySource: sorted(bySource), byFunction: sorted(byFunction) };
}

async function main(): Promise<void> {
  const tid = process.argv[2];
  if (!tid) throw new Error('usage: perf script -F tid,ip,sym,dso … | node bench/perf-by-package.ts <tid>');
  const lines: string[] = [];
  for await (const line of createInterface({ input: process.stdin })) lines.push(line);
  const result = breakdown(parseSamples(lines), tid);
  if (result.samples === 0) throw new Error(`no samples of thread ${tid} in the input`);
  const share = (count: number) => `${((100 * count) / result.samples).toFixed(1).padStart(5)} %`;
  console.log(`${result.samples} samples of thread ${tid}, each charged to its nearest JavaScript caller\n`);
  for (const [source, count] of result.bySource.slice(0, 25)) console.log(`${share(count)}  ${source}`);
  console.log('\nby function (the charged frame):');
  for (const [fn, count] of result.byFunction.slice(0, 40)) console.log(`${share(count)}  ${fn}`);
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) await main();
