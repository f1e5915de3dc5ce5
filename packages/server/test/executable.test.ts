// The herald-server executable as a real subprocess (built dist, Node 24 via process.execPath):
// help, configuration errors, token admin commands, first start with a bootstrap token, SIGTERM.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/mongo.js';

const repoRoot = resolve(import.meta.dirname, '../../..');
const bin = join(repoRoot, 'packages/server/dist/bin/herald-server.js');
let database: TestDatabase;
let env: Record<string, string>;

function run(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    const stdout = execFileSync(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Newest modification time of the sources the executable is compiled from. */
function newestSource(): number {
  const directories = ['packages/server/src', 'packages/core/src', 'packages/receiver/src'].map((dir) => join(repoRoot, dir));
  let newest = 0;
  for (const directory of directories) {
    for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

beforeAll(async () => {
  // The executable runs from dist. `npm test` builds first; compile here only when dist is stale
  // (server and, through project references, core and receiver).
  if (!existsSync(bin) || statSync(bin).mtimeMs < newestSource()) {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/server'], { cwd: repoRoot, stdio: 'inherit' });
  }
  database = await openTestDatabase('server_bin');
  env = {
    PATH: process.env.PATH ?? '',
    HERALD_MONGODB_URI: database.uri,
    HERALD_MONGODB_DB: database.dbName,
    HERALD_LOG_LEVEL: 'info',
  };
}, 180_000);
afterAll(async () => {
  await database?.client.db(`${database.dbName}_start`).dropDatabase().catch(() => undefined);
  await database?.close();
});

describe('commands', () => {
  it('--help explains every command', () => {
    const result = run(['--help']);
    expect(result.code).toBe(0);
    for (const text of ['start', '--no-engine', '--engine-only', 'token create', 'token list', 'token revoke']) expect(result.stdout).toContain(text);
  });

  it('a configuration error exits 2 with a clear message', () => {
    const result = run(['start'], { HERALD_MONGODB_URI: '', HERALD_PORT: 'eighty' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mongodbUri is required');
  });

  it('an unknown command or scope is a usage error (64)', () => {
    expect(run(['frobnicate']).code).toBe(64);
    const badScope = run(['token', 'create', '--name', 'x', '--scopes', 'dp:everything']);
    expect(badScope.code).toBe(64);
    expect(badScope.stderr).toContain('dp:webhook_subscriber:manage');
  });

  it('token create prints the token once; list never shows it; revoke marks it', () => {
    const created = run(['token', 'create', '--name', 'ci-bot', '--scopes', 'dp:event:read,dp:event:publish', '--expires-in', '30d']);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^hrd_[A-Za-z0-9_-]{43}$/);

    const listed = run(['token', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(token);
    const [info] = JSON.parse(listed.stdout) as Array<{ id: string; name: string; scopes: string[]; expiresAt: string; revokedAt: string | null }>;
    expect(info).toMatchObject({ name: 'ci-bot', scopes: ['dp:event:read', 'dp:event:publish'], revokedAt: null });
    expect(Date.parse(info!.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    expect(run(['token', 'revoke', info!.id]).stdout).toContain(`revoked ${info!.id}`);
    expect(run(['token', 'list']).stdout).toContain('\trevoked\tci-bot');
    expect(run(['token', 'revoke', info!.id]).code).toBe(64);
  });
});

describe('start', () => {
  let child: ChildProcess | undefined;
  const dataDirs: string[] = [];
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  function startServer(dataDir: string, database: string) {
    const output = { stdout: '', stderr: '' };
    const spawned = spawn(process.execPath, [bin, 'start'], {
      env: {
        ...env,
        HERALD_MONGODB_DB: database,
        HERALD_PORT: '0',
        HERALD_DATA_DIR: dataDir,
        HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    spawned.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
    spawned.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
    return { spawned, output };
  }

  async function urlOf(output: { stdout: string; stderr: string }): Promise<string> {
    let url: string | undefined;
    await expect
      .poll(
        () => {
          url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output.stdout)?.[1];
          return url;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBeDefined();
    return url!;
  }

  it('first start prints and saves a bootstrap admin token (0600); SIGTERM stops it cleanly; a restart issues none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-bin-'));
    dataDirs.push(dataDir);
    const dbName = `${database.dbName}_start`;
    const first = startServer(dataDir, dbName);
    child = first.spawned;
    const url = await urlOf(first.output);

    const printed = /Bootstrap admin token[^\n]*\n\n\s+(hrd_\S+)/.exec(first.output.stdout)?.[1];
    expect(printed).toMatch(/^hrd_/);
    const file = join(dataDir, 'bootstrap-token');
    expect(readFileSync(file, 'utf8').trim()).toBe(printed);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The token is printed for the operator but never logged.
    expect(first.output.stdout.split('\n').filter((line) => line.startsWith('{')).join('\n')).not.toContain(printed!);

    const response = await fetch(`${url}/api/v0.9/webhook-subscribers`, { headers: { authorization: `Bearer ${printed}` } });
    expect(response.status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const exited = new Promise<number | null>((resolveExit) => first.spawned.once('exit', (code) => resolveExit(code)));
    first.spawned.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(first.output.stdout).toContain('herald-server stopped');

    const second = startServer(dataDir, dbName);
    child = second.spawned;
    await urlOf(second.output);
    expect(second.output.stdout).not.toContain('Bootstrap admin token');
    const exitedAgain = new Promise<number | null>((resolveExit) => second.spawned.once('exit', (code) => resolveExit(code)));
    second.spawned.kill('SIGINT');
    expect(await exitedAgain).toBe(0);
  });
});
