// `make up` (scripts/up.sh) keeps what it writes owner-only: every file under .data, and the file its
// output is redirected to, which the first start's bootstrap token is printed into (issue 33: the
// log was 0644 while the token file was 0600).
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const helpers = join(root, 'scripts/private-files.sh');
const dir = mkdtempSync(join(tmpdir(), 'herald-up-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

/** Runs `script` in bash with the helpers sourced and the usual 022 umask. */
function bash(script: string): void {
  execFileSync('bash', ['-c', `set -euo pipefail; umask 022; . ${JSON.stringify(helpers)}; ${script}`], { stdio: ['ignore', 'ignore', 'inherit'] });
}

describe('scripts/private-files.sh', () => {
  it('private_file creates a missing file 0600 and narrows an existing one, keeping its content', () => {
    const fresh = join(dir, 'fresh.log');
    const existing = join(dir, 'existing.log');
    writeFileSync(existing, 'kept\n');
    chmodSync(existing, 0o644);
    bash(`private_file ${JSON.stringify(fresh)}; echo written >${JSON.stringify(fresh)}; private_file ${JSON.stringify(existing)}`);
    expect(mode(fresh)).toBe('600');
    expect(readFileSync(fresh, 'utf8')).toBe('written\n');
    expect(mode(existing)).toBe('600');
    expect(readFileSync(existing, 'utf8')).toBe('kept\n');
  });

  it.runIf(process.platform === 'linux')('restrict_redirected_output makes the file output is redirected to 0600 before anything is printed', () => {
    const log = join(dir, 'up.log');
    writeFileSync(log, '');
    chmodSync(log, 0o644);
    // A pipe (or a terminal) is left alone, without failing the script; a file is narrowed.
    const piped = execFileSync('bash', ['-c', `set -euo pipefail; . ${JSON.stringify(helpers)}; restrict_redirected_output; echo 'through a pipe'`], { encoding: 'utf8' });
    expect(piped).toBe('through a pipe\n');
    execFileSync('bash', ['-c', `exec >>${JSON.stringify(log)} 2>&1; . ${JSON.stringify(helpers)}; restrict_redirected_output; echo 'Bootstrap admin token: hrd_x'`]);
    expect(mode(log)).toBe('600');
    expect(readFileSync(log, 'utf8')).toContain('hrd_x');
  });
});

describe('scripts/up.sh', () => {
  const text = readFileSync(join(root, 'scripts/up.sh'), 'utf8');

  it('narrows its own output before anything else runs', () => {
    expect(text.indexOf('restrict_redirected_output\n')).toBeGreaterThan(0);
    expect(text.indexOf('restrict_redirected_output\n')).toBeLessThan(text.indexOf('detach '));
  });

  it('makes every file it writes under .data private before writing to it', () => {
    const targets = [...text.matchAll(/\d?>>?"(\$DATA\/[^"]+)"/g)].map((match) => ({ path: match[1]!, at: match.index }));
    expect(targets.map((target) => target.path)).toEqual(expect.arrayContaining(['$DATA/master-key', '$DATA/dev.env', '$DATA/store.log', '$DATA/store/uri', '$DATA/mongod.log']));
    for (const { path, at } of targets) {
      const prepared = text.lastIndexOf(`private_file "${path}"`, at);
      expect(prepared, `${path} is written before private_file prepares it`).toBeGreaterThan(-1);
    }
  });

  it.runIf(process.platform === 'linux')('refuses at once, naming the address, when something already listens there', async () => {
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as AddressInfo;
    try {
      const started = Date.now();
      const run = spawnSync('bash', [join(root, 'scripts/up.sh')], { env: { ...process.env, HERALD_HOST: '127.0.0.1', HERALD_PORT: String(port) }, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`something already listens on 127.0.0.1:${port}`);
      // Before any database: no store was started, nothing was waited for.
      expect(run.stderr).not.toMatch(/FerretDB|mongod/);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      taken.close();
    }
  });
});
