// charts/herald: lint, render, validate against the real apiserver, schema, RBAC least privilege.
import { loadAllYaml, type KubernetesObject } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { operatorServiceAccount } from '../support/kube-apiserver.js';
import { adminKubeconfigPath, helm, kubectl, kubectlOk, operatorKubeconfigPath } from '../support/kube.js';

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
}
interface Workload extends KubernetesObject {
  spec: { replicas: number; template: { spec: { securityContext?: Record<string, unknown>; containers: Container[] } } };
}

function render(args: string[], namespace = releaseNamespace): KubernetesObject[] {
  const result = helm(['template', release, chart, '--namespace', namespace, ...args]);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return (loadAllYaml(result.stdout) as (KubernetesObject | null)[]).filter((object): object is KubernetesObject => object !== null);
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
  });

  it('prints NOTES that tell how to give the operator its token, unless one is configured', () => {
    const notes = (args: string[]) => {
      // Its own release name: other tests applied "herald" objects without Helm's ownership labels.
      const result = helm(['install', 'notes', chart, '--namespace', releaseNamespace, '--dry-run=server', '--kubeconfig', adminKubeconfigPath(), ...args]);
      expect(result.stderr).toBe('');
      return result.stdout.slice(result.stdout.indexOf('NOTES:'));
    };
    const withoutToken = notes(defaultArgs);
    expect(withoutToken).toContain('herald-server token create --name herald-operator --scopes dp:webhook_subscriber:manage');
    expect(withoutToken).toContain('create secret generic notes-herald-operator-token');
    expect(withoutToken).toContain('watching all namespaces');
    const withToken = notes(['-f', productionValues]);
    expect(withToken).not.toContain('token create');
    expect(withToken).toContain('watching namespaces team-a, team-b');
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
  });
});
