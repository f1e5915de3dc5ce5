// Operator benchmark: apply→visible latency, convergence of many CRs, and the operator's memory.
// The operator runs as its own process (the built executable) so its RSS is its own.
//   BENCH_CRS=1000 BENCH_LATENCY_SAMPLES=40 npm run bench -w packages/operator
import { CustomObjectsApi } from '@kubernetes/client-node';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { freePort } from '../../../test/support/ferretdb.js';
import { startHeraldForTests, type HeraldForTests } from '../../../test/support/kube-herald-host.js';
import { createTestNamespace, installChartOperatorRbac, loadKubeConfig, operatorKubeconfigPath, waitFor } from '../../../test/support/kube.js';

const CRS = Number(process.env.BENCH_CRS ?? 1000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 40);
const repoRoot = resolve(import.meta.dirname, '../../..');

let herald: HeraldForTests;
let operator: ChildProcess;
let operatorPort: number;
let namespace: string;
const api = () => loadKubeConfig().makeApiClient(CustomObjectsApi);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith(`${field}:`)) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
}

async function createCr(name: string): Promise<void> {
  await api().createNamespacedCustomObject({
    group: 'herald.dev', version: 'v1alpha1', plural: 'webhooksubscribers', namespace,
    body: { apiVersion: 'herald.dev/v1alpha1', kind: 'WebhookSubscriber', metadata: { name, namespace }, spec: { targetUrl: `https://${name}.example.com/hook`, events: ['order.*'] } },
  });
}

async function heraldTotal(): Promise<number> {
  const response = await herald.request('GET', '/api/v0.9/webhook-subscribers?limit=1', herald.adminToken);
  return (response.body as { pagination: { total: number } }).pagination.total;
}

beforeAll(async () => {
  const build = spawnSync(process.execPath, [resolve(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', 'packages/operator'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  installChartOperatorRbac();
  namespace = createTestNamespace('bench');
  herald = await startHeraldForTests();
  const { token } = await herald.createToken('herald-operator', ['dp:webhook_subscriber:manage']);
  operatorPort = await freePort();
  operator = spawn(process.execPath, [resolve(repoRoot, 'packages/operator/dist/bin/herald-operator.js')], {
    env: {
      PATH: process.env.PATH,
      KUBECONFIG: operatorKubeconfigPath(),
      HERALD_URL: herald.url,
      HERALD_TOKEN: token,
      HERALD_OPERATOR_WATCH_NAMESPACES: namespace,
      HERALD_OPERATOR_LEASE_NAMESPACE: 'herald-system',
      HERALD_OPERATOR_LEASE_NAME: 'herald-operator',
      HERALD_OPERATOR_IDENTITY: 'bench',
      HERALD_OPERATOR_HOST: '127.0.0.1',
      HERALD_OPERATOR_PORT: String(operatorPort),
      HERALD_OPERATOR_LOG_LEVEL: 'warn',
      ...(process.env.HERALD_OPERATOR_WORKERS ? { HERALD_OPERATOR_WORKERS: process.env.HERALD_OPERATOR_WORKERS } : {}),
      // The chart's setting (charts/herald/templates/operator-deployment.yaml); BENCH_NODE_OPTIONS overrides.
      NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '--max-old-space-size=128 --max-semi-space-size=2',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitFor('operator to lead', async () => {
    const metrics = await fetch(`http://127.0.0.1:${operatorPort}/metrics`).then((response) => response.text()).catch(() => '');
    return metrics.includes('herald_operator_leader 1') ? true : undefined;
  }, 60_000);
}, 180_000);

afterAll(async () => {
  operator?.kill('SIGTERM');
  await herald?.close();
});

it('measures the operator', async () => {
  const idleRss = rssMb(operator.pid ?? 0, 'VmRSS');

  // 1. One CR at a time: create → GET in Herald answers 200 (polled every 10 ms).
  const latencies: number[] = [];
  for (let index = 0; index < LATENCY_SAMPLES; index += 1) {
    const name = `latency-${index}`;
    const startedAt = performance.now();
    await createCr(name);
    await waitFor(`${name} in Herald`, async () => ((await herald.request('GET', `/api/v0.9/webhook-subscribers/${namespace}.${name}`, herald.adminToken)).status === 200 ? true : undefined), 30_000, 10);
    latencies.push(performance.now() - startedAt);
  }
  const sorted = [...latencies].sort((a, b) => a - b);

  // 2. Many CRs at once (20 concurrent creates): time until all exist in Herald and all are Ready.
  const before = await heraldTotal();
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (next < CRS) await createCr(`bulk-${next++}`);
  }));
  const createdAt = performance.now();
  await waitFor(`${CRS} subscribers in Herald`, async () => ((await heraldTotal()) - before >= CRS ? true : undefined), 600_000, 500);
  const visibleAt = performance.now();
  await waitFor(`${CRS} CRs Ready`, async () => {
    const list = (await api().listNamespacedCustomObject({ group: 'herald.dev', version: 'v1alpha1', plural: 'webhooksubscribers', namespace })) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
    const ready = list.items.filter((item) => item.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')).length;
    return ready >= CRS + LATENCY_SAMPLES ? true : undefined;
  }, 600_000, 1_000);
  const readyAt = performance.now();
  const pid = operator.pid ?? 0;
  const finalMetrics = await fetch(`http://127.0.0.1:${operatorPort}/metrics`).then((response) => response.text());
  const heapMb = Number(/nodejs_heap_used_bytes (\d+)/.exec(finalMetrics)?.[1] ?? 0) / 1024 / 1024;

  console.log([
    '',
    `operator benchmark (${CRS} CRs; kube-apiserver+kine, Herald on FerretDB, all on this machine; operator NODE_OPTIONS="${process.env.BENCH_NODE_OPTIONS ?? '--max-old-space-size=128 --max-semi-space-size=2'}")`,
    `  apply → visible in Herald, one at a time   n=${LATENCY_SAMPLES}  p50=${percentile(sorted, 50).toFixed(0)} ms  p95=${percentile(sorted, 95).toFixed(0)} ms  max=${(sorted.at(-1) ?? 0).toFixed(0)} ms   (target p95 ≤ 2000 ms)`,
    `  ${CRS} CRs created (20 concurrent)          ${((createdAt - startedAt) / 1000).toFixed(1)} s`,
    `  ${CRS} subscribers visible in Herald        ${((visibleAt - startedAt) / 1000).toFixed(1)} s after the first create   (target ≤ 60 s)`,
    `  ${CRS} CRs Ready (status written)           ${((readyAt - startedAt) / 1000).toFixed(1)} s after the first create`,
    `  operator RSS idle ${idleRss.toFixed(0)} MB, at ${CRS + LATENCY_SAMPLES} CRs ${rssMb(pid, 'VmRSS').toFixed(0)} MB, peak ${rssMb(pid, 'VmHWM').toFixed(0)} MB, V8 heap used ${heapMb.toFixed(0)} MB   (target ≤ 150 MB)`,
    '',
  ].join('\n'));
});
