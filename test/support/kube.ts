// Helpers for tests against the run's kube-apiserver (see kube-global-setup.ts).
import { KubeConfig } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { kubeToolBinary } from './kube-apiserver.js';

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function adminKubeconfigPath(): string {
  return inject('kubeconfig');
}

export function operatorKubeconfigPath(): string {
  return inject('operatorKubeconfig');
}

export function loadKubeConfig(path = adminKubeconfigPath()): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
}

function run(binary: string, args: string[], input?: string): CommandResult {
  const result = spawnSync(binary, args, { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** kubectl as cluster-admin, or with `kubeconfig` (e.g. the operator's impersonating one). */
export function kubectl(args: string[], options: { input?: string; kubeconfig?: string } = {}): CommandResult {
  return run(kubeToolBinary('kubectl'), ['--kubeconfig', options.kubeconfig ?? adminKubeconfigPath(), ...args], options.input);
}

export function kubectlOk(args: string[], options: { input?: string; kubeconfig?: string } = {}): string {
  const result = kubectl(args, options);
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

export function helm(args: string[]): CommandResult {
  return run(kubeToolBinary('helm'), args);
}

/** A fresh namespace per test file: namespaces are never really deleted here (no controller-manager). */
export function createTestNamespace(prefix: string): string {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  kubectlOk(['create', 'namespace', name]);
  return name;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError instanceof Error ? ` (last error: ${lastError.message})` : ''}`);
}

/**
 * Applies the chart's operator RBAC (ServiceAccount, ClusterRole, bindings, Lease Role) and its
 * Lease as rendered by `helm template` with default values into herald-system: the operator under
 * test then runs with the operator kubeconfig, which impersonates that ServiceAccount, so it has
 * only what the chart grants (which does not include creating the Lease). Re-applying keeps a live
 * Lease's holder, as `helm upgrade` does: the rendered spec sets none.
 */
export function installChartOperatorRbac(): void {
  const namespace = 'herald-system';
  if (kubectl(['get', 'namespace', namespace]).status !== 0) kubectlOk(['create', 'namespace', namespace]);
  const rendered = helm(['template', 'herald', `${import.meta.dirname}/../../charts/herald`, '--namespace', namespace, '--set', 'mongodb.uri=mongodb://unused:27017']);
  if (rendered.status !== 0) throw new Error(`helm template failed: ${rendered.stderr}`);
  const operatorKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Lease']);
  const documents = rendered.stdout.split(/^---$/m).filter((document) => {
    const kind = /^kind: (\S+)$/m.exec(document)?.[1];
    return kind !== undefined && operatorKinds.has(kind);
  });
  kubectlOk(['apply', '-f', '-'], { input: documents.join('\n---\n') });
}
