// The chart on a real cluster (scripts/cluster.sh), as a user runs it: `helm install` exactly as
// docs/kubernetes.md writes it, into a namespace held to the restricted Pod Security level, against
// an in-cluster MongoDB-wire store (FerretDB over PostgreSQL, built here); then the example
// WebhookSubscriber, a delivery to a sink pod verified with @herald/receiver, Secret rotation and
// deletion. Every request goes between pods of this cluster or from the host to its apiserver.
import { decryptFields, verify } from '@herald/receiver';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heraldImage, repoRoot, runOk, startCluster, type Cluster } from '../support/cluster.js';

let cluster: Cluster | undefined;
let image = '';
let adminToken = '';
const HOST = 'http://herald.herald.svc';

function c(): Cluster {
  if (!cluster) throw new Error('the cluster did not start');
  return cluster;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** A request made from inside the sink pod (so it stays in the cluster); returns status and body. */
async function fromSink(url: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<{ status: number; body: string }> {
  const request = {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  };
  const script = `fetch(${JSON.stringify(url)}, ${JSON.stringify(request)}).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() }))).catch((e) => { console.error(String(e)); process.exit(1); })`;
  const out = await c().kubectlOk(['-n', 'shop', 'exec', 'deploy/sink', '--', 'node', '-e', script]);
  return JSON.parse(out) as { status: number; body: string };
}

interface SinkRecord {
  path: string;
  headers: Record<string, string | undefined>;
  body: string;
}

async function sinkRecords(): Promise<SinkRecord[]> {
  return JSON.parse((await fromSink('http://127.0.0.1:8080/records')).body) as SinkRecord[];
}

/** The `helm install` line of docs/kubernetes.md, split into arguments. */
function documentedInstall(): string[] {
  const docs = readFileSync(join(repoRoot, 'docs/kubernetes.md'), 'utf8');
  const line = docs.split('\n').find((text) => text.startsWith('helm install herald charts/herald -n herald --create-namespace --set mongodb.uri='));
  if (!line) throw new Error('docs/kubernetes.md no longer shows the helm install this test runs');
  // As the shell splits it: words at spaces, single-quoted parts kept whole, quotes removed.
  return (line.match(/(?:[^\s']+|'[^']*')+/g) ?? []).map((word) => word.replace(/'([^']*)'/g, '$1'));
}

beforeAll(async () => {
  image = await heraldImage();
  const store = (await runOk('bash', ['scripts/cluster.sh', 'store-image'], { timeoutMs: 1_200_000 })).trim().split('\n').pop() ?? '';
  const started = await startCluster([image, store]);
  cluster = started;
  console.log(`cluster ${started.name}: node Ready, images imported in ${started.startSeconds.toFixed(1)} s`);

  // The store the documented URI names: Service "mongo" in namespace "db".
  await c().kubectlOk(['apply', '-f', '-'], `
apiVersion: v1
kind: Namespace
metadata: { name: db }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: mongo, namespace: db }
spec:
  selector: { matchLabels: { app: mongo } }
  strategy: { type: Recreate }
  template:
    metadata: { labels: { app: mongo } }
    spec:
      # The data directory on the node is made by the kubelet as root; the store runs as postgres.
      initContainers:
        - name: data-owner
          image: ${store}
          imagePullPolicy: Never
          command: ["chown", "postgres:postgres", "/var/lib/store"]
          securityContext: { runAsUser: 0 }
          volumeMounts: [{ name: data, mountPath: /var/lib/store }]
      containers:
        - name: ferretdb
          image: ${store}
          imagePullPolicy: Never
          ports: [{ containerPort: 27017 }]
          readinessProbe: { tcpSocket: { port: 27017 }, periodSeconds: 2 }
          volumeMounts: [{ name: data, mountPath: /var/lib/store }]
      # On the node, not in the pod: the store keeps its data when it is scaled to 0 and back.
      volumes: [{ name: data, hostPath: { path: /var/lib/herald-e2e-store, type: DirectoryOrCreate } }]
---
apiVersion: v1
kind: Service
metadata: { name: mongo, namespace: db }
spec: { selector: { app: mongo }, ports: [{ port: 27017 }] }
`);
  // The receivers' namespace, restricted too; the sink script comes from a ConfigMap.
  await c().kubectlOk(['create', 'namespace', 'shop']);
  await c().kubectlOk(['label', 'namespace', 'shop', 'pod-security.kubernetes.io/enforce=restricted']);
  await c().kubectlOk(['-n', 'shop', 'create', 'configmap', 'sink', `--from-file=sink.mjs=${join(repoRoot, 'test/cluster/sink.mjs')}`]);
  await c().kubectlOk(['-n', 'shop', 'apply', '-f', '-'], `
apiVersion: apps/v1
kind: Deployment
metadata: { name: sink }
spec:
  selector: { matchLabels: { app: sink } }
  template:
    metadata: { labels: { app: sink } }
    spec:
      securityContext: { runAsNonRoot: true, seccompProfile: { type: RuntimeDefault } }
      containers:
        - name: sink
          image: ${image}
          imagePullPolicy: Never
          command: ["node", "/sink/sink.mjs"]
          readinessProbe: { httpGet: { path: /healthz, port: 8080 }, periodSeconds: 1 }
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: [ALL] } }
          volumeMounts: [{ name: sink, mountPath: /sink }]
      volumes: [{ name: sink, configMap: { name: sink } }]
---
apiVersion: v1
kind: Service
metadata: { name: sink }
spec: { selector: { app: sink }, ports: [{ port: 80, targetPort: 8080 }] }
`);
  await c().kubectlOk(['-n', 'db', 'rollout', 'status', 'deploy/mongo', '--timeout=180s']);
  await c().kubectlOk(['-n', 'shop', 'rollout', 'status', 'deploy/sink', '--timeout=180s']);
}, 1_800_000);

afterAll(async () => {
  await cluster?.stop();
}, 120_000);

describe('the chart on a real cluster', () => {
  it('installs as docs/kubernetes.md says, into a restricted namespace; every pod becomes Ready through its probes', async () => {
    await c().kubectlOk(['create', 'namespace', 'herald']);
    await c().kubectlOk(['label', 'namespace', 'herald', 'pod-security.kubernetes.io/enforce=restricted']);
    const [helm, ...documented] = documentedInstall();
    expect(helm).toBe('helm');
    const [repository, tag] = image.split(':');
    const install = await c().helm([
      ...documented,
      // This cluster's image, never pulled; host and workers at two replicas each; deliveries to the
      // cluster's Services allowed, as the docs say to.
      '--set', `image.repository=${repository}`, '--set', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never',
      '--set', 'server.replicas=2', '--set', 'worker.enabled=true', '--set', 'worker.replicas=2',
      '--set-json', 'config.extraEnv=[{"name":"HERALD_SSRF_ALLOW_LIST","value":"10.96.0.0/12"}]',
    ]);
    expect(install.status, install.stderr).toBe(0);
    console.log(install.stdout.split('\n').slice(0, 3).join('\n'));
    for (const deployment of ['herald', 'herald-worker', 'herald-operator']) {
      await c().kubectlOk(['-n', 'herald', 'rollout', 'status', `deploy/${deployment}`, '--timeout=300s']);
    }
    const pods = JSON.parse(await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-o', 'json'])) as {
      items: { metadata: { name: string }; status: { conditions?: { type: string; status: string }[] } }[];
    };
    console.log(await c().kubectlOk(['get', 'pods', '-A', '-o', 'wide']));
    const ready = pods.items.filter((pod) => pod.status.conditions?.some((cond) => cond.type === 'Ready' && cond.status === 'True'));
    expect(ready.map((pod) => pod.metadata.name).length).toBe(pods.items.length);
    expect(pods.items.length).toBe(6); // 2 hosts, 2 workers, 2 operators
    // The operators elect their leader on the Lease the chart created (they may not create one).
    const lease = await waitFor('an operator to hold the Lease', async () => {
      const current = await operatorLease();
      return current.holder ? current : undefined;
    }, 60_000);
    expect(lease.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'herald' });
    expect(await operatorPods()).toContain(lease.holder);
    console.log(`Lease herald/herald-operator: created by Helm, held by operator pod ${lease.holder}`);
    // The API answers through the host's Service from another namespace.
    // kube-proxy programs the Service a moment after its endpoints turn ready.
    await waitFor('the host Service to answer /readyz', async () => {
      const answer = await fromSink(`${HOST}/readyz`).catch(() => undefined);
      return answer?.status === 200 ? true : undefined;
    }, 30_000);
    adminToken = (await c().kubectlOk(['-n', 'herald', 'exec', 'deploy/herald', '--', 'herald-server', 'token', 'create', '--name', 'e2e-admin', '--scopes', 'all'])).trim();
    expect(adminToken).toMatch(/^hrd_/);
  });

  it('syncs examples/k8s/webhook-subscriber.yaml (pointed at the sink) into a Ready subscriber', async () => {
    const example = readFileSync(join(repoRoot, 'examples/k8s/webhook-subscriber.yaml'), 'utf8');
    expect(example).toContain('https://billing.example.com/webhooks/herald');
    await c().kubectlOk(['-n', 'shop', 'apply', '-f', '-'], example.replace('https://billing.example.com/webhooks/herald', 'http://sink.shop.svc/hook'));
    await c().kubectlOk(['-n', 'shop', 'wait', '--for=condition=Ready', 'webhooksubscriber/orders', '--timeout=120s']);
    console.log(await c().kubectlOk(['-n', 'shop', 'get', 'webhooksubscribers']));
    const subscriber = await fromSink(`${HOST}/api/v0.9/webhook-subscribers/shop.orders`, { token: adminToken });
    expect(subscriber.status).toBe(200);
    expect(JSON.parse(subscriber.body)).toMatchObject({ targetUrl: 'http://sink.shop.svc/hook', events: ['order.*', 'subscription.cancelled'] });
  });

  it('delivers an event published through the host Service to the sink pod: signed, its sensitive field encrypted', async () => {
    const published = await fromSink(`${HOST}/api/v0.9/webhook-events`, {
      method: 'POST',
      token: adminToken,
      body: { eventType: 'order.created', aggregateType: 'order', aggregateId: 'e2e-1', data: { total: 42, card: '4242-4242' }, sensitive: ['card'] },
    });
    expect(published.status).toBe(201);
    const record = await waitFor('the delivery at the sink', async () => (await sinkRecords()).find((r) => r.body.includes('e2e-1')));
    console.log(`delivery received by the sink: webhook-id ${record.headers['webhook-id']}, ${record.body.length} bytes`);
    const { payload, profile } = verify(record.headers, Buffer.from(record.body), 'change-me-to-a-long-random-value');
    const envelope = payload as { data: Record<string, unknown>; encryptedFields?: string[]; encrypted_fields?: string[] };
    expect(envelope.data.card).not.toBe('4242-4242');
    const data = decryptFields(envelope.data, 'change-me-to-a-long-random-value', profile, envelope.encryptedFields ?? envelope.encrypted_fields);
    expect(data).toMatchObject({ total: 42, card: '4242-4242' });
  });

  it('rotates the subscriber secret when the Secret changes', async () => {
    const rotated = 'rotated-secret-value-0123456789abcdef';
    await c().kubectlOk(['-n', 'shop', 'patch', 'secret', 'orders-webhook-secret', '--type=merge', '-p', JSON.stringify({ stringData: { secret: rotated } })]);
    // Each probe publishes one event and waits for its delivery; done once one verifies with the new secret.
    let attempt = 0;
    await waitFor('a delivery signed with the rotated secret', async () => {
      attempt++;
      const id = `rotate-${attempt}`;
      await fromSink(`${HOST}/api/v0.9/webhook-events`, { method: 'POST', token: adminToken, body: { eventType: 'order.created', aggregateId: id, data: { id } } });
      const record = await waitFor(`delivery ${id}`, async () => (await sinkRecords()).find((r) => r.body.includes(`"${id}"`)), 60_000);
      try {
        verify(record.headers, Buffer.from(record.body), rotated);
        return true;
      } catch {
        return undefined;
      }
    }, 90_000);
  });

  it('deletes the subscriber when the resource is deleted', async () => {
    await c().kubectlOk(['-n', 'shop', 'delete', 'webhooksubscriber', 'orders', '--wait=true', '--timeout=60s']);
    const gone = await fromSink(`${HOST}/api/v0.9/webhook-subscribers/shop.orders`, { token: adminToken });
    expect(gone.status).toBe(404);
  });

  it('keeps every event through a helm upgrade (a changed config value rolls every host and worker pod) during steady publishing; the operator keeps its Lease', async () => {
    await createLoadSubscriber();
    const run = await publishAndWait('upgrade', 300, 10, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      // A label removed by hand, so the upgrade has to patch the Lease while an operator holds it.
      await c().kubectlOk(['-n', 'herald', 'label', 'lease', 'herald-operator', 'app.kubernetes.io/part-of-']);
      const [leaseBefore, operatorsBefore] = [await operatorLease(), await operatorPods()];
      const upgrade = await c().helm(['upgrade', 'herald', 'charts/herald', '-n', 'herald', '--reuse-values', '--set', 'config.drainTimeoutSeconds=12']);
      expect(upgrade.status, upgrade.stderr).toBe(0);
      for (const deployment of ['herald', 'herald-worker', 'herald-operator']) {
        await c().kubectlOk(['-n', 'herald', 'rollout', 'status', `deploy/${deployment}`, '--timeout=300s']);
      }
      console.log(await c().kubectlOk(['-n', 'herald', 'get', 'pods']));
      // This change does not roll the operator's pods, so the same one leads throughout: Helm's
      // three-way merge put the label back and left the holder, which the template does not set.
      const leaseAfter = await operatorLease();
      console.log(`operator Lease across helm upgrade: held by ${leaseBefore.holder} since ${leaseBefore.acquireTime} (${leaseBefore.transitions} transitions), then by ${leaseAfter.holder} since ${leaseAfter.acquireTime} (${leaseAfter.transitions}); part-of label ${leaseAfter.labels['app.kubernetes.io/part-of'] ?? 'missing'}`);
      expect(await operatorPods()).toEqual(operatorsBefore);
      expect(leaseAfter.labels['app.kubernetes.io/part-of']).toBe('herald');
      const held = ({ holder, acquireTime, transitions }: LeaseState) => ({ holder, acquireTime, transitions });
      expect(held(leaseAfter)).toEqual(held(leaseBefore));
    });
    const stats = await waitForDeliveries('/load-upgrade', run.accepted, 240_000);
    console.log(`helm upgrade during publishing: ${run.accepted} published, ${run.failed} refused, ${stats.distinct} delivered, ${stats.distinct >= run.accepted ? 0 : run.accepted - stats.distinct} lost, ${stats.duplicates} duplicates`);
    expect(run).toMatchObject({ accepted: 300, failed: 0 });
    expect(stats.distinct).toBe(300);
  });

  // What the backlog's drain below is measured against: the same subscriber's fan-out when no
  // backlog waits, 1,000 events published as fast as the host takes them (deliveries/s from the
  // first request to the last delivery, on the sink's clock).
  let referenceFanOut: number | undefined;
  it('delivers 1,000 events published at once in batches of 100: the fan-out the backlog\'s drain is compared with', async () => {
    const run = await publishAndWait('reference', 1_000, 10_000, async () => {}, 100);
    const stats = await waitForDeliveries('/load-reference', run.accepted, 300_000);
    referenceFanOut = stats.distinct / ((stats.lastAt - (run.endedAt - run.seconds * 1000)) / 1000);
    console.log(`reference fan-out: ${run.accepted} events published in ${run.seconds.toFixed(1)} s, ${stats.distinct} delivered at ${referenceFanOut.toFixed(0)} deliveries/s, ${stats.duplicates} duplicates`);
    expect(run).toMatchObject({ accepted: 1_000, failed: 0 });
    expect(stats.distinct).toBe(1_000);
    expect(stats.duplicates).toBe(0);
  });

  // Its own bounds, not the project's 300 s: publishing at 200/s (25 s if the host keeps up), then
  // the drain of what is left (up to 600 s).
  it('keeps every event when a worker pod is deleted in the middle of 5,000 deliveries published at 200/s; the other workers each did part', { timeout: 900_000 }, async () => {
    const workers = await workerPods();
    expect(workers.length).toBe(2);
    // Faster than one subscriber's 16 attempts at a time drain it, so a backlog builds up and is
    // drained while a worker goes away; in batches of 20 (10 requests a second), as a sender
    // with a backlog publishes.
    const run = await publishAndWait('kill', 5_000, 200, async () => {
      await waitFor('the first 1,000 deliveries', async () => ((await loadStats('/load-kill')).received >= 1_000 ? true : undefined), 240_000);
      const victim = workers[0]!;
      console.log(`deleting worker pod ${victim.name} (${victim.ip}) after ${(await loadStats('/load-kill')).received} deliveries`);
      await c().kubectlOk(['-n', 'herald', 'delete', 'pod', victim.name, '--wait=false']);
    }, 20);
    const stats = await waitForDeliveries('/load-kill', run.accepted, 600_000);
    // Times on the sink's clock: the publisher's own end, and the last delivery it received.
    const left = run.accepted - run.receivedWhenDone;
    const drainSeconds = (stats.lastAt - run.endedAt) / 1000;
    console.log(
      `backlog: ${run.accepted} events published in ${run.seconds.toFixed(1)} s (${(run.accepted / run.seconds).toFixed(0)}/s), ${left} deliveries left when publishing ended, drained in ${drainSeconds.toFixed(1)} s ` +
        `(${(left / Math.max(drainSeconds, 0.001)).toFixed(0)} deliveries/s; ÷ the reference fan-out: ${referenceFanOut ? (left / Math.max(drainSeconds, 0.001) / referenceFanOut).toFixed(2) : 'not measured'}); ` +
        `${(stats.received / ((stats.lastAt - run.endedAt) / 1000 + run.seconds)).toFixed(0)} deliveries/s from the first publish to the last delivery`,
    );
    const byPod = Object.fromEntries(Object.entries(stats.byPeer).map(([ip, count]) => [workers.find((w) => w.ip === ip)?.name ?? `new pod ${ip}`, count]));
    console.log(`worker deleted during 5,000 deliveries: ${run.accepted} published, ${stats.distinct} delivered, ${run.accepted - stats.distinct} lost, ${stats.duplicates} duplicates; deliveries by pod: ${JSON.stringify(byPod)}`);
    expect(run).toMatchObject({ accepted: 5_000, failed: 0 });
    expect(stats.distinct).toBe(5_000);
    // A duplicate is an attempt in flight when the pod stopped: at most the subscriber's concurrency.
    expect(stats.duplicates).toBeLessThanOrEqual(LOAD_CONCURRENCY);
    // Each worker did part: the deleted one before it went, the other throughout, the replacement after.
    for (const worker of workers) expect(stats.byPeer[worker.ip] ?? 0, worker.name).toBeGreaterThan(0);
    const replacements = Object.keys(stats.byPeer).filter((ip) => !workers.some((w) => w.ip === ip));
    expect(replacements.length, 'deliveries from the replacement worker').toBe(1);
  });

  it('says why a WebhookSubscriber cannot sync: a URL Herald refuses, a missing Secret (Ready=False with the reason)', async () => {
    // The apiserver refuses what the CRD can check, with the reason.
    const refused = await c().kubectl(['-n', 'shop', 'apply', '-f', '-'], subscriberYaml('ftp-url', 'ftp://sink.shop.svc/hook', 'load-secret'));
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/targetUrl/);
    // What only Herald checks (a fragment), and a Secret that does not exist, reach the operator.
    await c().kubectlOk(['-n', 'shop', 'apply', '-f', '-'], subscriberYaml('fragment-url', 'http://sink.shop.svc/hook#part', 'load-secret'));
    await c().kubectlOk(['-n', 'shop', 'apply', '-f', '-'], subscriberYaml('no-secret', 'http://sink.shop.svc/hook', 'does-not-exist'));
    const condition = async (name: string) =>
      waitFor(`${name}'s Ready condition`, async () => {
        const resource = JSON.parse(await c().kubectlOk(['-n', 'shop', 'get', 'webhooksubscriber', name, '-o', 'json'])) as {
          status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
        };
        return resource.status?.conditions?.find((cond) => cond.type === 'Ready');
      });
    const invalid = await condition('fragment-url');
    expect(invalid).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(invalid.message).toMatch(/fragment/i);
    const missing = await condition('no-secret');
    expect(missing).toMatchObject({ status: 'False', reason: 'SecretNotFound' });
    expect(missing.message).toMatch(/does-not-exist/);
    console.log(`Ready=False as expected: fragment-url ${invalid.reason}: ${invalid.message}; no-secret ${missing.reason}: ${missing.message}`);
    await c().kubectlOk(['-n', 'shop', 'delete', 'webhooksubscriber', 'fragment-url', 'no-secret', '--wait=true', '--timeout=60s']);
  });

  it('keeps every accepted event while the store is scaled to 0 and back during deliveries; no pod restarts, and /readyz names the store meanwhile', { timeout: 900_000 }, async () => {
    const restarts = async () => {
      const pods = JSON.parse(await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-o', 'json'])) as { items: { metadata: { name: string }; status: { containerStatuses?: { restartCount: number }[] } }[] };
      return new Map(pods.items.map((pod) => [pod.metadata.name, pod.status.containerStatuses?.[0]?.restartCount ?? 0]));
    };
    const before = await restarts();
    const hostPod = (await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-l', 'app.kubernetes.io/component=server', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const inHostPod = async (path: string) =>
      (await c().kubectl(['-n', 'herald', 'exec', hostPod, '--', 'node', '-e',
        `fetch('http://127.0.0.1:8080${path}', { headers: { authorization: 'Bearer ${adminToken}' }, signal: AbortSignal.timeout(15000) }).then(async (r) => console.log(r.status, r.headers.get('retry-after') ?? '-', await r.text()))`])).stdout.trim();
    let readyz = '';
    let api = '';
    let downSeconds = 0;
    let resumedSeconds = 0;
    let podsDuring = '';
    const run = await publishAndWait('storedown', 1_000, 20, async () => {
      await waitFor('the first 200 deliveries', async () => ((await loadStats('/load-storedown')).received >= 200 ? true : undefined), 240_000);
      await c().kubectlOk(['-n', 'db', 'scale', 'deploy/mongo', '--replicas=0']);
      await c().kubectlOk(['-n', 'db', 'wait', '--for=delete', 'pod', '-l', 'app=mongo', '--timeout=120s']);
      const downAt = Date.now();
      readyz = await waitFor('/readyz to answer 503 naming the store', async () => {
        const answer = await inHostPod('/readyz');
        return answer.startsWith('503') && answer.includes('mongo.db.svc') ? answer : undefined;
      }, 60_000);
      api = await inHostPod('/api/v0.9/webhook-events?limit=1');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - downAt))));
      podsDuring = await c().kubectlOk(['-n', 'herald', 'get', 'pods']);
      await c().kubectlOk(['-n', 'db', 'scale', 'deploy/mongo', '--replicas=1']);
      await c().kubectlOk(['-n', 'db', 'rollout', 'status', 'deploy/mongo', '--timeout=180s']);
      const upAt = Date.now();
      downSeconds = (upAt - downAt) / 1000;
      const receivedWhenBack = (await loadStats('/load-storedown')).received;
      await waitFor('deliveries to resume', async () => ((await loadStats('/load-storedown')).received > receivedWhenBack ? true : undefined), 120_000);
      resumedSeconds = (Date.now() - upAt) / 1000;
    });
    const stats = await waitForDeliveries('/load-storedown', run.accepted, 600_000);
    const after = await restarts();
    const restarted = [...before].filter(([name, count]) => (after.get(name) ?? count) > count).map(([name]) => name);
    console.log(
      `store down for ${downSeconds.toFixed(0)} s during deliveries: ${run.accepted} published, ${run.failed} refused while it was down, ${stats.distinct} delivered, ` +
        `${Math.max(0, run.accepted - stats.distinct)} lost, ${stats.duplicates} duplicates; deliveries resumed ${resumedSeconds.toFixed(1)} s after the store was back; ` +
        `pods restarted: ${restarted.length === 0 ? 'none' : restarted.join(', ')}\n/readyz meanwhile: ${readyz}\nthe API meanwhile: ${api.slice(0, 160)}\npods during the outage:\n${podsDuring}`,
    );
    expect(readyz).toMatch(/^503 - .*"database":"mongo\.db\.svc[^"]*does not answer"/);
    expect(api).toMatch(/^503 5 .*SERVICE_UNAVAILABLE/);
    expect(run.accepted).toBeGreaterThan(0);
    expect(stats.distinct).toBeGreaterThanOrEqual(run.accepted);
    expect(restarted).toEqual([]);
  });

  it('helm uninstall leaves only what the docs say is kept: the CRD and the Secret with the master key; no Lease', async () => {
    await c().kubectlOk(['-n', 'shop', 'delete', 'webhooksubscriber', 'load', '--wait=true', '--timeout=60s']);
    const uninstall = await c().helm(['uninstall', 'herald', '-n', 'herald', '--wait', '--timeout', '180s']);
    expect(uninstall.status, uninstall.stderr).toBe(0);
    await waitFor('the release\'s pods to go', async () => ((await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-o', 'name'])).trim() === '' ? true : undefined), 120_000);
    const kinds = 'all,configmaps,secrets,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets,endpointslices';
    const left = (await c().kubectlOk(['-n', 'herald', 'get', kinds, '-o', 'name'])).trim().split('\n').filter(Boolean).sort();
    console.log(`left in namespace herald after helm uninstall: ${left.join(', ')}`);
    // The operator's Lease is the release's: Helm deleted it, and the operator may not create one.
    expect((await c().kubectlOk(['-n', 'herald', 'get', 'leases', '-o', 'name'])).trim()).toBe('');
    // kube-root-ca.crt and the default ServiceAccount belong to every namespace.
    expect(left).toEqual(['configmap/kube-root-ca.crt', 'secret/herald-secrets', 'serviceaccount/default']);
    const clusterWide = await c().kubectlOk(['get', 'clusterroles,clusterrolebindings', '-o', 'name']);
    expect(clusterWide).not.toMatch(/herald/);
    expect(await c().kubectlOk(['get', 'crd', '-o', 'name'])).toContain('webhooksubscribers.herald.dev');
  });
});

describe('bad store settings get a clear answer', () => {
  const chartImage = () => {
    const [repository, tag] = image.split(':');
    return ['--set', `image.repository=${repository}`, '--set', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never'];
  };

  it('refuses helm install without a store URI, and with a malformed one, naming the value', async () => {
    await c().kubectlOk(['create', 'namespace', 'bad']);
    await c().kubectlOk(['label', 'namespace', 'bad', 'pod-security.kubernetes.io/enforce=restricted']);
    const missing = await c().helm(['install', 'bad', 'charts/herald', '-n', 'bad', ...chartImage()]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/mongodb/);
    const malformed = await c().helm(['install', 'bad', 'charts/herald', '-n', 'bad', ...chartImage(), '--set', 'mongodb.uri=mysql://db.bad.svc:3306']);
    expect(malformed.status).not.toBe(0);
    expect(malformed.stderr).toMatch(/mongodb\/uri/);
    console.log(`helm install without a URI: ${missing.stderr.trim()}\nwith a malformed one: ${malformed.stderr.trim()}`);
    expect((await c().kubectlOk(['-n', 'bad', 'get', 'pods', '-o', 'name'])).trim()).toBe('');
  });

  it('with an unreachable store the host stays up and never becomes Ready, without restarts; /readyz, its log and the pod events say why', async () => {
    const install = await c().helm(['install', 'bad', 'charts/herald', '-n', 'bad', ...chartImage(),
      '--set', 'mongodb.uri=mongodb://nowhere.bad.svc:27017', '--set', 'server.replicas=1', '--set', 'operator.enabled=false']);
    expect(install.status, install.stderr).toBe(0);
    const podName = await waitFor('the host pod', async () => (await c().kubectlOk(['-n', 'bad', 'get', 'pods', '-o', 'name'])).trim().split('/')[1] || undefined);
    // Long enough for the store's connection timeout, several readiness probes and the restarts a
    // host that exited would have had.
    await new Promise((resolve) => setTimeout(resolve, 45_000));
    const pod = JSON.parse(await c().kubectlOk(['-n', 'bad', 'get', 'pod', podName, '-o', 'json'])) as {
      status: { containerStatuses: { ready: boolean; restartCount: number }[] };
    };
    const container = pod.status.containerStatuses[0]!;
    expect(container.ready).toBe(false);
    // It waits for the store, answering 503, rather than exiting: Kubernetes has nothing to restart.
    expect(container.restartCount).toBe(0);
    const log = (await c().kubectl(['-n', 'bad', 'logs', podName])).stdout;
    const events = await c().kubectlOk(['-n', 'bad', 'get', 'events', '--field-selector', `involvedObject.name=${podName}`, '-o', 'custom-columns=REASON:.reason,MESSAGE:.message']);
    const readyz = await c().kubectl(['-n', 'bad', 'exec', podName, '--', 'node', '-e',
      "fetch('http://127.0.0.1:8080/readyz').then(async (r) => console.log(r.status, await r.text()))"]);
    console.log(`unreachable store: ready=false, ${container.restartCount} restart(s); /readyz: ${readyz.stdout.trim() || '(not answering)'}\npod events:\n${events}\nlog lines naming the store:\n${log.split('\n').filter((line) => /nowhere|mongo|store|ENOTFOUND/i.test(line)).slice(0, 5).join('\n')}`);
    // The reason is in the log, and the probes say the pod is not ready.
    expect(log).toMatch(/cannot reach the database at nowhere\.bad\.svc:27017/);
    expect(events).toMatch(/Readiness probe failed/);
    expect(readyz.stdout).toMatch(/^503 .*"database":"nowhere\.bad\.svc:27017 does not answer"/);
    const uninstall = await c().helm(['uninstall', 'bad', '-n', 'bad', '--wait', '--timeout', '120s']);
    expect(uninstall.status, uninstall.stderr).toBe(0);
  });
});

function subscriberYaml(name: string, url: string, secret: string): string {
  return `
apiVersion: herald.dev/v1alpha1
kind: WebhookSubscriber
metadata: { name: ${name} }
spec:
  targetUrl: "${url}"
  events: ["order.*"]
  secretRef: { name: ${secret} }
`;
}

const LOAD_CONCURRENCY = 16;

async function createLoadSubscriber(): Promise<void> {
  await c().kubectlOk(['-n', 'shop', 'create', 'secret', 'generic', 'load-secret', '--from-literal=secret=load-secret-value-0123456789']);
  await c().kubectlOk(['-n', 'shop', 'apply', '-f', '-'], `
apiVersion: herald.dev/v1alpha1
kind: WebhookSubscriber
metadata: { name: load }
spec:
  targetUrl: http://sink.shop.svc/load
  events: ["order.*"]
  maxConcurrency: ${LOAD_CONCURRENCY}
  secretRef: { name: load-secret }
`);
  await c().kubectlOk(['-n', 'shop', 'wait', '--for=condition=Ready', 'webhooksubscriber/load', '--timeout=120s']);
}

interface PublishRun {
  accepted: number;
  failed: number;
  errors: string[];
  done: boolean;
  /** Seconds from the first request to the last answer, the end's time, and deliveries received by then. */
  seconds: number;
  endedAt: number;
  receivedWhenDone: number;
}

/**
 * Has the sink publish `count` events at `perSecond`, `batch` per request (to /load-<prefix>
 * through the load subscriber, since each sink path is its own target: the subscriber's URL gets
 * the prefix), runs `during` meanwhile, and returns the publisher's tally once it is done.
 */
async function publishAndWait(prefix: string, count: number, perSecond: number, during: () => Promise<void>, batch = 1): Promise<PublishRun> {
  await c().kubectlOk(['-n', 'shop', 'patch', 'webhooksubscriber', 'load', '--type=merge', '-p', JSON.stringify({ spec: { targetUrl: `http://sink.shop.svc/load-${prefix}` } })]);
  await waitFor('the load subscriber to point at the new path', async () => {
    const subscriber = await fromSink(`${HOST}/api/v0.9/webhook-subscribers/shop.load`, { token: adminToken });
    return subscriber.status === 200 && (JSON.parse(subscriber.body) as { targetUrl: string }).targetUrl.endsWith(`/load-${prefix}`) ? true : undefined;
  });
  const maxSeconds = Math.ceil(count / perSecond) * 4 + 120;
  const started = await fromSink('http://127.0.0.1:8080/publish', {
    method: 'POST',
    body: { url: HOST, token: adminToken, count, perSecond, batch, prefix, maxSeconds },
  });
  expect(started.status).toBe(202);
  await during();
  return waitFor(`the publisher's ${count} events`, async () => {
    const run = JSON.parse((await fromSink(`http://127.0.0.1:8080/publish/${prefix}`)).body) as PublishRun;
    return run.done ? run : undefined;
  }, maxSeconds * 1000 + 30_000);
}

interface LoadStats {
  received: number;
  distinct: number;
  duplicates: number;
  byPeer: Record<string, number>;
  /** When the last delivery arrived, on the sink's clock. */
  lastAt: number;
}

async function loadStats(path: string): Promise<LoadStats> {
  return JSON.parse((await fromSink(`http://127.0.0.1:8080/stats${path}`)).body) as LoadStats;
}

async function waitForDeliveries(path: string, expected: number, timeoutMs: number): Promise<LoadStats> {
  let last: LoadStats | undefined;
  try {
    return await waitFor(`${expected} deliveries at ${path}`, async () => {
      last = await loadStats(path);
      return last.distinct >= expected ? last : undefined;
    }, timeoutMs);
  } catch (error) {
    throw new Error(`${String(error)}; last seen: ${JSON.stringify(last)}`);
  }
}

interface LeaseState {
  labels: Record<string, string>;
  holder: string;
  acquireTime?: string;
  transitions?: number;
}

async function operatorLease(): Promise<LeaseState> {
  const lease = JSON.parse(await c().kubectlOk(['-n', 'herald', 'get', 'lease', 'herald-operator', '-o', 'json'])) as {
    metadata: { labels?: Record<string, string> };
    spec: { holderIdentity?: string; acquireTime?: string; leaseTransitions?: number };
  };
  return { labels: lease.metadata.labels ?? {}, holder: lease.spec.holderIdentity ?? '', acquireTime: lease.spec.acquireTime, transitions: lease.spec.leaseTransitions };
}

async function operatorPods(): Promise<string[]> {
  const pods = JSON.parse(await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-l', 'app.kubernetes.io/component=operator', '-o', 'json'])) as {
    items: { metadata: { name: string; deletionTimestamp?: string } }[];
  };
  return pods.items.filter((pod) => !pod.metadata.deletionTimestamp).map((pod) => pod.metadata.name).sort();
}

async function workerPods(): Promise<{ name: string; ip: string }[]> {
  const pods = JSON.parse(await c().kubectlOk(['-n', 'herald', 'get', 'pods', '-l', 'app.kubernetes.io/component=worker', '-o', 'json'])) as {
    items: { metadata: { name: string; deletionTimestamp?: string }; status: { podIP?: string } }[];
  };
  return pods.items.filter((pod) => !pod.metadata.deletionTimestamp).map((pod) => ({ name: pod.metadata.name, ip: pod.status.podIP ?? '' }));
}
