// Vitest global setup of the `k8s` project: one kube-apiserver (+ kine) for the whole run, with the
// WebhookSubscriber CRD installed and established. Test files share it and isolate themselves by
// namespace (namespaces are never really deleted here: no controller-manager).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { kubeToolBinary, startKubeApiserver } from './kube-apiserver.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    operatorKubeconfig: string;
  }
}

const crdPath = resolve(import.meta.dirname, '../../crds/webhooksubscribers.herald.dev.yaml');

function kubectl(kubeconfig: string, args: string[]): void {
  const result = spawnSync(kubeToolBinary('kubectl'), ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const apiserver = await startKubeApiserver();
  try {
    kubectl(apiserver.kubeconfigPath, ['apply', '--server-side', '-f', crdPath]);
    kubectl(apiserver.kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/webhooksubscribers.herald.dev']);
  } catch (error) {
    await apiserver.stop();
    throw error;
  }
  project.provide('kubeconfig', apiserver.kubeconfigPath);
  project.provide('operatorKubeconfig', apiserver.operatorKubeconfigPath);
  return () => apiserver.stop();
}
