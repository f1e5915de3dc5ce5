// bench/perf-by-package.ts, which charges each `perf script` sample of a thread to the nearest
// JavaScript frame of ours or of a dependency: checked on an excerpt in perf's own format.
import { describe, expect, it } from 'vitest';
import { breakdown, chargeOf, parseSamples, sourceOf } from '../bench/perf-by-package.js';

const SCRIPT = `
4242 
	ffffffff8158c221 tcp_sendmsg ([kernel.kallsyms])
	    7f3a00012345 Builtins_CallApiCallbackGeneric (/work/node_modules/node/bin/node)
	    7f3a00023456 JS:*'writeGeneric node:internal/stream_base_commons:151:22 (/tmp/perf-4242.map)
	    7f3a00034567 JS:+'toBin /work/node_modules/mongodb/lib/cmap/commands.js:347:10 (/tmp/perf-4242.map)

4242 
	    7f3a00045678 JS:*'serializeInto /work/node_modules/bson/lib/bson.cjs:3751:27 (/tmp/perf-4242.map)
	    7f3a00034567 JS:+'toBin /work/node_modules/mongodb/lib/cmap/commands.js:347:10 (/tmp/perf-4242.map)

4242 
	    7f3a00056789 Builtins_StringAdd_CheckNone (/work/node_modules/node/bin/node)
	    7f3a00067890 JS:*'buildSubscriberBody file:///work/packages/core/src/model/payload.ts:56:36 (/tmp/perf-4242.map)

4242 
	    7f3a00078901 v8::internal::Heap::Scavenge (/work/node_modules/node/bin/node)
	    7f3a00089012 [unknown] ([unknown])

4242 
	    7f3a0009a123 Builtins_RunMicrotasks (/work/node_modules/node/bin/node)
	    7f3a0009b234 JS:*'processTicksAndRejections node:internal/process/task_queues:72:35 (/tmp/perf-4242.map)

4243 
	    7f3a00045678 JS:*'serializeInto /work/node_modules/bson/lib/bson.cjs:3751:27 (/tmp/perf-4243.map)

 424 
	    7f3a00045678 JS:*'serializeInto /work/node_modules/bson/lib/bson.cjs:3751:27 (/tmp/perf-424.map)
`;

describe('perf-by-package', () => {
  it('names where a frame lives: a dependency, our package and file, node, or none', () => {
    expect(sourceOf("JS:+'toBin /w/node_modules/mongodb/lib/cmap/commands.js:347:10")).toBe('dependency mongodb');
    expect(sourceOf("JS:*'serializeInto /w/node_modules/bson/lib/bson.cjs:3751:27")).toBe('dependency bson');
    expect(sourceOf("JS:*'x /w/node_modules/@opentelemetry/api/build/src/a.js:1:1")).toBe('dependency @opentelemetry/api');
    expect(sourceOf("JS:*'attempt file:///w/packages/core/src/engine/dispatcher.ts:327:24")).toBe('herald core/engine');
    expect(sourceOf("JS:*'hmac file:///w/packages/receiver/dist/sign.js:33:14")).toBe('herald receiver/sign');
    expect(sourceOf("JS:*'writeGeneric node:internal/stream_base_commons:151:22")).toBe('node stream_base_commons');
    expect(sourceOf("JS:*'emit node:events:489:44")).toBe('node events');
    expect(sourceOf("JS:^resolve file:///w/packages/core/test/engine/support/register-ts.mjs:9:10")).toBe('herald core test support');
    expect(sourceOf('Builtins_StringAdd_CheckNone')).toBeUndefined();
  });

  it('charges a builtin or a socket write to the package that asked for it, leaf first', () => {
    const samples = [...parseSamples(SCRIPT.split('\n'))];
    expect(samples.map((sample) => [sample.tid, sample.frames.length])).toEqual([['4242', 4], ['4242', 2], ['4242', 2], ['4242', 2], ['4242', 2], ['4243', 1], ['424', 1]]);
    // node's stream code sits between the kernel and the driver: the driver asked for the write.
    expect(chargeOf(samples[0]!.frames)).toEqual({ source: 'dependency mongodb', fn: 'toBin' });
    expect(chargeOf(samples[2]!.frames)).toEqual({ source: 'herald core/model', fn: 'buildSubscriberBody' });
    expect(chargeOf(samples[3]!.frames)).toEqual({ source: 'no JavaScript caller: node', fn: 'v8::internal::Heap::Scavenge' });
    expect(chargeOf(samples[4]!.frames)).toEqual({ source: 'node process', fn: 'processTicksAndRejections' });
    expect(chargeOf([{ symbol: "JS:+' /w/node_modules/undici/lib/dispatcher/client.js:340:5", library: '/tmp/perf-1.map' }])).toEqual({ source: 'dependency undici', fn: '(anonymous)' });
  });

  it("counts only the thread asked for, most charged first", () => {
    const result = breakdown(parseSamples(SCRIPT.split('\n')), '4242');
    expect(result.samples).toBe(5);
    expect(result.bySource).toEqual([
      ['dependency mongodb', 1],
      ['dependency bson', 1],
      ['herald core/model', 1],
      ['no JavaScript caller: node', 1],
      ['node process', 1],
    ]);
    expect(result.byFunction[1]).toEqual(['serializeInto (dependency bson)', 1]);
  });
});
