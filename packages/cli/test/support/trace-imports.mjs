// Preloaded with `node --import`: appends every module URL the process resolves to the file named
// by HERALD_TRACE_IMPORTS, so a test can prove which packages a command loads.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import process from 'node:process';

const traceFile = process.env.HERALD_TRACE_IMPORTS;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (traceFile) appendFileSync(traceFile, `${resolved.url}\n`);
    return resolved;
  },
});
