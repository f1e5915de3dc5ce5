import { describe, expect, it } from 'vitest';
import { fingerprint, needsReconcile, subscribersUsingSecret } from '../../src/controller/triggers.js';
import { FINALIZER, type WebhookSubscriberResource } from '../../src/crd/types.js';

const base: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'a', generation: 1 }, spec: { targetUrl: 'https://x/', secretRef: { name: 's1' } } };

describe('needsReconcile', () => {
  it('reconciles new objects and spec changes but not status-only updates', () => {
    const before = fingerprint(base, FINALIZER);
    expect(needsReconcile(undefined, before)).toBe(true);
    expect(needsReconcile(before, fingerprint({ ...base, status: { observedGeneration: 1 } }, FINALIZER))).toBe(false);
    expect(needsReconcile(before, fingerprint({ ...base, metadata: { ...base.metadata, generation: 2 } }, FINALIZER))).toBe(true);
  });

  it('ignores the finalizer the operator adds itself', () => {
    const withFinalizer = fingerprint({ ...base, metadata: { ...base.metadata, finalizers: [FINALIZER] } }, FINALIZER);
    expect(needsReconcile(fingerprint(base, FINALIZER), withFinalizer)).toBe(false);
  });

  it('reconciles deletion, a removed finalizer and the adopt annotation', () => {
    const withFinalizer = fingerprint({ ...base, metadata: { ...base.metadata, finalizers: [FINALIZER] } }, FINALIZER);
    expect(needsReconcile(withFinalizer, fingerprint(base, FINALIZER))).toBe(true);
    expect(needsReconcile(withFinalizer, fingerprint({ ...base, metadata: { ...base.metadata, finalizers: [FINALIZER], deletionTimestamp: new Date() } }, FINALIZER))).toBe(true);
    expect(needsReconcile(fingerprint(base, FINALIZER), fingerprint({ ...base, metadata: { ...base.metadata, annotations: { 'herald.dev/adopt': 'true' } } }, FINALIZER))).toBe(true);
  });
});

describe('subscribersUsingSecret', () => {
  it('maps a Secret to the CRs of its namespace that reference it', () => {
    const other: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'b' }, spec: { targetUrl: 'https://x/', secretRef: { name: 's2' } } };
    const elsewhere: WebhookSubscriberResource = { metadata: { namespace: 'other', name: 'c' }, spec: { targetUrl: 'https://x/', secretRef: { name: 's1' } } };
    expect(subscribersUsingSecret([base, other, elsewhere], { metadata: { namespace: 'ns', name: 's1' } })).toEqual(['ns/a']);
  });
});

describe('subscribersUsingSecret with a TLS Secret', () => {
  it('maps a TLS Secret to the CRs that reference it by tlsSecretRef', () => {
    const mtls: WebhookSubscriberResource = { metadata: { namespace: 'ns', name: 'm' }, spec: { targetUrl: 'https://x/', tlsSecretRef: { name: 'm-tls' } } };
    expect(subscribersUsingSecret([base, mtls], { metadata: { namespace: 'ns', name: 'm-tls' } })).toEqual(['ns/m']);
  });
});

describe('subscribersUsingSecret with an OAuth2 client secret', () => {
  it('maps a Secret to the CRs whose oauth2.clientSecretRef names it', () => {
    const oauth2: WebhookSubscriberResource = {
      metadata: { namespace: 'ns', name: 'o' },
      spec: { targetUrl: 'https://x/', oauth2: { tokenUrl: 'https://auth/t', clientId: 'c', clientSecretRef: { name: 'o-oauth2' } } },
    };
    expect(subscribersUsingSecret([base, oauth2], { metadata: { namespace: 'ns', name: 'o-oauth2' } })).toEqual(['ns/o']);
    expect(subscribersUsingSecret([base, oauth2], { metadata: { namespace: 'other', name: 'o-oauth2' } })).toEqual([]);
  });
});
