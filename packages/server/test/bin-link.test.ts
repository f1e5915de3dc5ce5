// The command npm links at install time (node_modules/.bin/herald-server) runs the built host, and
// says how to build it when dist/ is not there yet — so the README's `herald-server …` lines work
// in a fresh checkout after `make up`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const server = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'herald-server-bin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('package.json links bin/herald-server.js, a file that exists before any build', () => {
  const manifest = JSON.parse(readFileSync(join(server, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
  expect(manifest.bin['herald-server']).toBe('./bin/herald-server.js');
  expect(manifest.files).toContain('bin');
});

test('runs the built host command', () => {
  const result = spawnSync(process.execPath, [join(server, 'bin/herald-server.js'), '--help'], { encoding: 'utf8' });
  expect(result.stdout).toContain('token create');
  expect(result.status).toBe(0);
});

test('before a build: a clear message and exit 69, no stack trace', () => {
  cpSync(join(server, 'bin'), join(scratch, 'bin'), { recursive: true });
  const result = spawnSync(process.execPath, [join(scratch, 'bin/herald-server.js'), '--help'], { encoding: 'utf8' });
  expect(result.status).toBe(69);
  expect(result.stderr).toBe('herald-server: the host is not built yet; run `make build` (or `make up`) in the Herald checkout\n');
});
