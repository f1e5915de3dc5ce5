// charts/herald: lint, render, validate against the real apiserver, schema, RBAC least privilege.
import { createLogger, loadConfig, startHost } from '@herald/server';
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { operatorServiceAccount } from '../support/kube-apiserver.js';
import { adminKubeconfigPath, createTestNamespace, helm, kubectl, kubectlOk, operatorKubeconfigPath } from '../support/kube.js';
import { openTestDatabase } from '../support/mongo.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const chart = resolve(repoRoot, 'charts/herald');
const minimalValues = resolve(repoRoot, 'examples/k8s/values-minimal.yaml');
const productionValues = resolve(repoRoot, 'examples/k8s/values-production.yaml');
/** The chart's defaults plus the one thing it cannot default: where MongoDB is. */
const defaultArgs = ['--set', 'mongodb.uri=mongodb://mongodb:27017'];
// Release "herald" in herald-system gives the ServiceAccount the global setup impersonates.
const release = 'herald';
const releaseNamespace = operatorServiceAccount.namespace;

interface Container {
  name: string;
  securityContext?: Record<string, unknown>;
  livenessProbe?: { httpGet?: { path?: string } };
  readinessProbe?: { httpGet?: { path?: string } };
  args?: string[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
}
interface Workload extends KubernetesObject {
  spec: {
    replicas: number;
    template: {
      metadata?: { annotations?: Record<string, string> };
      spec: { securityContext?: Record<string, unknown>; terminationGracePeriodSeconds?: number; containers: Container[]; volumes?: Volume[] };
    };
  };
}
type SecretObject = KubernetesObject & { data?: Record<string, string> };
interface SeedEntry {
  name: string;
  token: string;
  scopes: string[];
}

const API_TOKEN_SHAPE = /^hrd_[A-Za-z0-9_-]{43}$/;

function render(args: string[], namespace = releaseNamespace): KubernetesObject[] {
  const result = helm(['template', release, chart, '--namespace', namespace, ...args]);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseObjects(result.stdout);
}

function parseObjects(text: string): KubernetesObject[] {
  return (loadAllYaml(text) as (KubernetesObject | null)[]).filter((object): object is KubernetesObject => object !== null);
}

function renderText(args: string[]): string {
  const result = helm(['template', release, chart, '--namespace', releaseNamespace, ...args]);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return result.stdout;
}

function kinds(objects: KubernetesObject[]): string[] {
  return objects.map((object) => `${object.kind}/${object.metadata?.name}`).sort();
}

function workloads(objects: KubernetesObject[]): Workload[] {
  return objects.filter((object): object is Workload => object.kind === 'Deployment');
}

function workload(objects: KubernetesObject[], name: string): Workload {
  const found = workloads(objects).find((object) => object.metadata?.name === name);
  if (!found) throw new Error(`no Deployment ${name}`);
  return found;
}

function chartSecretData(objects: KubernetesObject[]): Record<string, string> {
  const secret = objects.find((object): object is SecretObject => object.kind === 'Secret' && object.metadata?.name === 'herald-secrets');
  return Object.fromEntries(Object.entries(secret?.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

/** Which Secret key a workload's volume mounted at `mountPath` projects. */
function mountedSecretKey(deployment: Workload, mountPath: string): { secretName?: string; key?: string; path?: string } {
  const pod = deployment.spec.template.spec;
  const mount = pod.containers[0]?.volumeMounts?.find((candidate) => candidate.mountPath === mountPath);
  const volume = pod.volumes?.find((candidate) => candidate.name === mount?.name);
  const item = volume?.secret?.items?.[0];
  return { secretName: volume?.secret?.secretName, key: item?.key, path: item && `${mountPath}/${item.path}` };
}

function envOf(deployment: Workload): Record<string, string | undefined> {
  return Object.fromEntries((deployment.spec.template.spec.containers[0]?.env ?? []).map((entry) => [entry.name, entry.value]));
}

beforeAll(() => {
  if (kubectl(['get', 'namespace', releaseNamespace]).status !== 0) kubectlOk(['create', 'namespace', releaseNamespace]);
  for (const namespace of ['team-a', 'team-b']) {
    if (kubectl(['get', 'namespace', namespace]).status !== 0) kubectlOk(['create', 'namespace', namespace]);
  }
});

describe('charts/herald', () => {
  it('keeps the chart CRD identical to crds/ (single source of truth)', () => {
    const source = readFileSync(resolve(repoRoot, 'crds/webhooksubscribers.herald.dev.yaml'), 'utf8');
    const copy = readFileSync(resolve(chart, 'crds/webhooksubscribers.herald.dev.yaml'), 'utf8');
    expect(copy).toBe(source);
  });

  it.each([
    ['defaults', defaultArgs],
    ['the minimal example', ['-f', minimalValues]],
    ['the production example', ['-f', productionValues]],
  ])('passes helm lint --strict with %s', (_what, args) => {
    const result = helm(['lint', '--strict', chart, ...args]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it('renders the host, operator, RBAC and Secrets for the defaults', () => {
    expect(kinds(render(defaultArgs))).toEqual([
      'ClusterRole/herald-operator',
      'ClusterRoleBinding/herald-operator',
      'ConfigMap/herald-config',
      'Deployment/herald',
      'Deployment/herald-operator',
      'Lease/herald-operator',
      'PodDisruptionBudget/herald-server',
      'Role/herald-operator-leader-election',
      'RoleBinding/herald-operator-leader-election',
      'Secret/herald-secrets',
      'Service/herald',
      'Service/herald-operator-metrics',
      'ServiceAccount/herald-operator',
    ]);
  });

  it('renders workers, per-namespace Roles and no chart Secret for the production example', () => {
    const objects = render(['-f', productionValues]);
    const names = kinds(objects);
    expect(names).toContain('Deployment/herald-worker');
    expect(names).toContain('PodDisruptionBudget/herald-worker');
    expect(names.filter((name) => name.startsWith('ClusterRole'))).toEqual([]);
    const roles = objects.filter((object) => object.kind === 'Role' && object.metadata?.name === 'herald-operator');
    expect(roles.map((role) => role.metadata?.namespace).sort()).toEqual(['team-a', 'team-b']);
    expect(names.filter((name) => name.startsWith('Secret/'))).toEqual([]);
    const worker = workloads(objects).find((object) => object.metadata?.name === 'herald-worker');
    expect(worker?.spec.template.spec.containers[0]?.args).toEqual(['herald-server', 'start', '--engine-only']);
    const api = workloads(objects).find((object) => object.metadata?.name === 'herald');
    expect(api?.spec.template.spec.containers[0]?.args).toEqual(['herald-server', 'start', '--no-engine']);
  });

  it('derives the pods\' grace period from the drain timeout, which the host reads from the ConfigMap', () => {
    const objects = render([...defaultArgs, '--set', 'worker.enabled=true', '--set', 'config.drainTimeoutSeconds=30']);
    const hosts = workloads(objects).filter((object) => object.metadata?.name === 'herald' || object.metadata?.name === 'herald-worker');
    expect(hosts.map((object) => object.spec.template.spec.terminationGracePeriodSeconds)).toEqual([45, 45]);
    const config = objects.find((object) => object.kind === 'ConfigMap') as KubernetesObject & { data: Record<string, string> };
    expect(config.data.HERALD_DRAIN_TIMEOUT).toBe('30s');
    expect(helm(['template', release, chart, ...defaultArgs, '--set', 'config.drainTimeoutSeconds=0']).status).not.toBe(0);
  });

  it('gives the host and worker containers the V8 options of config.nodeOptions, and none when it is empty', () => {
    const objects = render([...defaultArgs, '--set', 'worker.enabled=true']);
    const hosts = workloads(objects).filter((object) => object.metadata?.name === 'herald' || object.metadata?.name === 'herald-worker');
    expect(hosts.map((object) => envOf(object).NODE_OPTIONS)).toEqual(['--max-semi-space-size=16', '--max-semi-space-size=16']);
    const cleared = render([...defaultArgs, '--set', 'worker.enabled=true', '--set', 'config.nodeOptions=']);
    const clearedHosts = workloads(cleared).filter((object) => object.metadata?.name === 'herald' || object.metadata?.name === 'herald-worker');
    expect(clearedHosts.map((object) => 'NODE_OPTIONS' in envOf(object))).toEqual([false, false]);
  });

  it('renders without the operator, and with ServiceMonitors when asked', () => {
    const withoutOperator = kinds(render([...defaultArgs, '--set', 'operator.enabled=false']));
    expect(withoutOperator.filter((name) => name.includes('operator'))).toEqual([]);
    expect(withoutOperator).toContain('Deployment/herald');
    const monitored = render([...defaultArgs, '--set', 'serviceMonitor.enabled=true', '--set', 'serviceMonitor.labels.release=prometheus']);
    const monitors = monitored.filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors.map((monitor) => monitor.metadata?.name).sort()).toEqual(['herald-operator', 'herald-server']);
    expect(monitors[0]?.metadata?.labels).toMatchObject({ release: 'prometheus' });
  });

  it('runs every pod under the restricted Pod Security Standard with probes', () => {
    for (const workload of workloads(render(['-f', productionValues]))) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext, workload.metadata?.name).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of pod.containers) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
        expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      }
    }
  });

  it('points the operator at the host Service and its Lease', () => {
    const operator = workloads(render(defaultArgs)).find((object) => object.metadata?.name === 'herald-operator');
    const env = Object.fromEntries((operator?.spec.template.spec.containers[0]?.env ?? []).map((entry) => [entry.name, entry.value]));
    expect(env).toMatchObject({
      HERALD_URL: `http://herald.${releaseNamespace}.svc:80`,
      HERALD_TOKEN_FILE: '/var/run/herald/token',
      HERALD_OPERATOR_LEASE_NAME: 'herald-operator',
    });
    expect(operator?.spec.replicas).toBe(2);
  });

  it.each([
    ['no MongoDB at all', [], 'anyOf'],
    ['zero host replicas', [...defaultArgs, '--set', 'server.replicas=0'], '/server/replicas'],
    ['an unknown service type', [...defaultArgs, '--set', 'service.type=Magic'], '/service/type'],
    ['a misspelt key', [...defaultArgs, '--set', 'operator.replica=3'], "additional properties 'replica' not allowed"],
    ['a malformed operator token', [...defaultArgs, '--set', 'operator.token.value=not-a-token'], '/operator/token/value'],
    ['a non-MongoDB URI', ['--set', 'mongodb.uri=postgres://db'], '/mongodb/uri'],
    ['an invalid watch namespace', [...defaultArgs, '--set', 'operator.watchNamespaces={Bad_NS}'], '/operator/watchNamespaces/0'],
  ])('rejects %s through values.schema.json', (_what, args, message) => {
    const result = helm(['template', release, chart, ...args]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("values don't meet the specifications of the schema");
    expect(result.stderr).toContain(message);
  });

  it.each([
    ['defaults', defaultArgs],
    ['the minimal example', ['-f', minimalValues]],
    ['the production example', ['-f', productionValues]],
  ])('is accepted by the apiserver (kubectl apply --dry-run=server) with %s', (_what, args) => {
    const result = kubectl(['apply', '--dry-run=server', '-f', '-'], { input: renderText(args) });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('deployment.apps/herald-operator created (server dry run)');
  });

  it('keeps a generated master key across upgrades (lookup of the live Secret)', () => {
    const secretOf = (text: string) =>
      (loadAllYaml(text) as (KubernetesObject & { data?: Record<string, string> } | null)[]).find((object) => object?.kind === 'Secret')?.data?.['master-key'];
    const first = renderText(defaultArgs);
    const key = secretOf(first);
    expect(Buffer.from(Buffer.from(key ?? '', 'base64').toString('utf8'), 'base64')).toHaveLength(32);
    expect(secretOf(renderText(defaultArgs))).not.toBe(key); // nothing live yet: a fresh one each render
    kubectlOk(['apply', '-n', releaseNamespace, '-f', '-'], { input: first });
    const upgraded = helm(['template', release, chart, '--namespace', releaseNamespace, '--dry-run=server', '--kubeconfig', adminKubeconfigPath(), ...defaultArgs]);
    expect(upgraded.stderr).toBe('');
    expect(secretOf(upgraded.stdout)).toBe(key);

    // The generated operator token likewise: fresh per render until a Secret is live, then kept,
    // and the seed file always carries the same value as the operator's key.
    const token = chartSecretData(render(defaultArgs))['operator-token'];
    expect(chartSecretData(render(defaultArgs))['operator-token']).not.toBe(token);
    const live = chartSecretData(parseObjects(first))['operator-token'];
    for (const text of [upgraded.stdout, helm(['template', release, chart, '--namespace', releaseNamespace, '--dry-run=server', '--kubeconfig', adminKubeconfigPath(), ...defaultArgs]).stdout]) {
      const data = chartSecretData(parseObjects(text));
      expect(data['operator-token']).toBe(live);
      expect((JSON.parse(data['seed-tokens.json'] ?? '[]') as SeedEntry[])[0]?.token).toBe(live);
    }
  });

  it('generates one operator token: the operator reads it, the host seeds it from the same Secret', () => {
    const objects = render(defaultArgs);
    const data = chartSecretData(objects);
    const token = data['operator-token'] ?? '';
    expect(token).toMatch(API_TOKEN_SHAPE);
    expect(JSON.parse(data['seed-tokens.json'] ?? '')).toEqual([{ name: 'herald-operator', token, scopes: ['dp:webhook_subscriber:manage'] }]);

    const host = workload(objects, 'herald');
    const seedFile = envOf(host).HERALD_SEED_TOKENS_FILE;
    expect(mountedSecretKey(host, '/var/run/herald-seed')).toEqual({ secretName: 'herald-secrets', key: 'seed-tokens.json', path: seedFile });
    expect(mountedSecretKey(workload(objects, 'herald-operator'), '/var/run/herald')).toEqual({
      secretName: 'herald-secrets', key: 'operator-token', path: '/var/run/herald/token',
    });

    // Workers (engine only) never seed; an explicit value is used as is and rolls the host when it changes.
    const explicit = `hrd_${randomBytes(32).toString('base64url')}`;
    const withValue = render([...defaultArgs, '--set', `operator.token.value=${explicit}`, '--set', 'worker.enabled=true']);
    expect(chartSecretData(withValue)['operator-token']).toBe(explicit);
    expect((JSON.parse(chartSecretData(withValue)['seed-tokens.json'] ?? '') as SeedEntry[])[0]?.token).toBe(explicit);
    expect(workload(withValue, 'herald').spec.template.metadata?.annotations?.['checksum/operator-token']).toMatch(/^[0-9a-f]{64}$/);
    expect(envOf(workload(withValue, 'herald-worker')).HERALD_SEED_TOKENS_FILE).toBeUndefined();

    // A token in the user's own Secret is theirs (issued by herald-server): read, not seeded.
    const production = render(['-f', productionValues]);
    expect(envOf(workload(production, 'herald')).HERALD_SEED_TOKENS_FILE).toBeUndefined();
    expect(mountedSecretKey(workload(production, 'herald-operator'), '/var/run/herald')).toMatchObject({ secretName: 'herald-operator-token', key: 'token' });
    expect(renderText([...defaultArgs, '--set', 'operator.enabled=false'])).not.toContain('seed-tokens');
  });

  it("the generated token passes herald-server's own checks: a host seeded with the rendered file accepts it", async () => {
    const data = chartSecretData(render(defaultArgs));
    const dir = mkdtempSync(join(tmpdir(), 'herald-chart-seed-'));
    const database = await openTestDatabase('chart-seed');
    try {
      const seedFile = join(dir, 'seed-tokens.json');
      writeFileSync(seedFile, data['seed-tokens.json'] ?? '', { mode: 0o600 });
      const config = loadConfig({
        env: { HERALD_SEED_TOKENS_FILE: seedFile },
        overrides: { mongodbUri: database.uri, mongodbDbName: database.dbName, host: '127.0.0.1', port: 0, dataDir: dir, logLevel: 'silent' },
      });
      const host = await startHost(config, { mode: 'api-only', logger: createLogger('silent') });
      try {
        const response = await fetch(`${host.url}/api/v1/me`, { headers: { authorization: `Bearer ${data['operator-token']}` } });
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ kind: 'api-token', name: 'herald-operator', scopes: ['dp:webhook_subscriber:manage'] });
      } finally {
        await host.close();
      }
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });


  it('prints NOTES without a manual token step unless the token comes from an existing Secret', () => {
    const notes = (args: string[]) => {
      // Its own release name: other tests applied "herald" objects without Helm's ownership labels.
      const result = helm(['install', 'notes', chart, '--namespace', releaseNamespace, '--dry-run=server', '--kubeconfig', adminKubeconfigPath(), ...args]);
      expect(result.stderr).toBe('');
      return result.stdout.slice(result.stdout.indexOf('NOTES:'));
    };
    const generated = notes(defaultArgs);
    expect(generated).not.toContain('token create');
    expect(generated).toContain('generated by the chart (kept across upgrades), in Secret notes-herald-secrets/operator-token');
    expect(generated).toContain('nothing to do');
    expect(generated).toContain('watching all namespaces');
    const existing = notes(['-f', productionValues]);
    expect(existing).toContain('from Secret herald-operator-token/token, which you manage');
    expect(existing).not.toContain('nothing to do');
    expect(existing).toContain('watching namespaces team-a, team-b');
  });

  it("grants the operator's ServiceAccount exactly what it needs (RBAC applied for real)", () => {
    kubectlOk(['apply', '-n', releaseNamespace, '-f', '-'], { input: renderText(defaultArgs) });
    const can = (verbAndResource: string[], namespace = 'default') =>
      kubectl(['auth', 'can-i', ...verbAndResource, '-n', namespace], { kubeconfig: operatorKubeconfigPath() }).stdout.trim();
    expect(can(['list', 'webhooksubscribers.herald.dev'])).toBe('yes');
    expect(can(['watch', 'webhooksubscribers.herald.dev'])).toBe('yes');
    expect(can(['patch', 'webhooksubscribers.herald.dev', '--subresource=status'])).toBe('yes');
    expect(can(['update', 'webhooksubscribers.herald.dev', '--subresource=finalizers'])).toBe('yes');
    expect(can(['get', 'secrets'])).toBe('yes');
    expect(can(['create', 'events'])).toBe('yes');
    expect(can(['get', 'leases.coordination.k8s.io/herald-operator'], releaseNamespace)).toBe('yes');
    expect(can(['update', 'leases.coordination.k8s.io/herald-operator'], releaseNamespace)).toBe('yes');

    expect(can(['delete', 'webhooksubscribers.herald.dev'])).toBe('no');
    expect(can(['create', 'webhooksubscribers.herald.dev'])).toBe('no');
    expect(can(['create', 'secrets'])).toBe('no');
    expect(can(['update', 'secrets'])).toBe('no');
    expect(can(['list', 'pods'])).toBe('no');
    expect(can(['get', 'configmaps'])).toBe('no');
    expect(can(['update', 'leases.coordination.k8s.io/some-other-lease'], releaseNamespace)).toBe('no');
    expect(can(['get', 'leases.coordination.k8s.io/herald-operator'], 'default')).toBe('no');
    // The chart creates the Lease; create cannot be limited to one name, so it is not granted.
    expect(can(['create', 'leases.coordination.k8s.io'], releaseNamespace)).toBe('no');
    expect(can(['delete', 'leases.coordination.k8s.io/herald-operator'], releaseNamespace)).toBe('no');
  });

  it('lets the operator write its own Lease and no other (requests made for real)', () => {
    const asOperator = (args: string[], input?: string) => kubectl([...args, '-n', releaseNamespace], { kubeconfig: operatorKubeconfigPath(), input });
    const lease = (name: string) => JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: releaseNamespace }, spec: {} });
    kubectlOk(['apply', '-n', releaseNamespace, '-f', '-'], { input: renderText(defaultArgs) });
    kubectlOk(['apply', '-f', '-'], { input: lease('some-other-lease') });

    expect(asOperator(['get', 'lease', 'herald-operator']).status).toBe(0);
    const ownPatch = asOperator(['patch', 'lease', 'herald-operator', '--type=merge', '-p', '{}']);
    expect(ownPatch.stderr).toBe('');
    expect(ownPatch.status).toBe(0);
    for (const [what, result] of [
      ['get another Lease', asOperator(['get', 'lease', 'some-other-lease'])],
      ['patch another Lease', asOperator(['patch', 'lease', 'some-other-lease', '--type=merge', '-p', '{"spec":{"holderIdentity":"operator"}}'])],
      ['create a Lease', asOperator(['create', '-f', '-'], lease('operator-made'))],
      ['delete its own Lease', asOperator(['delete', 'lease', 'herald-operator'])],
    ] as const) {
      expect(result.status, what).not.toBe(0);
      expect(result.stderr, what).toMatch(/forbidden/i);
    }
    expect(kubectl(['get', 'lease', 'operator-made', '-n', releaseNamespace]).status).not.toBe(0);
    expect(kubectlOk(['get', 'lease', 'herald-operator', '-n', releaseNamespace, '-o', 'name']).trim()).toBe('lease.coordination.k8s.io/herald-operator');
  });

  it('makes the Lease part of the release: an upgrade keeps its holder or restores it, uninstall deletes it (real helm)', () => {
    // Its own release and namespace: the tests above applied "herald" objects without Helm's metadata.
    const namespace = createTestNamespace('lease');
    const leaseName = 'lease-herald-operator';
    const helmOk = (args: string[]) => {
      const result = helm([...args, '--namespace', namespace, '--kubeconfig', adminKubeconfigPath()]);
      expect(result.status, result.stderr).toBe(0);
    };
    const upgrade = () => helmOk(['upgrade', 'lease', chart, '--reuse-values', '--set', 'config.drainTimeoutSeconds=12']);
    const live = () => JSON.parse(kubectlOk(['get', 'lease', leaseName, '-n', namespace, '-o', 'json'])) as {
      metadata: { labels?: Record<string, string> };
      spec: Record<string, unknown>;
    };

    helmOk(['install', 'lease', chart, ...defaultArgs]);
    expect(live().metadata.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'lease' });
    expect(live().spec).toEqual({});

    // What a leader writes; then a label removed by hand, so the upgrade has to patch this Lease.
    const now = new Date().toISOString().replace('Z', '000Z');
    const held = { holderIdentity: 'operator-pod-a', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 3 };
    kubectlOk(['patch', 'lease', leaseName, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: held })]);
    kubectlOk(['label', 'lease', leaseName, '-n', namespace, 'app.kubernetes.io/part-of-']);
    upgrade();
    // Helm 3's three-way merge patched what the chart sets and left the holder alone.
    expect(live().metadata.labels?.['app.kubernetes.io/part-of']).toBe('herald');
    expect(live().spec).toEqual(held);

    // Deleted by hand (the operator cannot create it): the next upgrade creates it again, unheld.
    kubectlOk(['delete', 'lease', leaseName, '-n', namespace]);
    upgrade();
    expect(live().spec).toEqual({});

    helmOk(['uninstall', 'lease']);
    const gone = kubectl(['get', 'lease', leaseName, '-n', namespace]);
    expect(gone.status).not.toBe(0);
    expect(gone.stderr).toContain('NotFound');
  });
});
