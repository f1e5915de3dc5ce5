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
  template:
    metadata: { labels: { app: mongo } }
    spec:
      containers:
        - name: ferretdb
          image: ${store}
          imagePullPolicy: Never
          ports: [{ containerPort: 27017 }]
          readinessProbe: { tcpSocket: { port: 27017 }, periodSeconds: 2 }
          volumeMounts: [{ name: data, mountPath: /var/lib/store }]
      volumes: [{ name: data, emptyDir: {} }]
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
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
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
    // The API answers through the host's Service from another namespace.
    const ready200 = await fromSink(`${HOST}/readyz`);
    expect(ready200.status).toBe(200);
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
});
