// The operator end to end: real kube-apiserver, real Herald host, the operator running with only the
// chart's RBAC. Each step builds on the previous one (one CR's life), so the tests run in order.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { verify } from '@herald/receiver';
import type { RunningOperator } from '@herald/operator';
import { certificateFactory } from '../support/certificates.js';
import { startLocalOperator } from '../support/local-operator.js';
import { startTokenServer } from '../support/token-server.js';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeraldForTests, startSink, type HeraldForTests, type RecordedDelivery } from '../support/kube-herald-host.js';
import { createTestNamespace, installChartOperatorRbac, kubectl, kubectlOk, loadKubeConfig, waitFor } from '../support/kube.js';

interface Condition { type: string; status: string; reason: string; message: string; observedGeneration?: number }
interface StoredResource {
  metadata: { generation: number; finalizers?: string[]; resourceVersion: string };
  status?: { observedGeneration?: number; handle?: string; hasSecret?: boolean; lastSyncedAt?: string; conditions?: Condition[] };
}
interface ApiSubscriber { id: string; targetUrl: string; events: string[]; enabled: boolean; timeoutMs: number; hasSecret: boolean; createdBy: string; displayName: string }

const firstSecret = 'first-secret-value-0123456789';
const rotatedSecret = 'rotated-secret-value-9876543210';

let namespace: string;
let herald: HeraldForTests;
let sink: Awaited<ReturnType<typeof startSink>>;
let operator: RunningOperator;
let operatorPrincipal: string;
const operatorLogs: string[] = [];
const customObjects = () => loadKubeConfig().makeApiClient(CustomObjectsApi);

function applyYaml(objects: object[]): void {
  kubectlOk(['apply', '-f', '-'], { input: objects.map((object) => JSON.stringify(object)).join('\n---\n') });
}

function secretManifest(name: string, value: string): object {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData: { secret: value } };
}

function subscriberManifest(name: string, spec: Record<string, unknown>): object {
  return { apiVersion: 'herald.dev/v1alpha1', kind: 'WebhookSubscriber', metadata: { name, namespace }, spec };
}

async function readResource(name: string): Promise<StoredResource | undefined> {
  try {
    return (await customObjects().getNamespacedCustomObject({ group: 'herald.dev', version: 'v1alpha1', plural: 'webhooksubscribers', namespace, name })) as StoredResource;
  } catch {
    return undefined;
  }
}

function condition(resource: StoredResource | undefined, type: string): Condition | undefined {
  return resource?.status?.conditions?.find((candidate) => candidate.type === type);
}

async function waitForCondition(name: string, type: string, status: string, reason: string, generation?: number): Promise<StoredResource> {
  return waitFor(`${name} ${type}=${status}/${reason}`, async () => {
    const resource = await readResource(name);
    const found = condition(resource, type);
    const generationOk = generation === undefined || resource?.status?.observedGeneration === generation;
    return found?.status === status && found.reason === reason && generationOk ? resource : undefined;
  }, 30_000);
}

async function getSubscriber(id: string): Promise<ApiSubscriber | undefined> {
  const response = await herald.request('GET', `/api/v0.9/webhook-subscribers/${id}`, herald.adminToken);
  return response.status === 200 ? (response.body as ApiSubscriber) : undefined;
}

async function publish(eventType: string): Promise<void> {
  const response = await herald.request('POST', '/api/v0.9/webhook-events', herald.adminToken, { eventType, aggregateType: 'order', aggregateId: 'o-1', data: { amount: 42 } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

/** The delivery of `eventType` to `path` on the sink, after publishing it (other subscribers share the sink). */
async function deliveryOf(eventType: string, path: string): Promise<RecordedDelivery> {
  const before = sink.deliveries.length;
  await publish(eventType);
  return waitFor(`a ${eventType} delivery to ${path}`, () => sink.deliveries.slice(before).find((entry) => entry.path === path && entry.body.includes(eventType)), 20_000);
}

async function eventsFor(reason: string): Promise<{ reason?: string; message?: string; type?: string }[]> {
  const core = loadKubeConfig().makeApiClient(CoreV1Api);
  const list = await core.listNamespacedEvent({ namespace });
  return list.items.filter((event) => event.reason === reason);
}

beforeAll(async () => {
  installChartOperatorRbac();
  namespace = createTestNamespace('e2e');
  herald = await startHeraldForTests();
  sink = await startSink();
  const { token, principal } = await herald.createToken('herald-operator', ['dp:webhook_subscriber:manage']);
  operatorPrincipal = principal;
  operator = await startLocalOperator({ heraldUrl: herald.url, token, namespace, identity: 'e2e-operator', logLevel: 'debug', logs: operatorLogs, env: { HERALD_OPERATOR_RESYNC_SECONDS: '2' } });
}, 120_000);

afterAll(async () => {
  // Kept for diagnosis of a failed run (the test below asserts no secret is in them).
  writeFileSync(join(tmpdir(), 'herald-operator-e2e.log'), operatorLogs.join(''));
  await operator?.stop();
  await sink?.close();
  await herald?.close();
});

describe('operator end to end', () => {
  const handle = () => `${namespace}.orders`;

  it('creates the subscriber in Herald with the Secret, and reports Ready', async () => {
    applyYaml([
      secretManifest('orders-secret', firstSecret),
      subscriberManifest('orders', { targetUrl: `${sink.url}/v1`, events: ['order.*'], secretRef: { name: 'orders-secret' } }),
    ]);
    const subscriber = await waitFor('subscriber in Herald', () => getSubscriber(handle()));
    expect(subscriber).toMatchObject({ id: handle(), displayName: `${namespace}/orders`, targetUrl: `${sink.url}/v1`, events: ['order.*'], enabled: true, timeoutMs: 5000, hasSecret: true, createdBy: operatorPrincipal });

    const resource = await waitForCondition('orders', 'Ready', 'True', 'Synced', 1);
    expect(resource.metadata.finalizers).toEqual(['herald.dev/subscriber-cleanup']);
    expect(resource.status).toMatchObject({ observedGeneration: 1, handle: handle(), hasSecret: true });
    expect(condition(resource, 'Synced')).toMatchObject({ status: 'True', observedGeneration: 1 });
    expect(resource.status?.lastSyncedAt).toBeTruthy();
    const synced = await waitFor('Synced event', async () => ((await eventsFor('Synced')).length > 0 ? eventsFor('Synced') : undefined));
    expect(synced[0]?.message).toContain(`Created subscriber "${handle()}"`);
  });

  it('stores exactly the value of the Secret, and deliveries are signed with it', async () => {
    expect(await herald.storedSecret(handle())).toBe(firstSecret);
    const delivery = await deliveryOf('order.created', '/v1');
    const headers = delivery.headers as Record<string, string>;
    expect(() => verify(headers, delivery.body, firstSecret)).not.toThrow();
    expect(() => verify(headers, delivery.body, 'not-the-secret-0123456789')).toThrow();
  });

  it('syncs a CR with the longest possible name under a shortened, stable handle', async () => {
    const name = ['a', 'b', 'c'].map((letter) => letter.repeat(63)).join('.') + '.' + 'd'.repeat(61);
    expect(name).toHaveLength(253);
    applyYaml([subscriberManifest(name, { targetUrl: `${sink.url}/long` })]);
    const ready = await waitForCondition(name, 'Ready', 'True', 'Synced', 1);
    const longHandle = ready.status?.handle ?? '';
    expect(longHandle).toHaveLength(128);
    expect(longHandle.startsWith(`${namespace}.aaa`)).toBe(true);
    expect(await getSubscriber(longHandle)).toMatchObject({ targetUrl: `${sink.url}/long`, createdBy: operatorPrincipal });
  });

  it('applies a spec edit and bumps observedGeneration', async () => {
    applyYaml([subscriberManifest('orders', { targetUrl: `${sink.url}/v2`, events: ['order.*', 'invoice.paid'], timeoutMs: 2500, secretRef: { name: 'orders-secret' } })]);
    await waitFor('updated subscriber', async () => ((await getSubscriber(handle()))?.targetUrl === `${sink.url}/v2` ? true : undefined));
    expect(await getSubscriber(handle())).toMatchObject({ events: expect.arrayContaining(['order.*', 'invoice.paid']), timeoutMs: 2500 });
    await waitForCondition('orders', 'Ready', 'True', 'Synced', 2);
  });

  it('rotates the secret when the Secret changes', async () => {
    applyYaml([secretManifest('orders-secret', rotatedSecret)]);
    await waitFor('a Synced event for the secret', async () => {
      const events = await eventsFor('Synced');
      return events.some((event) => event.message?.includes('(secret)')) ? true : undefined;
    });
    expect(await herald.storedSecret(handle())).toBe(rotatedSecret);
    expect(await getSubscriber(handle())).toMatchObject({ hasSecret: true });
    const delivery = await deliveryOf('order.updated', '/v2');
    expect(() => verify(delivery.headers as Record<string, string>, delivery.body, rotatedSecret)).not.toThrow();
  });

  it('puts back a change made to the subscriber through the API (drift correction)', async () => {
    const drifted = await herald.request('PUT', `/api/v0.9/webhook-subscribers/${handle()}`, herald.adminToken, { targetUrl: 'https://drifted.example.com/', enabled: false });
    expect(drifted.status).toBe(200);
    await waitFor('drift corrected', async () => {
      const subscriber = await getSubscriber(handle());
      return subscriber?.targetUrl === `${sink.url}/v2` && subscriber.enabled ? true : undefined;
    }, 15_000);
  });

  it('reports SecretNotFound and recovers once the Secret appears', async () => {
    applyYaml([subscriberManifest('late-secret', { targetUrl: `${sink.url}/late`, secretRef: { name: 'late-secret', key: 'hmac' } })]);
    const failing = await waitForCondition('late-secret', 'Ready', 'False', 'SecretNotFound', 1);
    expect(condition(failing, 'Synced')?.message).toBe(`Secret ${namespace}/late-secret not found`);
    expect(await getSubscriber(`${namespace}.late-secret`)).toBeUndefined();
    const warnings = await eventsFor('SyncFailed');
    expect(warnings.some((event) => event.type === 'Warning' && event.message?.includes('late-secret not found'))).toBe(true);

    applyYaml([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'late-secret', namespace }, stringData: { hmac: 'late-secret-value-abcdefgh' } }]);
    await waitForCondition('late-secret', 'Ready', 'True', 'Synced', 1);
    expect(await getSubscriber(`${namespace}.late-secret`)).toMatchObject({ hasSecret: true });
  });

  it('pushes the client certificate of a kubernetes.io/tls Secret, again when it is renewed, and removes it with the reference', async () => {
    const certs = certificateFactory();
    try {
      const ca = certs.authority('e2e client CA');
      const first = certs.leaf('e2e-client-1', ca);
      const renewed = certs.leaf('e2e-client-2', ca);
      const tlsSecret = (pem: { cert: string; key: string }) => ({
        apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'mtls-client', namespace },
        stringData: { 'tls.crt': pem.cert, 'tls.key': pem.key, 'ca.crt': ca.cert },
      });
      const tlsOf = async (id: string) => ((await getSubscriber(id)) as (ApiSubscriber & { tls?: { subject: string; caCertificates: number } }) | undefined)?.tls;
      const id = `${namespace}.mtls`;
      applyYaml([tlsSecret(first), subscriberManifest('mtls', { targetUrl: 'https://example.com/mtls', tlsSecretRef: { name: 'mtls-client' } })]);
      expect(await waitFor('client certificate in Herald', () => tlsOf(id))).toEqual(expect.objectContaining({ subject: 'CN=e2e-client-1', caCertificates: 1 }));
      await waitForCondition('mtls', 'Ready', 'True', 'Synced', 1);

      applyYaml([tlsSecret(renewed)]);
      await waitFor('renewed certificate in Herald', async () => ((await tlsOf(id))?.subject === 'CN=e2e-client-2' ? true : undefined));

      applyYaml([subscriberManifest('mtls', { targetUrl: 'https://example.com/mtls' })]);
      await waitFor('certificate removed', async () => ((await getSubscriber(id)) && (await tlsOf(id)) === undefined ? true : undefined));
      expect(operatorLogs.join('')).not.toContain('PRIVATE KEY');
    } finally {
      certs.dispose();
    }
  });

  it('pushes OAuth2 credentials with the client secret from a Secret: deliveries carry the token, a changed Secret is used for the next token, removal removes them', async () => {
    const tokens = await startTokenServer();
    try {
      const oauth2Secret = (value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'oauth2-client', namespace }, stringData: { clientSecret: `${value}\n` } });
      const oauth2Of = async (id: string) => ((await getSubscriber(id)) as (ApiSubscriber & { oauth2?: { clientId: string; clientSecretSet: boolean } }) | undefined)?.oauth2;
      const id = `${namespace}.oauth2`;
      const spec = { targetUrl: `${sink.url}/oauth2`, events: ['invoice.*'], oauth2: { tokenUrl: tokens.url, clientId: 'e2e-client', clientSecretRef: { name: 'oauth2-client' }, scope: 'hooks' } };
      applyYaml([oauth2Secret('first-client-secret'), subscriberManifest('oauth2', spec)]);
      expect(await waitFor('OAuth2 credentials in Herald', () => oauth2Of(id))).toEqual(expect.objectContaining({ clientId: 'e2e-client', clientSecretSet: true }));
      await waitForCondition('oauth2', 'Ready', 'True', 'Synced', 1);
      const first = await deliveryOf('invoice.paid', '/oauth2');
      expect(first.headers.authorization).toBe(`Bearer ${tokens.issued.at(-1)}`);
      expect(tokens.grants.at(-1)).toMatchObject({ basic: { clientId: 'e2e-client', clientSecret: 'first-client-secret' }, form: { scope: 'hooks' } });

      const pushedVersion = (await readResource('oauth2'))?.status as { oauth2SecretVersion?: string } | undefined;
      applyYaml([oauth2Secret('rotated-client-secret')]);
      await waitFor('the changed Secret pushed', async () => (((await readResource('oauth2'))?.status as { oauth2SecretVersion?: string } | undefined)?.oauth2SecretVersion !== pushedVersion?.oauth2SecretVersion ? true : undefined));
      const second = await deliveryOf('invoice.refunded', '/oauth2');
      expect(tokens.grants.at(-1)?.basic).toEqual({ clientId: 'e2e-client', clientSecret: 'rotated-client-secret' });
      expect(second.headers.authorization).toBe(`Bearer ${tokens.issued.at(-1)}`);

      const { oauth2: _removed, ...withoutOAuth2 } = spec;
      applyYaml([subscriberManifest('oauth2', withoutOAuth2)]);
      await waitFor('credentials removed', async () => ((await getSubscriber(id)) && (await oauth2Of(id)) === undefined ? true : undefined));
      const joined = operatorLogs.join('');
      expect(joined).not.toContain('first-client-secret');
      expect(joined).not.toContain('rotated-client-secret');
    } finally {
      await tokens.close();
    }
  });

  it('never overwrites a subscriber created by someone else (Conflict)', async () => {
    const human = await herald.createToken('a-human', ['dp:webhook_subscriber:manage']);
    const created = await herald.request('POST', '/api/v0.9/webhook-subscribers', human.token, { id: `${namespace}.foreign`, displayName: 'Hand-made', targetUrl: 'https://hand.example.com/' });
    expect(created.status).toBe(201);
    applyYaml([subscriberManifest('foreign', { targetUrl: `${sink.url}/foreign` })]);
    const conflicted = await waitForCondition('foreign', 'Ready', 'False', 'Conflict', 1);
    expect(condition(conflicted, 'Synced')?.message).toContain(`created by "${human.principal}"`);
    expect(await getSubscriber(`${namespace}.foreign`)).toMatchObject({ displayName: 'Hand-made', targetUrl: 'https://hand.example.com/', createdBy: human.principal });

    // Deleting the CR must not delete the foreign subscriber either.
    kubectlOk(['delete', 'webhooksubscriber', 'foreign', '-n', namespace, '--wait=false']);
    await waitFor('foreign CR gone', async () => ((await readResource('foreign')) ? undefined : true));
    expect(await getSubscriber(`${namespace}.foreign`)).toMatchObject({ createdBy: human.principal });
  });

  it('reports HostUnreachable while Herald is down, backs off, and recovers', async () => {
    await herald.stop();
    applyYaml([subscriberManifest('while-down', { targetUrl: `${sink.url}/down` })]);
    const down = await waitForCondition('while-down', 'Synced', 'False', 'HostUnreachable', 1);
    expect(condition(down, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'HostUnreachable' });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const metrics = await (await fetch(`http://127.0.0.1:${operator.port}/metrics`)).text();
    expect(metrics).toMatch(/herald_operator_retrying_keys [1-9]/);
    await herald.start();
    await waitForCondition('while-down', 'Ready', 'True', 'Synced', 1);
    expect(await getSubscriber(`${namespace}.while-down`)).toMatchObject({ targetUrl: `${sink.url}/down` });
  });

  it('deletes the subscriber in Herald before the CR goes (finalizer)', async () => {
    kubectlOk(['delete', 'webhooksubscriber', 'orders', '-n', namespace, '--wait=false']);
    await waitFor('CR gone', async () => ((await readResource('orders')) ? undefined : true));
    expect(await getSubscriber(handle())).toBeUndefined();
    expect(kubectl(['get', 'webhooksubscriber', 'orders', '-n', namespace]).status).not.toBe(0);
  });

  it('serves health, readiness and metrics; no secret in logs, Events or status', async () => {
    const base = `http://127.0.0.1:${operator.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/herald_operator_reconcile_total\{result="success"\} \d+/);
    expect(metrics).toContain('herald_operator_leader 1');
    const logs = operatorLogs.join('');
    const events = JSON.stringify(await loadKubeConfig().makeApiClient(CoreV1Api).listNamespacedEvent({ namespace }));
    const statuses = kubectlOk(['get', 'webhooksubscribers', '-n', namespace, '-o', 'json']);
    for (const secret of [firstSecret, rotatedSecret, 'late-secret-value-abcdefgh']) {
      expect(logs).not.toContain(secret);
      expect(events).not.toContain(secret);
      expect(statuses).not.toContain(secret);
    }
  });
});
