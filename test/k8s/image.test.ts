// deploy/Dockerfile, built here on the local Node base (scripts/tools/herald-image.sh), runs the
// three roles the chart gives it — host, delivery worker, operator — as non-root with a read-only
// root file system and no capabilities. Containers use the host's network namespace so they reach
// the run's FerretDB and kube-apiserver on loopback; nothing else is contacted.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeconfigPath, waitFor } from '../support/kube.js';
import { testMongoUri, uniqueDbName } from '../support/mongo.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const suffix = randomBytes(4).toString('hex');
const containers: string[] = [];
let image = '';
let files = '';

function docker(args: string[], timeoutMs = 60_000): { status: number; stdout: string; stderr: string } {
  const run = spawnSync('docker', args, { encoding: 'utf8', timeout: timeoutMs });
  return { status: run.status ?? -1, stdout: run.stdout ?? '', stderr: run.stderr ?? String(run.error ?? '') };
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts a container of the image with the chart's security settings; returns its name. */
function runContainer(role: string, env: Record<string, string>, command: string[]): string {
  const name = `herald-image-test-${role}-${suffix}`;
  // As in the chart: emptyDirs at /tmp and at HERALD_DATA_DIR, everything else read-only.
  const args = ['run', '-d', '--name', name, '--network', 'host', '--read-only', '--tmpfs', '/tmp',
    '--tmpfs', '/var/lib/herald:uid=10001,gid=10001,mode=0700', '-e', 'HERALD_DATA_DIR=/var/lib/herald',
    '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '-v', `${files}:/config:ro`];
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  const result = docker([...args, image, ...command]);
  if (result.status !== 0) throw new Error(`docker run ${role} failed: ${result.stderr}`);
  containers.push(name);
  return name;
}

async function httpStatus(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return { status: response.status, body: await response.text() };
  } catch {
    return undefined;
  }
}

/** Waits for a 200 from url, failing with the container's log so a crash says why. */
async function waitFor200(container: string, url: string): Promise<string> {
  const exited = Symbol('exited');
  try {
    const body = await waitFor(`${url} from ${container}`, async () => {
      const state = docker(['inspect', '-f', '{{.State.Running}}', container]).stdout.trim();
      if (state !== 'true') return exited;
      const answer = await httpStatus(url);
      return answer?.status === 200 ? answer.body : undefined;
    }, 60_000, 250);
    if (body === exited) throw new Error(`${container} exited`);
    return body;
  } catch (error) {
    const logs = docker(['logs', '--tail', '40', container]);
    throw new Error(`${(error as Error).message}\n--- docker logs ${container} ---\n${logs.stdout}${logs.stderr}`);
  }
}

beforeAll(() => {
  const build = spawnSync('bash', [join(repoRoot, 'scripts/tools/herald-image.sh')], { encoding: 'utf8', timeout: 15 * 60_000 });
  if (build.status !== 0) throw new Error(`building the image failed (scripts/tools/herald-image.sh):\n${build.stderr}`);
  image = build.stdout.trim();
  // Mounted read-only into the containers, readable by their non-root user.
  files = mkdtempSync(join(tmpdir(), 'herald-image-'));
  chmodSync(files, 0o755);
}, 16 * 60_000);

afterAll(() => {
  for (const name of containers) docker(['rm', '-f', name]);
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('the Herald image', () => {
  const token = `hrd_${randomBytes(32).toString('base64url')}`;
  let hostPort = 0;

  it('runs as a non-root user by default', () => {
    const inspect = docker(['image', 'inspect', '-f', '{{.Config.User}}', image]);
    expect(inspect.stdout.trim()).toBe('10001:10001');
    const id = docker(['run', '--rm', '--read-only', image, 'id', '-u']);
    expect(id.stdout.trim()).toBe('10001');
    const write = docker(['run', '--rm', '--read-only', '--user', '0', image, 'touch', '/app/x']);
    expect(write.status).not.toBe(0);
    expect(write.stderr).toContain('Read-only file system');
    const size = Number(docker(['image', 'inspect', '-f', '{{.Size}}', image]).stdout.trim());
    console.log(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);
  });

  it('`herald-server start` serves the API and becomes ready on a read-only root file system', async () => {
    writeFileSync(join(files, 'seed-tokens.json'), JSON.stringify([{ name: 'herald-operator', token, scopes: ['dp:webhook_subscriber:manage'] }]));
    chmodSync(join(files, 'seed-tokens.json'), 0o644);
    hostPort = await freePort();
    const name = runContainer('host', {
      HERALD_MONGODB_URI: testMongoUri(),
      HERALD_MONGODB_DB: uniqueDbName('image'),
      HERALD_HOST: '127.0.0.1',
      HERALD_PORT: String(hostPort),
      HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
      HERALD_SEED_TOKENS_FILE: '/config/seed-tokens.json',
    }, ['herald-server', 'start']);
    const ready = JSON.parse(await waitFor200(name, `http://127.0.0.1:${hostPort}/readyz`)) as Record<string, unknown>;
    expect(ready).toMatchObject({ status: 'ready', mongo: true, engine: 'running' });
    const me = await fetch(`http://127.0.0.1:${hostPort}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(docker(['exec', name, 'id', '-u']).stdout.trim()).toBe('10001');
  }, 90_000);

  it('`herald-server start --engine-only` runs the delivery engine and serves only its probes', async () => {
    const port = await freePort();
    const name = runContainer('worker', {
      HERALD_MONGODB_URI: testMongoUri(),
      HERALD_MONGODB_DB: uniqueDbName('image'),
      HERALD_HOST: '127.0.0.1',
      HERALD_PORT: String(port),
      HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    }, ['herald-server', 'start', '--engine-only']);
    const ready = JSON.parse(await waitFor200(name, `http://127.0.0.1:${port}/readyz`)) as Record<string, unknown>;
    expect(ready).toMatchObject({ status: 'ready', engine: 'running' });
    expect((await httpStatus(`http://127.0.0.1:${port}/api/v1/me`))?.status).toBe(404);
  }, 90_000);

  it('`herald-operator` starts, connects to the kube-apiserver and becomes ready', async () => {
    expect(hostPort).toBeGreaterThan(0);
    writeFileSync(join(files, 'token'), token);
    copyFileSync(adminKubeconfigPath(), join(files, 'kubeconfig'));
    for (const file of ['token', 'kubeconfig']) chmodSync(join(files, file), 0o644);
    const port = await freePort();
    const name = runContainer('operator', {
      HERALD_URL: `http://127.0.0.1:${hostPort}`,
      HERALD_TOKEN_FILE: '/config/token',
      KUBECONFIG: '/config/kubeconfig',
      HERALD_OPERATOR_PORT: String(port),
      HERALD_OPERATOR_LEADER_ELECTION: 'false',
    }, ['herald-operator']);
    await waitFor200(name, `http://127.0.0.1:${port}/healthz`);
    await waitFor200(name, `http://127.0.0.1:${port}/readyz`);
  }, 90_000);
});
