// ResilientInformer against the real apiserver: a failed list is retried with backoff, and the
// watch keeps delivering events after the apiserver ends it (the test apiserver ends watches after
// 10-20 s, see --min-request-timeout in test/support/kube-apiserver.ts).
import { CoreV1Api, Watch, type KubernetesListObject, type V1ConfigMap } from '@kubernetes/client-node';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, kubectlOk, loadKubeConfig, waitFor } from '../../../../test/support/kube.js';
import { ResilientInformer } from '../../src/kube/informers.js';

let namespace: string;
let informer: ResilientInformer<V1ConfigMap>;
const seen: string[] = [];
const logLines: string[] = [];
let listCalls = 0;

beforeAll(async () => {
  namespace = createTestNamespace('informer');
  kubectlOk(['create', 'configmap', 'before-start', '-n', namespace, '--from-literal=a=1']);
  const kubeConfig = loadKubeConfig();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const list = async (): Promise<KubernetesListObject<V1ConfigMap>> => {
    listCalls += 1;
    if (listCalls === 1) throw new Error('simulated list failure');
    return core.listNamespacedConfigMap({ namespace });
  };
  const logger = pino({ level: 'warn' }, new Writable({ write(chunk: Buffer, _encoding, done) { logLines.push(chunk.toString('utf8')); done(); } }));
  informer = new ResilientInformer(`configmaps@${namespace}`, new Watch(kubeConfig), `/api/v1/namespaces/${namespace}/configmaps`, list, {
    onUpsert: (object) => seen.push(`upsert ${object.metadata?.name}`),
    onDelete: (object) => seen.push(`delete ${object.metadata?.name}`),
  }, logger);
  await informer.start();
});

afterAll(() => informer?.stop());

describe('ResilientInformer', () => {
  it('is not synced after a failed list, then restarts with backoff and syncs', async () => {
    expect(logLines.join('')).toContain('watch failed; restarting');
    await waitFor('informer to sync after the retry', () => informer.synced, 10_000);
    expect(listCalls).toBe(2);
    expect(informer.get('before-start', namespace)?.data).toEqual({ a: '1' });
    expect(seen).toContain('upsert before-start');
  });

  it('keeps watching across watch timeouts', async () => {
    kubectlOk(['create', 'configmap', 'early', '-n', namespace]);
    await waitFor('early event', () => seen.includes('upsert early'));
    // Longer than the apiserver's maximum watch duration (2 × 10 s): the watch was re-established.
    await new Promise((resolve) => setTimeout(resolve, 21_000));
    kubectlOk(['create', 'configmap', 'late', '-n', namespace]);
    kubectlOk(['delete', 'configmap', 'early', '-n', namespace]);
    await waitFor('late events', () => seen.includes('upsert late') && seen.includes('delete early'));
    expect(informer.list(namespace).map((object) => object.metadata?.name).sort()).toEqual(['before-start', 'late']);
    expect(listCalls).toBe(2); // resumed from its resourceVersion: no relist needed
  }, 60_000);
});
