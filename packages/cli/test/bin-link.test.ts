// The command npm links at install time (node_modules/.bin/herald) runs the built CLI, and says
// how to build it when dist/ is not there yet.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const cli = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'herald-bin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('package.json links bin/herald.js, a file that exists before any build', () => {
  const manifest = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
  expect(manifest.bin.herald).toBe('./bin/herald.js');
  expect(manifest.files).toContain('bin');
});

test('runs the built CLI', () => {
  const result = spawnSync(process.execPath, [join(cli, 'bin/herald.js'), '--version'], { encoding: 'utf8' });
  expect(result.stdout).toMatch(/^herald \d+\.\d+\.\d+/);
  expect(result.status).toBe(0);
});

test('before a build: a clear message and exit 69, no stack trace', () => {
  cpSync(join(cli, 'bin'), join(scratch, 'bin'), { recursive: true });
  const result = spawnSync(process.execPath, [join(scratch, 'bin/herald.js'), '--version'], { encoding: 'utf8' });
  expect(result.status).toBe(69);
  expect(result.stderr).toBe('herald: the CLI is not built yet; run `make build` (or `make up`) in the Herald checkout\n');
});
