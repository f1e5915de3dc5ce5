// Mutual TLS end to end: createHerald over FerretDB delivering to a real HTTPS receiver on 127.0.0.1
// that requires a client certificate; the material checked on input, sealed at rest, never read back.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ConfigError, createHerald, ValidationError, type WebhookSubscriberCreateRequest } from '../../src/index.js';
import { certificateFactory, startMtlsReceiver, type CertificateFactory, type MtlsReceiver, type Pem } from '../../../../test/support/certificates.js';
import { clientTlsIssues } from '../../src/validation/client-tls.js';
import { eventSettles, eventually, scope, startHarness, type Harness } from './support/harness.js';

let harness: Harness;
let certs: CertificateFactory;
let serverCa: Pem;
let clientA: Pem;
let clientB: Pem;
let receiver: MtlsReceiver;

beforeAll(async () => {
  certs = certificateFactory();
  serverCa = certs.authority('receiver private CA');
  const clientCa = certs.authority('client CA');
  clientA = certs.leaf('herald-client-a', clientCa);
  clientB = certs.leaf('herald-client-b', clientCa);
  receiver = await startMtlsReceiver(certs.leaf('receiver', serverCa, { serverNames: ['127.0.0.1'] }), clientCa.cert);
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  certs?.dispose();
});

const tls = (client: Pem) => ({ clientCertificate: client.cert, clientKey: client.key, caBundle: serverCa.cert });

let count = 0;
async function subscribe(extra: Partial<WebhookSubscriberCreateRequest> = {}) {
  count += 1;
  return harness.herald.subscribers.create(scope, { id: `mtls-${count}`, displayName: `mtls ${count}`, targetUrl: receiver.url, events: [`mtls${count}.*`], ...extra });
}
const publish = async (family: string) => (await harness.herald.events.publish(scope, { eventType: `${family}.created`, aggregateId: 'a-1', data: { n: 1 } })).event;

describe('deliveries with a client certificate', () => {
  test('delivered with the certificate, the receiver sees it; reads show its facts, never the key', async () => {
    const before = receiver.received.length;
    const created = await subscribe({ tls: tls(clientA) });
    expect(created.tls).toMatchObject({ subject: 'CN=herald-client-a', issuer: 'CN=client CA', caCertificates: 1 });
    expect(created.tls?.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(JSON.stringify(created)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(await harness.herald.subscribers.get(scope, created.id))).not.toContain('PRIVATE KEY');

    const settled = await eventSettles(harness.herald, (await publish(`mtls${count}`)).eventId);
    expect(settled.status).toBe('ALL_DELIVERED');
    expect(receiver.received.slice(before).map((r) => r.peerCommonName)).toEqual(['herald-client-a']);
  });

  test('the key is stored sealed under the master key, not as PEM', async () => {
    const created = await subscribe({ tls: tls(clientA) });
    const stored = await harness.database.db.collection('herald_subscribers').findOne({ handle: created.id });
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    expect(stored?.tls?.key).toMatchObject({ keyId: 'k1' });
  });

  test('without a certificate the attempt fails with class TLS and is retried; once one is added it is delivered', async () => {
    const created = await subscribe({ tls: undefined });
    const event = await publish(`mtls${count}`);
    const failing = await eventually(
      () => harness.herald.events.get(scope, event.eventId),
      (detail) => (detail.deliveries[0]?.attemptHistory.length ?? 0) >= 1,
    );
    expect(failing.deliveries[0]?.attemptHistory[0]).toMatchObject({ errorClass: 'TLS', httpStatus: null });
    await harness.herald.subscribers.update(scope, created.id, { tls: tls(clientB) });
    const settled = await eventSettles(harness.herald, event.eventId);
    expect(settled.deliveries[0]).toMatchObject({ status: 'DELIVERED' });
  });

  test('rotation: deliveries go on without a failed attempt and switch to the new certificate', async () => {
    const created = await subscribe({ tls: tls(clientA) });
    const family = `mtls${count}`;
    const first = await publish(family);
    await harness.herald.subscribers.update(scope, created.id, { tls: tls(clientB) });
    const second = await publish(family);
    for (const event of [first, second]) {
      const settled = await eventSettles(harness.herald, event.eventId);
      expect(settled.deliveries[0]?.attemptHistory.map((a) => a.errorClass)).toEqual([null]);
    }
    const after = await harness.herald.subscribers.get(scope, created.id);
    expect(after.tls?.subject).toBe('CN=herald-client-b');
    const third = await publish(family);
    await eventSettles(harness.herald, third.eventId);
    expect(receiver.received.at(-1)?.peerCommonName).toBe('herald-client-b');
  });

  test('a Herald without the master key that sealed a stored client key refuses to start, naming the key id only', async () => {
    await subscribe({ tls: tls(clientA) });
    const starting = createHerald({ mongo: { db: harness.database.db }, masterKeys: { current: 'k2', keys: { k2: randomBytes(32).toString('base64') } } });
    await expect(starting).rejects.toThrow(ConfigError);
    await expect(starting).rejects.toThrow('subscribers have TLS client keys sealed with master key "k1", which is not configured');
  });

  test('a CA bundle alone: a receiver on a private CA that asks for no client certificate is trusted', async () => {
    const plainTls = await startMtlsReceiver(certs.leaf('private receiver', serverCa, { serverNames: ['127.0.0.1'] }), undefined);
    try {
      const created = await subscribe({ targetUrl: plainTls.url, tls: { caBundle: serverCa.cert } });
      expect(created.tls).toEqual({ caCertificates: 1 });
      const settled = await eventSettles(harness.herald, (await publish(`mtls${count}`)).eventId);
      expect(settled.status).toBe('ALL_DELIVERED');
      expect(plainTls.received.map((r) => r.peerCommonName)).toEqual([undefined]);
    } finally {
      await plainTls.close();
    }
  });

  test('null removes the client certificate', async () => {
    const created = await subscribe({ tls: tls(clientA) });
    const updated = await harness.herald.subscribers.update(scope, created.id, { tls: null });
    expect(updated.tls).toBeUndefined();
    const stored = await harness.database.db.collection('herald_subscribers').findOne({ handle: created.id });
    expect(stored?.tls).toBeUndefined();
  });
});

describe('client certificate input', () => {
  const create = (value: unknown) => harness.herald.subscribers.create(scope, { displayName: 'bad', targetUrl: receiver.url, tls: value } as WebhookSubscriberCreateRequest);
  const issues = async (value: unknown) => {
    const error = await create(value).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  };

  test('a key that is not the certificate’s', async () => {
    expect(await issues({ clientCertificate: clientA.cert, clientKey: clientB.key })).toEqual([{ field: 'tls.clientKey', message: 'is not the private key of clientCertificate' }]);
  });

  // openssl 3.0 cannot issue an already expired certificate: the check is asked about a later time.
  test('an expired certificate, and one not valid yet', () => {
    const material = { clientCertificate: clientA.cert, clientKey: clientA.key };
    const later = clientTlsIssues(material, new Date(Date.now() + 3 * 86_400_000));
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ field: 'tls.clientCertificate' });
    expect(later[0]?.message).toMatch(/^expired at \d{4}-/);
    const earlier = clientTlsIssues(material, new Date(Date.now() - 86_400_000));
    expect(earlier[0]?.message).toMatch(/^is not valid before \d{4}-/);
    expect(clientTlsIssues(material, new Date())).toEqual([]);
  });

  test('not PEM, wrong types, missing and unknown fields, oversize; messages never quote the key', async () => {
    expect(await issues({ clientCertificate: 'hello', clientKey: 'world' })).toEqual([
      { field: 'tls.clientCertificate', message: 'must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)' },
      { field: 'tls.clientKey', message: 'must be an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)' },
    ]);
    expect(await issues({ clientCertificate: clientA.cert })).toEqual([{ field: 'tls.clientKey', message: 'is required with clientCertificate' }]);
    expect(await issues({ clientKey: clientA.key, caBundle: serverCa.cert })).toEqual([{ field: 'tls.clientCertificate', message: 'is required with clientKey' }]);
    expect(await issues({})).toEqual([{ field: 'tls', message: 'must hold clientCertificate and clientKey (mutual TLS), a caBundle, or both' }]);
    expect(await issues({ clientCertificate: 1, clientKey: clientA.key, extra: true })).toEqual([
      { field: 'tls.extra', message: 'is not a known property' },
      { field: 'tls.clientCertificate', message: 'must be a string' },
    ]);
    expect(await issues('pem')).toEqual([{ field: 'tls', message: 'must be an object with clientCertificate and clientKey (mutual TLS), a caBundle, or both' }]);
    expect(await issues({ clientCertificate: clientA.cert, clientKey: clientA.key, caBundle: 'x'.repeat(128 * 1024 + 1) })).toEqual([
      { field: 'tls.caBundle', message: 'must be at most 131072 characters' },
    ]);
    expect(await issues({ clientCertificate: clientA.cert, clientKey: clientA.key, caBundle: `${serverCa.cert}\ntrailing` })).toEqual([
      { field: 'tls.caBundle', message: 'must hold only PEM certificates' },
    ]);
    const broken = clientA.key.replace(/\n[A-Za-z0-9+/]{10}/, '\nAAAAAAAAAA');
    const found = await issues({ clientCertificate: clientA.cert, clientKey: broken });
    expect(JSON.stringify(found)).not.toContain(broken.slice(40, 80));
  });
});
