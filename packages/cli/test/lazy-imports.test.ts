// `herald api` must stay light: it never loads Ink or React (or jq unless --jq is given).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { recordingServerSuite } from './support/cli-suite.js';

const tracer = pathToFileURL(resolve(import.meta.dirname, 'support/trace-imports.mjs')).href;
const cli = recordingServerSuite();

async function modulesLoadedBy(args: readonly string[]): Promise<string[]> {
  const traceFile = join(cli.options.cwd, 'trace.txt');
  const run = await cli.herald(args, { env: { HERALD_TRACE_IMPORTS: traceFile }, nodeArgs: ['--import', tracer] });
  expect(run.code).toBe(0);
  return readFileSync(traceFile, 'utf8').trim().split('\n');
}

const fromPackage = (name: string) => (url: string) => url.includes(`/node_modules/${name}/`);

describe('startup imports', () => {
  it('herald api loads neither Ink, React nor jq', async () => {
    const loaded = await modulesLoadedBy(['api', '/orgs']);
    expect(loaded.some((url) => url.endsWith('/dist/commands/api.js'))).toBe(true);
    for (const name of ['ink', 'react', 'jq-wasm']) expect(loaded.filter(fromPackage(name))).toStrictEqual([]);
    expect(loaded.some((url) => url.includes('/dist/ui/'))).toBe(false);
  });

  it('herald api --jq loads jq (the tracer sees package imports)', async () => {
    const loaded = await modulesLoadedBy(['api', '/orgs', '--jq', '.ok']);
    expect(loaded.some(fromPackage('jq-wasm'))).toBe(true);
    expect(loaded.some(fromPackage('ink'))).toBe(false);
  });

  it('dedicated commands with piped output print JSON without loading Ink', async () => {
    const loaded = await modulesLoadedBy(['webhooks', 'subscribers', 'list']);
    expect(loaded.some(fromPackage('ink'))).toBe(false);
  });
});
