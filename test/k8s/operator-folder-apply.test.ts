// `kubectl apply -f <folder>` of 50 WebhookSubscribers, as a user would: the operator creates the 50
// subscribers in Herald within moments of each other, which is how concurrent creates used to lose
// subscribers from the matching index (issue 33; fixed in core by matching on the subscribers' own
// documents). One matching event must then reach all 50: 50 signed deliveries on a real loopback
// sink, one per subscriber path, and 50 rows in the event's detail.
import { verify } from '@herald/receiver';
import type { RunningOperator } from '@herald/operator';
import { startLocalOperator } from '../support/local-operator.js';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeraldForTests, startSink, type HeraldForTests } from '../support/kube-herald-host.js';
import { createTestNamespace, installChartOperatorRbac, kubectl, kubectlOk, loadKubeConfig, waitFor } from '../support/kube.js';

const COUNT = 50;

interface Condition { type: string; status: string; reason: string; message: string }
interface ListedResource { metadata: { name: string }; status?: { handle?: string; conditions?: Condition[] } }
interface PublishedEvent { eventId: string; deliveries: { subscriberId: string }[] }
interface EventDetail { eventId: string; status: string; deliveries: { subscriberId: string; targetUrl: string | null; status: string; attempts: number }[] }

let namespace: string;
let herald: HeraldForTests;
let sink: Awaited<ReturnType<typeof startSink>>;
let operator: RunningOperator;
let folder: string;
const operatorLogs: string[] = [];
/** name → its own secret value, so a signature that verifies proves the delivery used that subscriber's secret. */
const secrets = new Map<string, string>();
const names = Array.from({ length: COUNT }, (_, index) => `folder-${String(index).padStart(2, '0')}`);
const handleOf = (name: string) => `${namespace}.${name}`;

/** One file per subscriber, Secret first: the folder a user keeps in a repository and applies whole. */
function writeManifests(): void {
  for (const name of names) {
    const secret = `${name}-secret-${randomBytes(12).toString('hex')}`;
    secrets.set(name, secret);
    writeFileSync(join(folder, `${name}.yaml`), [
      'apiVersion: v1',
      'kind: Secret',
      `metadata: { name: ${name}-secret, namespace: ${namespace} }`,
      `stringData: { secret: ${secret} }`,
      '---',
      'apiVersion: herald.dev/v1alpha1',
      'kind: WebhookSubscriber',
      `metadata: { name: ${name}, namespace: ${namespace} }`,
      'spec:',
      `  targetUrl: ${sink.url}/${name}`,
      '  events: ["order.*"]',
      `  secretRef: { name: ${name}-secret }`,
      '',
    ].join('\n'));
  }
}

async function readyNames(): Promise<string[]> {
  const list = (await loadKubeConfig().makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: 'herald.dev', version: 'v1alpha1', plural: 'webhooksubscribers', namespace,
  })) as { items: ListedResource[] };
  return list.items
    .filter((item) => item.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True' && condition.reason === 'Synced'))
    .map((item) => item.metadata.name);
}

beforeAll(async () => {
  installChartOperatorRbac();
  namespace = createTestNamespace('folder');
  folder = mkdtempSync(join(tmpdir(), 'herald-folder-apply-'));
  herald = await startHeraldForTests();
  sink = await startSink();
  const { token } = await herald.createToken('herald-operator', ['dp:webhook_subscriber:manage']);
  // The chart's defaults (workers, rate limit, resync) except what a local process needs: no
  // periodic re-sync is shortened here, so the figures below are the first sync's alone.
  operator = await startLocalOperator({ heraldUrl: herald.url, token, namespace, identity: 'folder-apply-operator', logLevel: 'info', logs: operatorLogs });
  writeManifests();
}, 120_000);

afterAll(async () => {
  // Kept for diagnosis of a failed run.
  writeFileSync(join(tmpdir(), 'herald-operator-folder-apply.log'), operatorLogs.join(''));
  // Namespaces outlive the run's files (no controller-manager), and the leader election test's
  // operators watch every namespace: delete the 50 while this operator can still finalize them, so
  // later files do not sync them again. Best effort: a slow cleanup is not this test's failure.
  if (operator && folder) {
    kubectl(['delete', '-f', folder, '--wait=false']);
    await waitFor('the folder\'s resources finalized', () => kubectl(['get', 'webhooksubscribers', '-n', namespace, '-o', 'name']).stdout.trim() === '', 30_000, 200)
      .catch((error: unknown) => console.warn(String(error)));
  }
  await operator?.stop();
  await sink?.close();
  await herald?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe(`kubectl apply -f of a folder of ${COUNT} WebhookSubscribers`, () => {
  it(`makes all ${COUNT} Ready, and one event reaches every one of them`, async () => {
    const appliedAt = performance.now();
    const output = kubectlOk(['apply', '-f', folder]);
    const applyDoneAt = performance.now();
    expect(output.match(/^webhooksubscriber\.herald\.dev\/\S+ created$/gm)).toHaveLength(COUNT);
    expect(output.match(/^secret\/\S+ created$/gm)).toHaveLength(COUNT);

    // Polled every 100 ms: the figure is the operator's time to the 50th Ready status, measured from
    // the start of the apply (which itself creates 100 objects one request at a time).
    await waitFor(`all ${COUNT} Ready`, async () => ((await readyNames()).length === COUNT ? true : undefined), 60_000);
    const readyAt = performance.now();
    expect((await readyNames()).sort()).toEqual(names);

    const published = await herald.request('POST', '/api/v0.9/webhook-events', herald.adminToken, { eventType: 'order.created', aggregateType: 'order', aggregateId: 'folder-1', data: { amount: 7 } });
    const publishedAt = performance.now();
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const event = published.body as PublishedEvent;
    // The fan-out is decided at publish: a subscriber the match missed has no row here.
    expect(event.deliveries.map((row) => row.subscriberId).sort()).toEqual(names.map(handleOf));

    await waitFor(`${COUNT} deliveries on the sink`, () => sink.deliveries.length >= COUNT, 30_000, 10);
    const lastDeliveryAt = performance.now();

    // The detail, once every row has settled (the row's status is written after the sink answers).
    const detail = await waitFor('every row DELIVERED', async () => {
      const response = await herald.request('GET', `/api/v0.9/webhook-events/${event.eventId}`, herald.adminToken);
      const body = response.body as EventDetail;
      return response.status === 200 && body.status === 'ALL_DELIVERED' ? body : undefined;
    }, 30_000);
    expect(detail.deliveries).toHaveLength(COUNT);
    expect(detail.deliveries.map((row) => row.subscriberId).sort()).toEqual(names.map(handleOf));
    for (const row of detail.deliveries) {
      const name = row.subscriberId.slice(namespace.length + 1);
      expect(row).toMatchObject({ status: 'DELIVERED', targetUrl: `${sink.url}/${name}`, attempts: 1 });
    }

    // Exactly one delivery per subscriber path (no subscriber missed, none sent twice), each signed
    // with that subscriber's own secret and carrying the published event.
    expect(sink.deliveries.map((delivery) => delivery.path).sort()).toEqual(names.map((name) => `/${name}`));
    for (const delivery of sink.deliveries) {
      const name = delivery.path.slice(1);
      const verified = verify(delivery.headers as Record<string, string>, delivery.body, secrets.get(name) ?? '');
      expect(verified.eventId).toBe(event.eventId);
      expect(verified.payload).toMatchObject({ type: 'order.created', id: event.eventId, aggregateId: 'folder-1' });
      for (const [other, secret] of secrets) {
        if (other !== name) expect(() => verify(delivery.headers as Record<string, string>, delivery.body, secret)).toThrow();
      }
    }

    console.log([
      `${COUNT} WebhookSubscribers (folder apply):`,
      `  kubectl apply -f (${COUNT * 2} objects): ${(applyDoneAt - appliedAt).toFixed(0)} ms`,
      `  apply start → all ${COUNT} Ready: ${(readyAt - appliedAt).toFixed(0)} ms (after the apply returned: ${(readyAt - applyDoneAt).toFixed(0)} ms)`,
      `  publish answered → ${COUNT}th delivery on the sink: ${(lastDeliveryAt - publishedAt).toFixed(0)} ms`,
    ].join('\n'));
  }, 110_000);
});
