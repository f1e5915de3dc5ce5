// The CRD's OpenAPI schema and CEL rules, enforced by a real kube-apiserver.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, kubectl, kubectlOk } from '../support/kube.js';

let namespace: string;

function manifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'herald.dev/v1alpha1', kind: 'WebhookSubscriber', metadata: { name, namespace }, spec });
}

function apply(name: string, spec: Record<string, unknown>) {
  return kubectl(['apply', '-f', '-'], { input: manifest(name, spec) });
}

beforeAll(() => {
  namespace = createTestNamespace('crd');
});

describe('WebhookSubscriber CRD', () => {
  it('accepts a minimal subscriber and applies the defaults', () => {
    expect(apply('minimal', { targetUrl: 'https://example.com/hook', secretRef: { name: 'hook-secret' } }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'minimal', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec).toEqual({ targetUrl: 'https://example.com/hook', enabled: true, timeoutMs: 5000, secretRef: { name: 'hook-secret', key: 'secret' } });
  });

  it('takes a tlsSecretRef naming a kubernetes.io/tls Secret', () => {
    expect(apply('mtls', { targetUrl: 'https://example.com/hook', tlsSecretRef: { name: 'hook-tls' } }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'mtls', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec.tlsSecretRef).toEqual({ name: 'hook-tls' });
  });

  it('takes oauth2 credentials, defaulting the client secret key', () => {
    expect(apply('oauth2', { targetUrl: 'https://example.com/hook', oauth2: { tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecretRef: { name: 'hook-oauth2' }, scope: 'hooks' } }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'oauth2', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec.oauth2).toEqual({ tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecretRef: { name: 'hook-oauth2', key: 'clientSecret' }, scope: 'hooks' });
  });

  it('keeps a payload filter as written, operators and dotted paths included', () => {
    const filter = { 'data.amount': { $gte: 100 }, $or: [{ 'data.currency': 'EUR' }, { aggregateId: { $startsWith: 'vip_' } }] };
    expect(apply('filtered', { targetUrl: 'https://example.com/hook', filter }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'filtered', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec.filter).toEqual(filter);
  });

  it('takes an egress proxy name or none, and refuses a URL or a bad name', () => {
    expect(apply('proxied', { targetUrl: 'https://example.com/hook', egressProxy: 'eu-west' }).status).toBe(0);
    expect(apply('direct', { targetUrl: 'https://example.com/hook', egressProxy: 'none' }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'proxied', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec.egressProxy).toBe('eu-west');
    for (const [name, egressProxy] of [['proxy-url', 'http://user:pw@proxy:3128'], ['proxy-upper', 'EU'], ['proxy-long', 'a'.repeat(64)]] as const) {
      const refused = apply(name, { targetUrl: 'https://example.com/hook', egressProxy });
      expect(refused.status, name).not.toBe(0);
      expect(refused.stderr).toContain('egressProxy');
    }
  });

  it('takes ordering aggregate or none and refuses anything else', () => {
    expect(apply('ordered', { targetUrl: 'https://example.com/hook', ordering: 'aggregate' }).status).toBe(0);
    const stored = JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'ordered', '-n', namespace, '-o', 'json'])) as { spec: Record<string, unknown> };
    expect(stored.spec.ordering).toBe('aggregate');
    const refused = apply('fifo', { targetUrl: 'https://example.com/hook', ordering: 'fifo' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('ordering');
  });

  it('accepts every documented event pattern form', () => {
    const result = apply('patterns', { targetUrl: 'http://sink.local:8080/x', events: ['apikey.generated', 'subscription.*', '*.deleted', '*'] });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.each([
    ['a non-http scheme', { targetUrl: 'ftp://example.com/x' }, 'targetUrl must be an absolute http:// or https:// URL'],
    ['a relative URL', { targetUrl: '/just/a/path' }, 'targetUrl must be an absolute http:// or https:// URL'],
    ['user info in the URL', { targetUrl: 'https://user:pw@example.com/x' }, 'targetUrl must not contain user info'],
    ['an upper-case event', { targetUrl: 'https://e.com/', events: ['Order.created'] }, "event pattern must be '<family>.<action>'"],
    ['a three-part event', { targetUrl: 'https://e.com/', events: ['a.b.c'] }, "event pattern must be '<family>.<action>'"],
    ['a double wildcard', { targetUrl: 'https://e.com/', events: ['*.*'] }, "event pattern must be '<family>.<action>'"],
    ['a timeout below 100 ms', { targetUrl: 'https://e.com/', timeoutMs: 50 }, 'should be greater than or equal to 100'],
    ['a timeout above 30 s', { targetUrl: 'https://e.com/', timeoutMs: 30_001 }, 'should be less than or equal to 30000'],
    ['an invalid handle', { targetUrl: 'https://e.com/', handle: '-starts-with-dash' }, 'spec.handle'],
    ['an inline secret', { targetUrl: 'https://e.com/', secret: 'inline-secrets-are-not-allowed' }, 'unknown field "spec.secret"'],
    ['a missing targetUrl', { events: ['a.b'] }, 'spec.targetUrl: Required value'],
    ['a secretRef without a name', { targetUrl: 'https://e.com/', secretRef: { key: 'k' } }, 'spec.secretRef.name: Required value'],
    ['a tlsSecretRef without a name', { targetUrl: 'https://e.com/', tlsSecretRef: {} }, 'spec.tlsSecretRef.name: Required value'],
    ['oauth2 without a clientSecretRef', { targetUrl: 'https://e.com/', oauth2: { tokenUrl: 'https://a/t', clientId: 'c' } }, 'spec.oauth2.clientSecretRef: Required value'],
    ['an inline oauth2 client secret', { targetUrl: 'https://e.com/', oauth2: { tokenUrl: 'https://a/t', clientId: 'c', clientSecretRef: { name: 's' }, clientSecret: 'x' } }, 'unknown field "spec.oauth2.clientSecret"'],
    ['an unknown oauth2 client authentication', { targetUrl: 'https://e.com/', oauth2: { tokenUrl: 'https://a/t', clientId: 'c', clientSecretRef: { name: 's' }, clientAuthentication: 'jwt' } }, 'spec.oauth2.clientAuthentication: Unsupported value'],
    ['a key inside tlsSecretRef (a kubernetes.io/tls Secret has fixed keys)', { targetUrl: 'https://e.com/', tlsSecretRef: { name: 't', key: 'tls.key' } }, 'unknown field "spec.tlsSecretRef.key"'],
  ])('rejects %s with a clear message', (_what, spec, message) => {
    const result = apply(`bad-${Math.random().toString(36).slice(2, 8)}`, spec);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('rejects more than 100 event patterns', () => {
    const events = Array.from({ length: 101 }, (_, index) => `family.action${index}`);
    const result = apply('too-many', { targetUrl: 'https://e.com/', events });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/must have at most 100 items|Too many/);
  });

  it('keeps the handle immutable, including adding or removing it later', () => {
    expect(apply('fixed', { targetUrl: 'https://e.com/', handle: 'fixed-handle' }).status).toBe(0);
    const changed = apply('fixed', { targetUrl: 'https://e.com/', handle: 'other-handle' });
    expect(changed.status).not.toBe(0);
    expect(changed.stderr).toContain('handle is immutable');
    const removed = apply('fixed', { targetUrl: 'https://e.com/' });
    expect(removed.stderr).toContain('handle is immutable');

    expect(apply('derived', { targetUrl: 'https://e.com/' }).status).toBe(0);
    expect(apply('derived', { targetUrl: 'https://e.com/', handle: 'late' }).stderr).toContain('handle is immutable');
    expect(apply('fixed', { targetUrl: 'https://e.com/changed', handle: 'fixed-handle' }).status).toBe(0);
  });

  it('prints URL, Enabled, Ready and Age columns', () => {
    const table = kubectlOk(['get', 'webhooksubscribers', '-n', namespace]);
    expect(table.split('\n')[0]).toMatch(/NAME\s+URL\s+ENABLED\s+READY\s+AGE/);
  });

  it('keeps status.autoDisabled as the operator writes it, and refuses one without its fields', () => {
    expect(apply('auto-disabled', { targetUrl: 'https://e.com/' }).status).toBe(0);
    const patch = (status: Record<string, unknown>) =>
      kubectl(['patch', 'webhooksubscriber', 'auto-disabled', '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    const autoDisabled = { at: '2026-01-06T00:00:00.000Z', message: 'every delivery has failed since 2026-01-01T00:00:00.000Z', observedGeneration: 1 };
    // A merge patch adds to what is there: the incomplete one is sent while there is none.
    expect(patch({ autoDisabled: { at: '2026-01-06T00:00:00.000Z' } }).status).not.toBe(0);
    expect(patch({ autoDisabled }).status).toBe(0);
    expect(JSON.parse(kubectlOk(['get', 'webhooksubscriber', 'auto-disabled', '-n', namespace, '-o', 'jsonpath={.status.autoDisabled}']))).toEqual(autoDisabled);
    expect(patch({ autoDisabled: null }).status).toBe(0);
    expect(kubectlOk(['get', 'webhooksubscriber', 'auto-disabled', '-n', namespace, '-o', 'jsonpath={.status.autoDisabled}'])).toBe('');
  });
});
