// The reconcile shell with in-memory fakes for Herald and the Kubernetes writes: which calls it
// makes, what status and Events it records, and that failures are raised for the queue's backoff.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FINALIZER, type WebhookSubscriberResource, type WebhookSubscriberStatusPatch } from '../../src/crd/types.js';
import { HeraldApiError, HeraldUnreachableError } from '../../src/herald/errors.js';
import type { Subscriber, SubscriberRequest } from '../../src/herald/types.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import { Metrics } from '../../src/metrics.js';
import { ReconcileFailure, Reconciler } from '../../src/reconcile/reconciler.js';

const OPERATOR = 'tok_operator';

function fakeHerald(initial: Subscriber[] = []) {
  const store = new Map(initial.map((subscriber) => [subscriber.id, subscriber]));
  const calls: string[] = [];
  let down = false;
  const guard = () => {
    if (down) throw new HeraldUnreachableError('Herald at http://h is unreachable: connect ECONNREFUSED');
  };
  return {
    store,
    calls,
    setDown(value: boolean) {
      down = value;
    },
    client: {
      async getSubscriber(id: string) {
        guard();
        calls.push(`GET ${id}`);
        const found = store.get(id);
        if (!found) throw new HeraldApiError(404, 'ORG_NOT_FOUND', 'not found');
        return found;
      },
      async createSubscriber(request: SubscriberRequest) {
        guard();
        calls.push(`POST ${request.id}`);
        if (store.has(request.id ?? '')) throw new HeraldApiError(409, 'CONFLICT', 'id taken');
        const created: Subscriber = {
          id: request.id ?? '', displayName: request.displayName ?? '', targetUrl: request.targetUrl ?? '', events: request.events ?? [],
          enabled: request.enabled ?? true, timeoutMs: request.timeoutMs ?? 5000, hasSecret: Boolean(request.secret), createdBy: OPERATOR,
        };
        store.set(created.id, created);
        return created;
      },
      async updateSubscriber(id: string, patch: SubscriberRequest) {
        guard();
        calls.push(`PUT ${id} ${Object.keys(patch).join(',')}`);
        const current = store.get(id) as Subscriber;
        const { secret, maxConcurrency, rateLimitPerSecond, egressProxy, filter, ordering, tls, oauth2, ...fields } = patch;
        const updated: Subscriber = { ...current, ...fields, hasSecret: secret === undefined ? current.hasSecret : secret !== '' };
        if (ordering === 'none') delete updated.ordering;
        else if (ordering !== undefined) updated.ordering = ordering;
        // The operator does not manage client certificates yet; what reads show of one is not modelled here.
        if (tls === null) delete updated.tls;
        if (oauth2 === null) delete updated.oauth2;
        else if (oauth2 !== undefined) {
          const { clientSecret: _sealed, ...shown } = oauth2;
          updated.oauth2 = { ...shown, clientSecretSet: true, clientAuthentication: oauth2.clientAuthentication ?? 'basic' };
        }
        if (egressProxy === null) delete updated.egressProxy;
        else if (egressProxy !== undefined) updated.egressProxy = egressProxy;
        if (filter === null) delete updated.filter;
        else if (filter !== undefined) updated.filter = filter;
        // null returns a limit to Herald's default: the field disappears, as Herald answers.
        for (const [name, value] of Object.entries({ maxConcurrency, rateLimitPerSecond })) {
          if (value === null) delete updated[name as 'maxConcurrency'];
          else if (value !== undefined) updated[name as 'maxConcurrency'] = value;
        }
        store.set(id, updated);
        return updated;
      },
      async deleteSubscriber(id: string) {
        guard();
        calls.push(`DELETE ${id}`);
        store.delete(id);
      },
    },
  };
}

function fakeKube() {
  const statuses: WebhookSubscriberStatusPatch[] = [];
  const events: { type: string; reason: string; message: string }[] = [];
  const finalizerWrites: string[][] = [];
  const gateway: KubeGateway = {
    async setFinalizers(resource, finalizers) {
      finalizerWrites.push(finalizers);
      return { ...resource, metadata: { ...resource.metadata, finalizers } };
    },
    async patchStatus(_resource, status) {
      statuses.push(status);
    },
    async recordEvent(_resource, type, reason, message) {
      events.push({ type, reason, message });
    },
  };
  return { gateway, statuses, events, finalizerWrites };
}

function resource(overrides: Partial<WebhookSubscriberResource['metadata']> = {}, spec: Partial<WebhookSubscriberResource['spec']> = {}): WebhookSubscriberResource {
  return {
    apiVersion: 'herald.dev/v1alpha1',
    kind: 'WebhookSubscriber',
    metadata: { namespace: 'ns', name: 'hook', generation: 1, uid: 'u1', ...overrides },
    spec: { targetUrl: 'https://example.com/', enabled: true, timeoutMs: 5000, ...spec },
  };
}

function reconcilerFor(current: WebhookSubscriberResource, herald: ReturnType<typeof fakeHerald>, kube: ReturnType<typeof fakeKube>) {
  return new Reconciler({
    lookupResource: () => current,
    lookupSecret: () => undefined,
    herald: herald.client,
    operatorPrincipal: async () => OPERATOR,
    kube: kube.gateway,
    metrics: new Metrics(),
    logger: pino({ level: 'silent' }),
    now: () => new Date('2026-01-01T00:00:00.000Z'),
  });
}

describe('Reconciler', () => {
  it('adds the finalizer, creates the subscriber, writes Ready status and a Synced event', async () => {
    const herald = fakeHerald();
    const kube = fakeKube();
    await reconcilerFor(resource(), herald, kube).reconcile('ns', 'hook');
    expect(kube.finalizerWrites).toEqual([[FINALIZER]]);
    expect(herald.calls).toEqual(['POST ns.hook']); // never synced: no read first
    expect(kube.statuses).toHaveLength(1);
    expect(kube.statuses[0]).toMatchObject({ observedGeneration: 1, handle: 'ns.hook', hasSecret: false, secretVersion: null, lastSyncedAt: '2026-01-01T00:00:00.000Z' });
    expect(kube.events).toEqual([{ type: 'Normal', reason: 'Synced', message: 'Created subscriber "ns.hook" in Herald' }]);
  });

  it('writes nothing when Herald and the status already match', async () => {
    const herald = fakeHerald([{ id: 'ns.hook', displayName: 'ns/hook', targetUrl: 'https://example.com/', events: [], enabled: true, timeoutMs: 5000, hasSecret: false, createdBy: OPERATOR }]);
    const first = fakeKube();
    const synced = resource({ finalizers: [FINALIZER] });
    await reconcilerFor(synced, herald, first).reconcile('ns', 'hook');
    // Never synced (no status): the create meets CONFLICT, the read shows it is ours, nothing to change.
    expect(herald.calls).toEqual(['POST ns.hook', 'GET ns.hook']);
    herald.calls.length = 0;
    const withStatus = { ...synced, status: { ...first.statuses[0], secretVersion: undefined } } as WebhookSubscriberResource;
    const second = fakeKube();
    await reconcilerFor(withStatus, herald, second).reconcile('ns', 'hook');
    expect(second.statuses).toEqual([]);
    expect(second.events).toEqual([]);
    expect(herald.calls.filter((call) => !call.startsWith('GET'))).toEqual([]);
  });

  it('records SecretNotFound once, and raises so the queue backs off', async () => {
    const herald = fakeHerald();
    const kube = fakeKube();
    const missing = resource({ finalizers: [FINALIZER] }, { secretRef: { name: 'nope', key: 'secret' } });
    await expect(reconcilerFor(missing, herald, kube).reconcile('ns', 'hook')).rejects.toBeInstanceOf(ReconcileFailure);
    expect(herald.calls).toEqual([]);
    expect(kube.events).toEqual([{ type: 'Warning', reason: 'SyncFailed', message: 'Secret ns/nope not found' }]);
    const again = { ...missing, status: { ...kube.statuses[0], secretVersion: undefined } } as WebhookSubscriberResource;
    const kubeAgain = fakeKube();
    await expect(reconcilerFor(again, herald, kubeAgain).reconcile('ns', 'hook')).rejects.toThrow('SecretNotFound');
    expect(kubeAgain.events).toEqual([]); // same failure: no new Event, no new status write
    expect(kubeAgain.statuses).toEqual([]);
  });

  it('maps a Herald 400 to Invalid with the field details', async () => {
    const herald = fakeHerald();
    herald.client.createSubscriber = async () => {
      throw new HeraldApiError(400, 'MISSING_REQUIRED_PARAMETER', 'invalid subscriber', [{ field: 'targetUrl', message: 'refused' }]);
    };
    const kube = fakeKube();
    await expect(reconcilerFor(resource({ finalizers: [FINALIZER] }), herald, kube).reconcile('ns', 'hook')).rejects.toThrow('Invalid');
    expect(kube.statuses[0]?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'Invalid', message: 'Herald rejected the subscriber: invalid subscriber (targetUrl: refused)' });
  });

  it('on deletion deletes its own subscriber, then removes the finalizer', async () => {
    const herald = fakeHerald([{ id: 'ns.hook', displayName: 'x', targetUrl: 'https://x/', events: [], enabled: true, timeoutMs: 5000, hasSecret: false, createdBy: OPERATOR }]);
    const kube = fakeKube();
    await reconcilerFor(resource({ finalizers: ['other/keep', FINALIZER], deletionTimestamp: new Date() }), herald, kube).reconcile('ns', 'hook');
    expect(herald.calls).toEqual(['GET ns.hook', 'DELETE ns.hook']);
    expect(kube.finalizerWrites).toEqual([['other/keep']]);
  });

  it("on deletion leaves someone else's subscriber alone but still lets the CR go", async () => {
    const herald = fakeHerald([{ id: 'ns.hook', displayName: 'x', targetUrl: 'https://x/', events: [], enabled: true, timeoutMs: 5000, hasSecret: false, createdBy: 'tok_human' }]);
    const kube = fakeKube();
    await reconcilerFor(resource({ finalizers: [FINALIZER], deletionTimestamp: new Date() }), herald, kube).reconcile('ns', 'hook');
    expect(herald.calls).toEqual(['GET ns.hook']);
    expect(kube.finalizerWrites).toEqual([[]]);
  });

  it('keeps the finalizer while Herald is down during deletion', async () => {
    const herald = fakeHerald();
    herald.setDown(true);
    const kube = fakeKube();
    await expect(reconcilerFor(resource({ finalizers: [FINALIZER], deletionTimestamp: new Date() }), herald, kube).reconcile('ns', 'hook')).rejects.toBeInstanceOf(ReconcileFailure);
    expect(kube.finalizerWrites).toEqual([]);
    expect(kube.events[0]).toMatchObject({ type: 'Warning', reason: 'SyncFailed' });
  });

  it('reports an auto-disable in status and a Warning event once, without enabling it again, until the spec changes', async () => {
    const disabledReason = { code: 'AUTO_DISABLED' as const, message: 'every delivery has failed since 2026-01-01T00:00:00.000Z, longer than the auto-disable limit of 5d', at: '2026-01-06T00:00:00.000Z' };
    const herald = fakeHerald([{ id: 'ns.hook', displayName: 'ns/hook', targetUrl: 'https://example.com/', events: ['*'], enabled: false, disabledReason, timeoutMs: 5000, hasSecret: false, createdBy: OPERATOR }]);
    const kube = fakeKube();
    const synced = resource({ finalizers: [FINALIZER] }, { events: ['*'] });
    const withHandle = { ...synced, status: { handle: 'ns.hook' } } as WebhookSubscriberResource;
    await reconcilerFor(withHandle, herald, kube).reconcile('ns', 'hook');
    expect(herald.calls).toEqual(['GET ns.hook']);
    expect(kube.statuses[0]?.autoDisabled).toEqual({ at: disabledReason.at, message: disabledReason.message, observedGeneration: 1 });
    expect(kube.statuses[0]?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'AutoDisabled', message: expect.stringContaining(disabledReason.message) });
    expect(kube.statuses[0]?.conditions?.[1]).toMatchObject({ type: 'Synced', status: 'True' });
    expect(kube.events).toEqual([{ type: 'Warning', reason: 'AutoDisabled', message: `Herald auto-disabled subscriber "ns.hook": ${disabledReason.message}` }]);

    // The next resync of the same spec: nothing written anywhere.
    const reported = { ...withHandle, status: { ...kube.statuses[0], secretVersion: undefined } } as WebhookSubscriberResource;
    const again = fakeKube();
    await reconcilerFor(reported, herald, again).reconcile('ns', 'hook');
    expect(herald.calls.filter((call) => !call.startsWith('GET'))).toEqual([]);
    expect([again.statuses, again.events]).toEqual([[], []]);

    // The owner changes the spec: the operator enables it, and the report goes.
    const changed = { ...reported, metadata: { ...reported.metadata, generation: 2 } } as WebhookSubscriberResource;
    const after = fakeKube();
    await reconcilerFor(changed, herald, after).reconcile('ns', 'hook');
    expect(herald.calls.at(-1)).toBe('PUT ns.hook enabled');
    herald.store.set('ns.hook', { ...herald.store.get('ns.hook')!, disabledReason: undefined });
    expect(after.statuses[0]).toMatchObject({ autoDisabled: null });
  });
});
