// The sender presenting a subscriber's client certificate to a real HTTPS receiver on loopback that
// requires one (mutual TLS), trusting the receiver's private CA, directly and through a CONNECT proxy.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createEgressProxies } from '../../src/engine/egress/proxy-config.js';
import { classifyNetworkError } from '../../src/engine/network-errors.js';
import { createHttpSender, type ClientTlsMaterial, type HttpSender, type OutgoingRequest } from '../../src/engine/http/sender.js';
import { certificateFactory, startMtlsReceiver, type CertificateFactory, type MtlsReceiver, type Pem } from '../../../../test/support/certificates.js';
import { startConnectProxy, type ConnectProxy } from '../../../../test/support/connect-proxy.js';

let certs: CertificateFactory;
let serverCa: Pem;
let clientCa: Pem;
let clientA: Pem;
let clientB: Pem;
let stranger: Pem;
let receiver: MtlsReceiver;
let proxy: ConnectProxy;
const senders: HttpSender[] = [];

beforeAll(async () => {
  certs = certificateFactory();
  serverCa = certs.authority('receiver private CA');
  clientCa = certs.authority('client CA');
  clientA = certs.leaf('herald-client-a', clientCa);
  clientB = certs.leaf('herald-client-b', clientCa);
  stranger = certs.leaf('stranger', certs.authority('untrusted CA'));
  receiver = await startMtlsReceiver(certs.leaf('receiver', serverCa, { serverNames: ['localhost', '127.0.0.1'] }), clientCa.cert);
  proxy = await startConnectProxy();
});
afterAll(async () => {
  await Promise.all(senders.map((sender) => sender.close(true)));
  await Promise.all([receiver.close(), proxy.stop()]);
  certs.dispose();
});

function sender(egressProxy?: string): HttpSender {
  const created = createHttpSender({ ssrfAllowList: ['127.0.0.0/8'], egressProxies: createEgressProxies({ egressProxy }) });
  senders.push(created);
  return created;
}

const material = (id: string, client: Pem, ca: string | null = serverCa.cert): ClientTlsMaterial => ({ id, cert: client.cert, key: client.key, ...(ca !== null ? { ca } : {}) });

function post(target: HttpSender, extra: Partial<OutgoingRequest>) {
  return target.send({ url: receiver.url, headers: { 'content-type': 'application/json' }, body: '{"n":1}', timeoutMs: 3_000, poolKey: 'sub-1', ...extra });
}

describe('mutual TLS', () => {
  test('the client certificate is presented and the private CA trusted: the receiver sees the certificate', async () => {
    const before = receiver.received.length;
    expect(await post(sender(), { clientTls: material('a', clientA) })).toMatchObject({ kind: 'response', status: 204 });
    expect(receiver.received.slice(before).map((r) => [r.peerCommonName, r.body])).toEqual([['herald-client-a', '{"n":1}']]);
  });

  test('without a client certificate the handshake is refused: a TLS error, nothing received', async () => {
    const before = receiver.received.length;
    const result = await post(sender(), { clientTls: { id: 'ca-only', cert: '', key: '', ca: serverCa.cert } as ClientTlsMaterial, poolKey: 'sub-2' });
    expect(result).toMatchObject({ kind: 'error', errorClass: 'TLS' });
    expect(receiver.received.length).toBe(before);
  });

  // node's https server refuses such a certificate by closing the connection, without a TLS alert
  // (servers that send one, e.g. unknown_ca, are reported as TLS like the test above): the attempt
  // fails as a reset, and nothing is received.
  test('a certificate from a CA the receiver does not trust is refused: the attempt fails, nothing received', async () => {
    const before = { received: receiver.received.length, refused: receiver.refusedHandshakes };
    const result = await post(sender(), { clientTls: material('stranger', stranger), poolKey: 'sub-3' });
    expect(result).toMatchObject({ kind: 'error' });
    expect(result.kind === 'error' && ['TLS', 'CONNECTION_RESET'].includes(result.errorClass)).toBe(true);
    expect(receiver.received.length).toBe(before.received);
  });

  test('without the CA bundle the private CA is not trusted: a TLS error naming the verification failure', async () => {
    const result = await post(sender(), { clientTls: material('no-ca', clientA, null), poolKey: 'sub-4' });
    expect(result).toMatchObject({ kind: 'error', errorClass: 'TLS' });
    if (result.kind === 'error') expect(result.message).not.toContain('PRIVATE KEY');
  });

  test('rotation: new material is used by the next request at once, while a request on the old pool completes', async () => {
    const rotating = sender();
    const before = receiver.received.length;
    const [first, second] = await Promise.all([
      post(rotating, { clientTls: material('v1', clientA), poolKey: 'sub-5' }),
      post(rotating, { clientTls: material('v2', clientB), poolKey: 'sub-5' }),
    ]);
    expect([first, second]).toMatchObject([{ kind: 'response', status: 204 }, { kind: 'response', status: 204 }]);
    expect(await post(rotating, { clientTls: material('v2', clientB), poolKey: 'sub-5' })).toMatchObject({ kind: 'response', status: 204 });
    expect(receiver.received.slice(before).map((r) => r.peerCommonName).sort()).toEqual(['herald-client-a', 'herald-client-b', 'herald-client-b']);
  });

  test('through an egress proxy the certificate goes to the receiver inside the tunnel', async () => {
    const before = receiver.received.length;
    const proxied = sender(proxy.url);
    expect(await post(proxied, { clientTls: material('tunnel', clientB), poolKey: 'sub-6' })).toMatchObject({ kind: 'response', status: 204 });
    expect(proxy.connects.map((c) => c.authority)).toContain(`127.0.0.1:${receiver.port}`);
    expect(receiver.received.slice(before).map((r) => r.peerCommonName)).toEqual(['herald-client-b']);
  });

  test('a CA bundle alone trusts a private-CA receiver that asks for no certificate; without it the same receiver is untrusted', async () => {
    const plainTls = await startMtlsReceiver(certs.leaf('private receiver', serverCa, { serverNames: ['127.0.0.1'] }), undefined);
    try {
      const target = sender();
      const url = plainTls.url;
      expect(await post(target, { url, clientTls: { id: 'ca-alone', ca: serverCa.cert }, poolKey: 'sub-7' })).toMatchObject({ kind: 'response', status: 204 });
      expect(await post(target, { url, poolKey: 'sub-8' })).toMatchObject({ kind: 'error', errorClass: 'TLS' });
    } finally {
      await plainTls.close();
    }
  });

  test("a receiver's TLS alert is classed TLS", () => {
    expect(classifyNetworkError(Object.assign(new Error('alert'), { code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' }))).toBe('TLS');
  });
});
