// Two herald-operator processes (the built executable, watching all namespaces) against the chart's
// Lease, with the chart's RBAC: only the leader reconciles; killing it hands over; a graceful stop
// releases the Lease at once; a Lease deleted by hand is reported, not recreated.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ferretdb.js';
import { startHeraldForTests, type HeraldForTests } from '../support/kube-herald-host.js';
import { createTestNamespace, installChartOperatorRbac, kubectl, kubectlOk, operatorKubeconfigPath, waitFor } from '../support/kube.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const operatorBin = resolve(repoRoot, 'packages/operator/dist/bin/herald-operator.js');
const leaseArgs = ['get', 'lease', 'herald-operator', '-n', 'herald-system', '-o', 'jsonpath={.spec.holderIdentity}'];

interface Replica {
  identity: string;
  port: number;
  process: ChildProcess;
  output: string[];
}

let namespace: string;
let herald: HeraldForTests;
let token: string;
const replicas: Replica[] = [];

async function startReplica(identity: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [operatorBin], {
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: operatorKubeconfigPath(),
      HERALD_URL: herald.url,
      HERALD_TOKEN: token,
      // Cluster-wide, as the chart installs it by default (ClusterRole): CRs other test files left
      // in their namespaces are synced too, which is harmless here.
      HERALD_OPERATOR_LEASE_NAME: 'herald-operator',
      HERALD_OPERATOR_LEASE_NAMESPACE: 'herald-system',
      HERALD_OPERATOR_IDENTITY: identity,
      HERALD_OPERATOR_LEASE_DURATION_SECONDS: '4',
      HERALD_OPERATOR_RENEW_DEADLINE_SECONDS: '3',
      HERALD_OPERATOR_RETRY_PERIOD_SECONDS: '1',
      HERALD_OPERATOR_HOST: '127.0.0.1',
      HERALD_OPERATOR_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const replica: Replica = { identity, port, process: child, output: [] };
  child.stdout?.on('data', (chunk: Buffer) => replica.output.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => replica.output.push(chunk.toString('utf8')));
  replicas.push(replica);
  await waitFor(`${identity} to serve /healthz`, async () => ((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined), 20_000);
  return replica;
}

async function metricsOf(replica: Replica): Promise<string> {
  return (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
}

function reconcileCount(metrics: string): number {
  return Number(/herald_operator_reconcile_total\{result="success"\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

function leaseHolder(): string {
  return kubectl(leaseArgs).stdout;
}

function applySubscriber(name: string): void {
  kubectlOk(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'herald.dev/v1alpha1', kind: 'WebhookSubscriber', metadata: { name, namespace }, spec: { targetUrl: `https://${name}.example.com/` } }),
  });
}

async function subscriberExists(name: string): Promise<true | undefined> {
  const response = await herald.request('GET', `/api/v0.9/webhook-subscribers/${namespace}.${name}`, herald.adminToken);
  return response.status === 200 ? true : undefined;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((done) => child.once('exit', (code) => done(code)));
}

beforeAll(async () => {
  // The executable runs from dist (as in the image); build it if needed (incremental, fast when current).
  const build = spawnSync(process.execPath, [resolve(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/operator'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building the operator failed: ${build.stdout}${build.stderr}`);
  installChartOperatorRbac();
  namespace = createTestNamespace('leader');
  herald = await startHeraldForTests();
  token = (await herald.createToken('herald-operator', ['dp:webhook_subscriber:manage'])).token;
}, 120_000);

afterAll(async () => {
  for (const replica of replicas) {
    if (replica.process.exitCode === null) replica.process.kill('SIGKILL');
  }
  await herald?.close();
});

describe('leader election between two operator processes', () => {
  let leader: Replica;
  let follower: Replica;

  it('elects exactly one leader, and only the leader reconciles', async () => {
    const [a, b] = [await startReplica('replica-a'), await startReplica('replica-b')];
    const holder = await waitFor('a lease holder', () => (['replica-a', 'replica-b'].includes(leaseHolder()) ? leaseHolder() : undefined), 20_000);
    [leader, follower] = holder === 'replica-a' ? [a, b] : [b, a];
    await waitFor('leader gauge', async () => ((await metricsOf(leader)).includes('herald_operator_leader 1') ? true : undefined));
    expect(await metricsOf(follower)).toContain('herald_operator_leader 0');

    applySubscriber('first');
    await waitFor('first subscriber in Herald', () => subscriberExists('first'), 20_000);
    // The subscriber exists once the POST is done; the reconcile (status, Event) completes just after.
    await waitFor('the leader to count its reconcile', async () => (reconcileCount(await metricsOf(leader)) > 0 ? true : undefined));
    expect(reconcileCount(await metricsOf(follower))).toBe(0);
    // A standby is ready (it is healthy and waiting); readiness does not gate leadership.
    expect((await fetch(`http://127.0.0.1:${follower.port}/readyz`)).status).toBe(200);
  });

  it('hands over when the leader is killed', async () => {
    const killedAt = Date.now();
    leader.process.kill('SIGKILL');
    await exited(leader.process);
    await waitFor('the follower to take the lease', () => (leaseHolder() === follower.identity ? true : undefined), 15_000);
    const handoverMs = Date.now() - killedAt;
    // Lease duration 4 s plus one retry period, with slack for a loaded machine.
    expect(handoverMs).toBeLessThan(9_000);
    applySubscriber('second');
    await waitFor('second subscriber in Herald', () => subscriberExists('second'), 20_000);
    await waitFor('the new leader to count reconciles', async () => (reconcileCount(await metricsOf(follower)) > 0 ? true : undefined));
  });

  it('releases the lease on SIGTERM so a new replica leads at once', async () => {
    follower.process.kill('SIGTERM');
    expect(await exited(follower.process)).toBe(0);
    expect(leaseHolder()).toBe('');
    const startedAt = Date.now();
    const next = await startReplica('replica-c');
    await waitFor('replica-c to lead', () => (leaseHolder() === 'replica-c' ? true : undefined), 10_000);
    // No waiting out the 4 s lease: it was released.
    expect(Date.now() - startedAt).toBeLessThan(4_000);
    applySubscriber('third');
    await waitFor('third subscriber in Herald', () => subscriberExists('third'), 20_000);
    next.process.kill('SIGTERM');
    expect(await exited(next.process)).toBe(0);
  });

  it('says once that a Lease deleted by hand is missing, cannot recreate it, and leads again when the chart restores it', async () => {
    const missing = 'does not exist and this operator may not create it';
    const replica = await startReplica('replica-d');
    await waitFor('replica-d to lead', () => (leaseHolder() === 'replica-d' ? true : undefined), 10_000);
    kubectlOk(['delete', 'lease', 'herald-operator', '-n', 'herald-system']);
    await waitFor('replica-d to report the missing Lease', () => (replica.output.join('').includes(missing) ? true : undefined), 10_000);
    // Past its renew deadline (3 s) it steps down; the chart grants no create, so the Lease stays gone.
    await waitFor('replica-d to step down', async () => ((await metricsOf(replica)).includes('herald_operator_leader 0') ? true : undefined), 10_000);
    expect(kubectl(['get', 'lease', 'herald-operator', '-n', 'herald-system']).stderr).toContain('NotFound');
    const line = replica.output.join('').split('\n').find((text) => text.includes(missing)) ?? '';
    console.log(`replica-d: ${line}`);
    expect(JSON.parse(line)).toMatchObject({ level: 50, lease: 'herald-system/herald-operator' });

    installChartOperatorRbac(); // as `helm upgrade` would
    await waitFor('replica-d to lead again', () => (leaseHolder() === 'replica-d' ? true : undefined), 10_000);
    expect(replica.output.join('').split(missing).length - 1).toBe(1);
    replica.process.kill('SIGTERM');
    expect(await exited(replica.process)).toBe(0);
    expect(leaseHolder()).toBe('');
  });
});
