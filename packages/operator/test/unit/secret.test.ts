import { describe, expect, it } from 'vitest';
import type { WebhookSubscriberResource } from '../../src/crd/types.js';
import { resolveOAuth2Secret, resolveSecret, resolveTlsSecret } from '../../src/reconcile/secret.js';

const withRef: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'hook' }, spec: { targetUrl: 'https://x/', secretRef: { name: 'hook-secret' } } };
const secretValue = 'a-very-secret-value-123';
const secret = { metadata: { name: 'hook-secret', namespace: 'ns', uid: 'uid-1', resourceVersion: '42' }, data: { secret: Buffer.from(secretValue).toString('base64') } };

describe('resolveSecret', () => {
  it('needs nothing without a secretRef', () => {
    expect(resolveSecret({ ...withRef, spec: { targetUrl: 'https://x/' } }, undefined)).toEqual({ kind: 'none' });
  });

  it('decodes the default key and versions it by uid/resourceVersion', () => {
    expect(resolveSecret(withRef, secret)).toEqual({ kind: 'found', value: secretValue, version: 'uid-1/42' });
  });

  it('reports a missing Secret or key without any value', () => {
    expect(resolveSecret(withRef, undefined)).toEqual({ kind: 'missing', message: 'Secret ns/hook-secret not found' });
    const other = resolveSecret({ ...withRef, spec: { ...withRef.spec, secretRef: { name: 'hook-secret', key: 'token' } } }, secret);
    expect(other).toEqual({ kind: 'missing', message: 'Secret ns/hook-secret has no key "token"' });
  });

  it('rejects a value of the wrong length and never echoes it', () => {
    const short = { ...secret, data: { secret: Buffer.from('short').toString('base64') } };
    const result = resolveSecret(withRef, short);
    expect(result.kind).toBe('invalid');
    expect(JSON.stringify(result)).not.toContain('short"');
    expect(result).toMatchObject({ message: expect.stringContaining('has 5') });
  });
});

describe('resolveTlsSecret', () => {
  const withTls: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'hook' }, spec: { targetUrl: 'https://x/', tlsSecretRef: { name: 'hook-tls' } } };
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const tlsSecret = {
    type: 'kubernetes.io/tls',
    metadata: { name: 'hook-tls', namespace: 'ns', uid: 'uid-2', resourceVersion: '7' },
    data: { 'tls.crt': b64('CERT PEM'), 'tls.key': b64('KEY PEM'), 'ca.crt': b64('CA PEM') },
  };

  it('needs nothing without a tlsSecretRef', () => {
    expect(resolveTlsSecret({ ...withTls, spec: { targetUrl: 'https://x/' } }, undefined)).toEqual({ kind: 'none' });
  });

  it('reads tls.crt, tls.key and the optional ca.crt, versioned by uid/resourceVersion', () => {
    expect(resolveTlsSecret(withTls, tlsSecret)).toEqual({ kind: 'found', tls: { clientCertificate: 'CERT PEM', clientKey: 'KEY PEM', caBundle: 'CA PEM' }, version: 'uid-2/7' });
    const noCa = { ...tlsSecret, data: { 'tls.crt': b64('CERT PEM'), 'tls.key': b64('KEY PEM'), 'ca.crt': b64('') } };
    expect(resolveTlsSecret(withTls, noCa)).toMatchObject({ kind: 'found', tls: { clientCertificate: 'CERT PEM', clientKey: 'KEY PEM' } });
    expect(resolveTlsSecret(withTls, noCa)).not.toHaveProperty('tls.caBundle');
  });

  it('reports a missing Secret or key, never the content', () => {
    expect(resolveTlsSecret(withTls, undefined)).toEqual({ kind: 'missing', message: 'Secret ns/hook-tls not found' });
    const noKey = { ...tlsSecret, data: { 'tls.crt': b64('CERT PEM') } };
    const result = resolveTlsSecret(withTls, noKey);
    expect(result).toEqual({ kind: 'missing', message: 'Secret ns/hook-tls needs the keys "tls.crt" and "tls.key" (a kubernetes.io/tls Secret)' });
    expect(JSON.stringify(result)).not.toContain('CERT PEM');
  });
});

describe('resolveOAuth2Secret', () => {
  const spec = { targetUrl: 'https://x/', oauth2: { tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecretRef: { name: 'hook-oauth2' }, audience: 'api' } };
  const withOAuth2: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'hook' }, spec };
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const secret = { metadata: { name: 'hook-oauth2', namespace: 'ns', uid: 'uid-3', resourceVersion: '9' }, data: { clientSecret: b64('the-client-secret\n') } };

  it('needs nothing without spec.oauth2', () => {
    expect(resolveOAuth2Secret({ ...withOAuth2, spec: { targetUrl: 'https://x/' } }, undefined)).toEqual({ kind: 'none' });
  });

  it('reads the client secret (key clientSecret by default, trailing newline dropped), versioned by uid/resourceVersion', () => {
    expect(resolveOAuth2Secret(withOAuth2, secret)).toEqual({
      kind: 'found',
      oauth2: { tokenUrl: 'https://auth.example.com/token', clientId: 'herald', clientSecret: 'the-client-secret', audience: 'api' },
      version: 'uid-3/9',
    });
    const keyed = { ...withOAuth2, spec: { ...spec, oauth2: { ...spec.oauth2, clientSecretRef: { name: 'hook-oauth2', key: 'other' }, clientAuthentication: 'body' as const } } };
    expect(resolveOAuth2Secret(keyed, { ...secret, data: { other: b64('s2') } })).toMatchObject({ kind: 'found', oauth2: { clientSecret: 's2', clientAuthentication: 'body' } });
  });

  it('reports a missing Secret or key, never the value', () => {
    expect(resolveOAuth2Secret(withOAuth2, undefined)).toEqual({ kind: 'missing', message: 'Secret ns/hook-oauth2 not found' });
    const result = resolveOAuth2Secret(withOAuth2, { ...secret, data: { secret: b64('the-client-secret') } });
    expect(result).toEqual({ kind: 'missing', message: 'Secret ns/hook-oauth2 has no key "clientSecret" (the OAuth2 client secret)' });
    expect(JSON.stringify(result)).not.toContain('the-client-secret');
  });
});
