import { describe, expect, it } from 'vitest';
import type { Subscriber } from '../../src/herald/types.js';
import { defaultDisplayName, desiredSubscriber } from '../../src/reconcile/desired.js';
import { diffSubscriber, planSync } from '../../src/reconcile/plan.js';
import type { WebhookSubscriberResource } from '../../src/crd/types.js';

const resource: WebhookSubscriberResource = {
  apiVersion: 'herald.dev/v1alpha1',
  kind: 'WebhookSubscriber',
  metadata: { namespace: 'shop', name: 'orders', generation: 3 },
  spec: { targetUrl: 'https://example.com/hook', events: ['order.*'], timeoutMs: 2000 },
};
const desired = desiredSubscriber(resource);
const ours = 'tok_operator';

function actual(overrides: Partial<Subscriber> = {}): Subscriber {
  return { id: 'shop.orders', displayName: 'shop/orders', targetUrl: 'https://example.com/hook', enabled: true, events: ['order.*'], timeoutMs: 2000, hasSecret: false, createdBy: ours, ...overrides };
}

describe('desiredSubscriber', () => {
  it('fills defaults from namespace and name', () => {
    expect(desired).toEqual({
      id: 'shop.orders', displayName: 'shop/orders', targetUrl: 'https://example.com/hook', events: ['order.*'], enabled: true, timeoutMs: 2000,
      maxConcurrency: null, rateLimitPerSecond: null, egressProxy: null, filter: null, ordering: 'none',
    });
  });

  it('sends every event as ["*"] when events are omitted or empty: Herald refuses an empty list', () => {
    for (const events of [undefined, []]) {
      const spec = { targetUrl: 'https://example.com/hook', ...(events === undefined ? {} : { events }) };
      expect(desiredSubscriber({ ...resource, spec }).events).toEqual(['*']);
    }
  });
});

describe('defaultDisplayName', () => {
  it('stays within the 255 characters Herald accepts', () => {
    expect(defaultDisplayName('ns', 'name')).toBe('ns/name');
    const long = defaultDisplayName('namespace', 'x'.repeat(253));
    expect(long).toHaveLength(255);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('planSync', () => {
  const base = { desired, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 3, autoDisabled: undefined } as const;

  it('leaves a subscriber Herald auto-disabled alone while the spec is the one it was disabled under; a later spec change enables it', () => {
    const disabledReason = { code: 'AUTO_DISABLED' as const, message: 'every delivery has failed since …', at: '2026-01-06T00:00:00.000Z' };
    const disabled = actual({ enabled: false, disabledReason, displayName: 'renamed by hand' });
    // Not yet reported, or reported at this generation: other drift is corrected, `enabled` is not.
    for (const autoDisabled of [undefined, { at: disabledReason.at, message: disabledReason.message, observedGeneration: 3 }]) {
      expect(planSync({ ...base, autoDisabled, secret: { kind: 'none' }, actual: disabled })).toEqual({ action: 'update', patch: { displayName: 'shop/orders' }, changedFields: ['displayName'] });
    }
    // The spec changed after the operator reported it: the owner decided; enable it again.
    const reported = { at: disabledReason.at, message: disabledReason.message, observedGeneration: 2 };
    expect(planSync({ ...base, autoDisabled: reported, secret: { kind: 'none' }, actual: disabled })).toMatchObject({ action: 'update', patch: { enabled: true } });
    // A new auto-disable (another `at`) is not the one a spec change answered.
    expect(planSync({ ...base, autoDisabled: { ...reported, at: '2025-12-01T00:00:00.000Z' }, secret: { kind: 'none' }, actual: actual({ enabled: false, disabledReason }) })).toEqual({ action: 'none' });
    // Disabled by hand (no reason): the spec wins, as before.
    expect(planSync({ ...base, secret: { kind: 'none' }, actual: actual({ enabled: false }) })).toMatchObject({ action: 'update', patch: { enabled: true } });
  });

  it('creates a missing subscriber with its secret', () => {
    const plan = planSync({ ...base, secret: { kind: 'found', value: 's'.repeat(20), version: 'u/1' }, actual: undefined });
    const { maxConcurrency: _unsetConcurrency, rateLimitPerSecond: _unsetRate, egressProxy: _unsetProxy, filter: _unsetFilter, ordering: _unsetOrdering, ...fields } = desired;
    expect(plan).toEqual({ action: 'create', request: { ...fields, secret: 's'.repeat(20) } });
  });

  it('does nothing when Herald matches (event order does not matter)', () => {
    const plan = planSync({ ...base, desired: { ...desired, events: ['b.x', 'a.*'] }, secret: { kind: 'none' }, actual: actual({ events: ['a.*', 'b.x'] }) });
    expect(plan).toEqual({ action: 'none' });
  });

  it('takes a subscriber stored with events [] (every event, as Herald once spelled it) as matching ["*"]', () => {
    expect(planSync({ ...base, desired: { ...desired, events: ['*'] }, secret: { kind: 'none' }, actual: actual({ events: [] }) })).toEqual({ action: 'none' });
    expect(planSync({ ...base, desired: { ...desired, events: ['a.*'] }, secret: { kind: 'none' }, actual: actual({ events: [] }) })).toMatchObject({ action: 'update', patch: { events: ['a.*'] } });
  });

  it('updates only the fields that drifted', () => {
    const plan = planSync({ ...base, secret: { kind: 'none' }, actual: actual({ targetUrl: 'https://evil.example/', enabled: false }) });
    expect(plan).toEqual({ action: 'update', patch: { targetUrl: 'https://example.com/hook', enabled: true }, changedFields: ['targetUrl', 'enabled'] });
  });

  it('pushes the secret again when the Secret changed or Herald lost it, not otherwise', () => {
    const secret = { kind: 'found', value: 'n'.repeat(20), version: 'u/2' } as const;
    expect(planSync({ ...base, secret, pushedSecretVersion: 'u/1', actual: actual({ hasSecret: true }) })).toMatchObject({ action: 'update', patch: { secret: 'n'.repeat(20) } });
    expect(planSync({ ...base, secret, pushedSecretVersion: 'u/2', actual: actual({ hasSecret: false }) })).toMatchObject({ action: 'update', changedFields: ['secret'] });
    expect(planSync({ ...base, secret, pushedSecretVersion: 'u/2', actual: actual({ hasSecret: true }) })).toEqual({ action: 'none' });
  });

  it('removes a secret set through the API when the CR has no secretRef', () => {
    expect(planSync({ ...base, secret: { kind: 'none' }, actual: actual({ hasSecret: true }) })).toEqual({ action: 'update', patch: { secret: '' }, changedFields: ['secret'] });
  });

  it('refuses to touch a subscriber created by someone else unless adopted', () => {
    expect(planSync({ ...base, secret: { kind: 'none' }, actual: actual({ createdBy: 'tok_human', targetUrl: 'https://other/' }) })).toEqual({ action: 'conflict', createdBy: 'tok_human' });
    expect(planSync({ ...base, adoptForeign: true, secret: { kind: 'none' }, actual: actual({ createdBy: 'tok_human', targetUrl: 'https://other/' }) })).toMatchObject({ action: 'update' });
  });
});

describe('diffSubscriber', () => {
  it('is empty for an identical subscriber', () => {
    expect(diffSubscriber(desired, actual())).toEqual({});
  });

  it('sets, changes and clears the egress proxy; a new subscriber gets it only when set', () => {
    const viaEu = { ...desired, egressProxy: 'eu' };
    expect(diffSubscriber(viaEu, actual())).toEqual({ egressProxy: 'eu' });
    expect(diffSubscriber(viaEu, actual({ egressProxy: 'eu' }))).toEqual({});
    expect(diffSubscriber({ ...desired, egressProxy: 'none' }, actual({ egressProxy: 'eu' }))).toEqual({ egressProxy: 'none' });
    expect(diffSubscriber(desired, actual({ egressProxy: 'eu' }))).toEqual({ egressProxy: null });
    const base = { operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 1, autoDisabled: undefined, secret: { kind: 'none' }, actual: undefined } as const;
    expect(planSync({ ...base, desired: viaEu })).toMatchObject({ action: 'create', request: { egressProxy: 'eu' } });
    expect(planSync({ ...base, desired })).not.toHaveProperty('request.egressProxy');
  });

  it('turns per-key ordering on and off; a new subscriber gets it; an unset spec matches Herald\'s absent field', () => {
    const ordered = { ...desired, ordering: 'aggregate' as const };
    expect(diffSubscriber(ordered, actual())).toEqual({ ordering: 'aggregate' });
    expect(diffSubscriber(ordered, actual({ ordering: 'aggregate' }))).toEqual({});
    expect(diffSubscriber(desired, actual({ ordering: 'aggregate' }))).toEqual({ ordering: 'none' });
    expect(diffSubscriber(desired, actual())).toEqual({});
    expect(planSync({ desired: ordered, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 1, autoDisabled: undefined, secret: { kind: 'none' }, actual: undefined })).toMatchObject({ action: 'create', request: { ordering: 'aggregate' } });
  });

  it('sets, changes and removes the payload filter, ignoring key order; a new subscriber gets it', () => {
    const filter = { 'data.amount': { $gte: 100, $lt: 500 }, type: 'order.created' };
    const filtered = { ...desired, filter };
    expect(diffSubscriber(filtered, actual())).toEqual({ filter });
    expect(diffSubscriber(filtered, actual({ filter: { type: 'order.created', 'data.amount': { $lt: 500, $gte: 100 } } }))).toEqual({});
    expect(diffSubscriber(filtered, actual({ filter: { 'data.amount': { $gte: 100 } } }))).toEqual({ filter });
    expect(diffSubscriber(desired, actual({ filter }))).toEqual({ filter: null });
    expect(planSync({ desired: filtered, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 1, autoDisabled: undefined, secret: { kind: 'none' }, actual: undefined })).toMatchObject({ action: 'create', request: { filter } });
  });

  it('sets, changes and clears the per-subscriber limits; a new subscriber gets only the ones set', () => {
    const limited = { ...desired, maxConcurrency: 2, rateLimitPerSecond: 0.5 };
    expect(diffSubscriber(limited, actual())).toEqual({ maxConcurrency: 2, rateLimitPerSecond: 0.5 });
    expect(diffSubscriber(limited, actual({ maxConcurrency: 2, rateLimitPerSecond: 0.5 }))).toEqual({});
    expect(diffSubscriber(desired, actual({ maxConcurrency: 2 }))).toEqual({ maxConcurrency: null });
    const base = { desired, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 1, autoDisabled: undefined } as const;
    expect(planSync({ ...base, desired: { ...desired, rateLimitPerSecond: 3 }, secret: { kind: 'none' }, actual: undefined })).toMatchObject({
      action: 'create',
      request: { rateLimitPerSecond: 3 },
    });
    expect(planSync({ ...base, secret: { kind: 'none' }, actual: undefined })).not.toHaveProperty('request.maxConcurrency');
  });

  it('treats a URL Herald stored in its parsed spelling as unchanged, and a different one as changed', () => {
    const spelled = { ...desired, targetUrl: 'HTTPS://Example.com:443' };
    expect(diffSubscriber(spelled, actual({ targetUrl: 'https://example.com/' }))).toEqual({});
    expect(diffSubscriber(spelled, actual({ targetUrl: 'https://example.org/' }))).toEqual({ targetUrl: 'HTTPS://Example.com:443' });
  });
});

describe('planSync with a TLS Secret', () => {
  const tls = { kind: 'found' as const, tls: { clientCertificate: 'CERT', clientKey: 'KEY' }, version: 'uid/1' };
  const base = { desired, secret: { kind: 'none' as const }, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 3, autoDisabled: undefined };
  const shown = { subject: 'CN=a', issuer: 'CN=ca', fingerprint256: 'AA', notBefore: '2025-01-01T00:00:00.000Z', notAfter: '2026-01-01T00:00:00.000Z', caCertificates: 0 };

  it('creates with the certificate and key', () => {
    expect(planSync({ ...base, actual: undefined, tls })).toMatchObject({ action: 'create', request: { tls: tls.tls } });
  });

  it('pushes it again only when the Secret changed (Herald never returns the key), and removes it without a reference', () => {
    expect(planSync({ ...base, actual: actual({ tls: shown }), tls, pushedTlsSecretVersion: 'uid/1' })).toEqual({ action: 'none' });
    expect(planSync({ ...base, actual: actual({ tls: shown }), tls, pushedTlsSecretVersion: 'uid/0' })).toEqual({ action: 'update', patch: { tls: tls.tls }, changedFields: ['tls'] });
    expect(planSync({ ...base, actual: actual(), tls, pushedTlsSecretVersion: 'uid/1' })).toMatchObject({ action: 'update', patch: { tls: tls.tls } });
    expect(planSync({ ...base, actual: actual({ tls: shown }), tls: { kind: 'none' } })).toEqual({ action: 'update', patch: { tls: null }, changedFields: ['tls'] });
  });
});

describe('planSync with OAuth2 credentials', () => {
  const credentials = { tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecret: 'client-secret-value', scope: 'hooks' };
  const oauth2 = { kind: 'found' as const, oauth2: credentials, version: 'uid/1' };
  const base = { desired, secret: { kind: 'none' as const }, operatorPrincipal: ours, pushedSecretVersion: undefined, adoptForeign: false, generation: 3, autoDisabled: undefined };
  const shown = { tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecretSet: true, scope: 'hooks', clientAuthentication: 'basic' as const };

  it('creates with the credentials, the client secret included', () => {
    expect(planSync({ ...base, actual: undefined, oauth2 })).toMatchObject({ action: 'create', request: { oauth2: credentials } });
  });

  it('pushes them again when the Secret changed or a field differs from what Herald shows, and removes them without spec.oauth2', () => {
    expect(planSync({ ...base, actual: actual({ oauth2: shown }), oauth2, pushedOAuth2SecretVersion: 'uid/1' })).toEqual({ action: 'none' });
    expect(planSync({ ...base, actual: actual({ oauth2: shown }), oauth2, pushedOAuth2SecretVersion: 'uid/0' })).toEqual({ action: 'update', patch: { oauth2: credentials }, changedFields: ['oauth2'] });
    expect(planSync({ ...base, actual: actual({ oauth2: { ...shown, scope: 'other' } }), oauth2, pushedOAuth2SecretVersion: 'uid/1' })).toMatchObject({ action: 'update', patch: { oauth2: credentials } });
    expect(planSync({ ...base, actual: actual({ oauth2: { ...shown, clientAuthentication: 'body' } }), oauth2, pushedOAuth2SecretVersion: 'uid/1' })).toMatchObject({ action: 'update' });
    expect(planSync({ ...base, actual: actual(), oauth2, pushedOAuth2SecretVersion: 'uid/1' })).toMatchObject({ action: 'update', patch: { oauth2: credentials } });
    expect(planSync({ ...base, actual: actual({ oauth2: shown }), oauth2: { kind: 'none' } })).toEqual({ action: 'update', patch: { oauth2: null }, changedFields: ['oauth2'] });
    expect(planSync({ ...base, actual: actual(), oauth2: { kind: 'none' } })).toEqual({ action: 'none' });
  });
});
