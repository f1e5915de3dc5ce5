// The sender through a real loopback CONNECT proxy: what the proxy is asked for, what reaches the
// receiver, the proxy's failures, and the SSRF guard, which a proxy must not weaken.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createEgressProxies } from '../../src/engine/egress/proxy-config.js';
import { createHttpSender, type HttpSender, type OutgoingRequest } from '../../src/engine/http/sender.js';
import { startConnectProxy, type ConnectProxy } from '../../../../test/support/connect-proxy.js';
import { freePort } from '../../../../test/support/ferretdb.js';
import { answer, startSink, type Sink } from './support/sink.js';

let sink: Sink;
let proxy: ConnectProxy;
let other: ConnectProxy;
let senders: HttpSender[] = [];

beforeAll(async () => {
  sink = await startSink(answer(204));
  proxy = await startConnectProxy();
  other = await startConnectProxy();
});
afterAll(async () => {
  await Promise.all([sink.close(), proxy.stop(), other.stop()]);
});
beforeEach(async () => {
  await Promise.all(senders.map((sender) => sender.close(true)));
  senders = [];
  proxy.connects.length = 0;
  other.connects.length = 0;
  proxy.refuseWith(undefined);
  proxy.requireAuthorization(undefined);
});

function sender(options: { egressProxy?: string; egressProxies?: Record<string, string>; ssrfAllowList?: string[] }): HttpSender {
  const created = createHttpSender({
    ssrfAllowList: options.ssrfAllowList ?? ['127.0.0.0/8'],
    egressProxies: createEgressProxies({ egressProxy: options.egressProxy, egressProxies: options.egressProxies }),
  });
  senders.push(created);
  return created;
}

function post(target: HttpSender, url: string, extra: Partial<OutgoingRequest> = {}) {
  return target.send({ url, headers: { 'content-type': 'application/json' }, body: '{"n":1}', timeoutMs: 3_000, poolKey: 'sub-1', ...extra });
}

describe('deliveries through an egress proxy', () => {
  test('the proxy is asked to CONNECT to the address Herald resolved and checked; the receiver sees the original Host', async () => {
    const before = sink.received.length;
    const result = await post(sender({ egressProxy: proxy.url }), `http://localhost:${sink.port}/hook`);
    expect(result).toMatchObject({ kind: 'response', status: 204 });
    // Not `localhost:<port>`: the proxy never resolves the name itself.
    expect(proxy.connects.map((c) => c.authority)).toEqual([`127.0.0.1:${sink.port}`]);
    const got = sink.received.slice(before);
    expect(got.map((r) => [r.method, r.path, r.headers.host, r.body.toString()])).toEqual([['POST', '/hook', `localhost:${sink.port}`, '{"n":1}']]);
    expect(got[0]?.headers['proxy-authorization']).toBeUndefined();
  });

  test('credentials in the proxy URL go as Proxy-Authorization to the proxy only, never to the receiver', async () => {
    const expected = `Basic ${Buffer.from('herald:s3cret pw').toString('base64')}`;
    proxy.requireAuthorization(expected);
    const before = sink.received.length;
    const url = proxy.url.replace('http://', 'http://herald:s3cret%20pw@');
    expect(await post(sender({ egressProxy: url }), sink.url)).toMatchObject({ kind: 'response', status: 204 });
    expect(proxy.connects[0]?.proxyAuthorization).toBe(expected);
    expect(sink.received.slice(before)[0]?.headers['proxy-authorization']).toBeUndefined();
  });

  test('a connection through the proxy is kept alive and reused', async () => {
    const through = sender({ egressProxy: proxy.url });
    for (let i = 0; i < 4; i += 1) expect(await post(through, sink.url)).toMatchObject({ kind: 'response', status: 204 });
    expect(proxy.connects.length).toBeLessThanOrEqual(2);
  });

  test.each([403, 407, 502])('CONNECT answered %i is a PROXY failure naming the status, not the credentials', async (status) => {
    proxy.refuseWith(status);
    const result = await post(sender({ egressProxy: proxy.url.replace('http://', 'http://herald:s3cret@') }), sink.url);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'PROXY', message: `egress proxy ${proxy.url.slice(7)} refused CONNECT: HTTP ${status}` });
    expect(JSON.stringify(result)).not.toContain('s3cret');
  });

  test('a proxy that is not listening is a PROXY failure, not the receiver refusing', async () => {
    const port = await freePort();
    const result = await post(sender({ egressProxy: `http://127.0.0.1:${port}` }), sink.url);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'PROXY', message: `egress proxy 127.0.0.1:${port} unreachable: ECONNREFUSED` });
  });

  test('a proxy that closes the connection before answering CONNECT is a PROXY failure', async () => {
    const { createServer } = await import('node:net');
    const rude = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
    const port = (rude.address() as AddressInfo).port;
    try {
      const result = await post(sender({ egressProxy: `http://127.0.0.1:${port}` }), sink.url);
      expect(result).toMatchObject({ kind: 'error', errorClass: 'PROXY', message: `egress proxy 127.0.0.1:${port} closed the connection before answering CONNECT` });
    } finally {
      await new Promise((resolve) => rude.close(resolve));
    }
  });

  test('a proxy that accepts but never answers CONNECT is bounded by the subscriber\'s time-out (class TIMEOUT)', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const result = await post(sender({ egressProxy: `http://127.0.0.1:${port}` }), sink.url, { timeoutMs: 300 });
      expect(result).toMatchObject({ kind: 'error', errorClass: 'TIMEOUT' });
      expect(result.durationMs).toBeLessThan(2_000);
    } finally {
      silent.close();
    }
  });
});

describe('which route a subscriber takes', () => {
  test('none goes direct, a name goes through that proxy, absent through the default, an unknown name fails as PROXY', async () => {
    const target = sender({ egressProxy: proxy.url, egressProxies: { eu: other.url } });
    expect(await post(target, sink.url, { egressProxy: 'none' })).toMatchObject({ kind: 'response', status: 204 });
    expect([proxy.connects.length, other.connects.length]).toEqual([0, 0]);
    expect(await post(target, sink.url, { egressProxy: 'eu' })).toMatchObject({ kind: 'response', status: 204 });
    expect([proxy.connects.length, other.connects.length]).toEqual([0, 1]);
    expect(await post(target, sink.url, { egressProxy: undefined })).toMatchObject({ kind: 'response', status: 204 });
    expect([proxy.connects.length, other.connects.length]).toEqual([1, 1]);
    expect(await post(target, sink.url, { egressProxy: 'ap' })).toMatchObject({ kind: 'error', errorClass: 'PROXY', message: expect.stringContaining('"ap"') as unknown });
  });
});

describe('the SSRF guard with a proxy', () => {
  test('a name resolving to a forbidden address is refused before the proxy is asked anything', async () => {
    const result = await post(sender({ egressProxy: proxy.url, ssrfAllowList: [] }), `http://localhost:${sink.port}/hook`);
    expect(result).toMatchObject({ kind: 'error', errorClass: 'SSRF_BLOCKED' });
    expect(proxy.connects).toEqual([]);
  });

  test.each(['http://10.0.0.1/hook', 'http://169.254.169.254/latest', 'http://[::1]:80/hook', 'http://[::ffff:127.0.0.1]/hook'])('%s is refused without a CONNECT', async (url) => {
    expect(await post(sender({ egressProxy: proxy.url, ssrfAllowList: [] }), url)).toMatchObject({ kind: 'error', errorClass: 'SSRF_BLOCKED' });
    expect(proxy.connects).toEqual([]);
  });

  test('a name that does not resolve is a DNS failure of Herald, not sent to the proxy', async () => {
    expect(await post(sender({ egressProxy: proxy.url }), 'http://no-such-host.invalid/hook')).toMatchObject({ kind: 'error', errorClass: 'DNS' });
    expect(proxy.connects).toEqual([]);
  });
});

describe('https receivers through the tunnel', () => {
  let directory: string;
  let server: HttpsServer;
  const servernames: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'herald-egress-tls-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem')]);
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    server = createHttpsServer(
      {
        key: readFileSync(join(directory, 'key.pem')),
        cert: readFileSync(join(directory, 'cert.pem')),
        // Records the name the client asked for in its TLS hello, before the client judges the certificate.
        SNICallback: (name, done) => {
          servernames.push(name);
          done(null);
        },
      },
      (_request, response) => response.writeHead(204).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  test('TLS runs end to end inside the tunnel, with the original name as SNI, and the certificate is checked', async () => {
    const port = (server.address() as AddressInfo).port;
    const result = await post(sender({ egressProxy: proxy.url }), `https://localhost:${port}/hook`);
    // A self-signed certificate is refused: the check is Herald's, through the tunnel as without it.
    expect(result).toMatchObject({ kind: 'error', errorClass: 'TLS' });
    expect(proxy.connects.map((c) => c.authority)).toEqual([`127.0.0.1:${port}`]);
    expect(servernames).toEqual(['localhost']);
  });
});
