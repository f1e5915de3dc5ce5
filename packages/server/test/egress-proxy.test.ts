// The egress proxy through the host: HERALD_EGRESS_PROXY / HERALD_EGRESS_PROXIES, the subscriber's
// egressProxy field over the HTTP API (bad input included), and a delivery through a real loopback
// CONNECT proxy to a real receiver.
import { verify } from '@herald/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { startConnectProxy, type ConnectProxy } from '../../../test/support/connect-proxy.js';
import { answer, startSink, type Sink } from '../../core/test/engine/support/sink.js';
import { problemsOf } from './support/config-problems.js';
import { startTestHost, type TestHost } from './support/test-host.js';

const MONGO = { HERALD_MONGODB_URI: 'mongodb://127.0.0.1:27017/' };
const BASE = '/api/v0.9/webhook-subscribers';
const SECRET = 'egress-secret-0123456789';
const PROXY_PASSWORD = 'pr0xy-s3cret';

describe('egress proxy configuration', () => {
  it('reads HERALD_EGRESS_PROXY and the white-space separated HERALD_EGRESS_PROXIES', () => {
    const config = loadConfig({
      env: { ...MONGO, HERALD_EGRESS_PROXY: 'http://proxy:3128', HERALD_EGRESS_PROXIES: ' eu=http://u:p,w@eu-proxy:3128\n us-east=http://us:8080 ' },
    });
    expect(config.egressProxy).toBe('http://proxy:3128');
    expect(config.egressProxies).toEqual({ eu: 'http://u:p,w@eu-proxy:3128', 'us-east': 'http://us:8080' });
  });

  it('a bad URL is refused naming the variable, never repeating the URL', () => {
    const problems = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_EGRESS_PROXY: `https://herald:${PROXY_PASSWORD}@proxy:3128` } }));
    expect(problems).toEqual([
      'HERALD_EGRESS_PROXY (egressProxy): https:// proxies are not supported; use http:// (deliveries to https receivers stay TLS end to end through the tunnel)',
    ]);
    const more = problemsOf(() =>
      loadConfig({ env: { ...MONGO, HERALD_EGRESS_PROXY: `herald:${PROXY_PASSWORD}@proxy:3128`, HERALD_EGRESS_PROXIES: `eu=http://u:${PROXY_PASSWORD}@p:1/path` } }),
    );
    expect(more).toEqual([
      'HERALD_EGRESS_PROXY (egressProxy) must be an http:// URL, not herald:',
      'HERALD_EGRESS_PROXIES (egressProxies) "eu" must be http://[user:password@]host:port, without a path, query or fragment',
    ]);
    expect(JSON.stringify([problems, more])).not.toContain(PROXY_PASSWORD);
  });

  it.each([
    ['none=http://p:1', '"none" is not a proxy name'],
    ['default=http://p:1', '"default" is not a proxy name'],
    ['EU=http://p:1', '"EU" is not a proxy name'],
    ['eu_1=http://p:1', '"eu_1" is not a proxy name'],
  ])('HERALD_EGRESS_PROXIES=%s is refused', (value, message) => {
    expect(problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_EGRESS_PROXIES: value } }))[0]).toContain(`HERALD_EGRESS_PROXIES (egressProxies): ${message}`);
  });

  it('an entry without a name is refused, without its text', () => {
    const problems = problemsOf(() => loadConfig({ env: { ...MONGO, HERALD_EGRESS_PROXIES: `http://u:${PROXY_PASSWORD}@p:1` } }));
    expect(problems.join('\n')).toMatch(/^HERALD_EGRESS_PROXIES \(egressProxies\): /);
    expect(problems.join('\n')).not.toContain(PROXY_PASSWORD);
  });

  it('the config file takes a name → URL object', () => {
    const config = loadConfig({ env: MONGO, overrides: { egressProxies: { eu: 'http://eu:3128' } } });
    expect(config.egressProxies).toEqual({ eu: 'http://eu:3128' });
    expect(problemsOf(() => loadConfig({ env: MONGO, overrides: { egressProxies: ['http://eu:3128'] } }))[0]).toMatch(/^egressProxies: /);
  });
});

describe('subscribers choosing an egress proxy over the HTTP API', () => {
  let t: TestHost;
  let receiver: Sink;
  let proxy: ConnectProxy;
  let eu: ConnectProxy;

  beforeAll(async () => {
    [receiver, proxy, eu] = await Promise.all([startSink(answer(204)), startConnectProxy(), startConnectProxy()]);
    t = await startTestHost({
      overrides: { egressProxy: proxy.url.replace('http://', `http://herald:${PROXY_PASSWORD}@`), egressProxies: { eu: eu.url } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([receiver?.close(), proxy?.stop(), eu?.stop()]);
  });

  async function deliveredThrough(subscriberId: string, eventType: string): Promise<void> {
    const published = await t.api.post<{ eventId: string }>('/api/v0.9/webhook-events', { eventType, aggregateId: 'a-1', data: { via: subscriberId } });
    expect(published.status).toBe(201);
    const { eventId } = published.body;
    await expect.poll(async () => (await t.api.get<{ status: string }>(`/api/v0.9/webhook-events/${eventId}`)).body.status, { timeout: 15_000 }).toBe('ALL_DELIVERED');
    const request = receiver.received.find((r) => r.headers['webhook-id'] === eventId);
    expect(request).toBeDefined();
    expect(verify(request!.headers as Record<string, string>, request!.body, SECRET).eventId).toBe(eventId);
  }

  it('without the field deliveries go through HERALD_EGRESS_PROXY, with its credentials', async () => {
    const created = await t.api.post<Record<string, unknown>>(BASE, { id: 'via-default', displayName: 'D', targetUrl: receiver.url, secret: SECRET, events: ['viadefault.*'] });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('egressProxy');
    await deliveredThrough('via-default', 'viadefault.created');
    expect(proxy.connects.map((c) => c.authority)).toContain(`127.0.0.1:${receiver.port}`);
    expect(proxy.connects[0]?.proxyAuthorization).toBe(`Basic ${Buffer.from(`herald:${PROXY_PASSWORD}`).toString('base64')}`);
  });

  it('a named proxy on create, none on update; reads show the name', async () => {
    const created = await t.api.post<{ egressProxy?: string }>(BASE, { id: 'via-eu', displayName: 'EU', targetUrl: receiver.url, secret: SECRET, events: ['viaeu.*'], egressProxy: 'eu' });
    expect(created.status).toBe(201);
    expect(created.body.egressProxy).toBe('eu');
    await deliveredThrough('via-eu', 'viaeu.created');
    expect(eu.connects.map((c) => c.authority)).toEqual([`127.0.0.1:${receiver.port}`]);

    const updated = await t.api.put<{ egressProxy?: string }>(`${BASE}/via-eu`, { egressProxy: 'none' });
    expect(updated.status).toBe(200);
    expect(updated.body.egressProxy).toBe('none');
    expect((await t.api.get<{ egressProxy?: string }>(`${BASE}/via-eu`)).body.egressProxy).toBe('none');
    const list = await t.api.get<{ list: Array<{ id: string; egressProxy?: string }> }>(BASE);
    expect(list.body.list.find((s) => s.id === 'via-eu')?.egressProxy).toBe('none');

    const cleared = await t.api.put<Record<string, unknown>>(`${BASE}/via-eu`, { egressProxy: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('egressProxy');
  });

  it.each([
    [42, 'must be string'],
    ['', 'must match pattern'],
    ['http://proxy:3128', 'must match pattern'],
    ['a'.repeat(64), 'must'],
    ['ap', 'no egress proxy named "ap" is configured; the names are "none", "eu"'],
  ])('egressProxy %j → 400 naming the field, on create and on update', async (egressProxy, message) => {
    const create = await t.api.post<{ code: string; errors: Array<{ field: string; message: string }> }>(BASE, { id: 'bad-egress', displayName: 'B', targetUrl: receiver.url, egressProxy });
    expect(create.status).toBe(400);
    expect(create.body.code).toBe('MISSING_REQUIRED_PARAMETER');
    expect(create.body.errors.find((e) => e.field === 'egressProxy')?.message).toContain(message);
    const update = await t.api.put<{ errors: Array<{ field: string; message: string }> }>(`${BASE}/via-default`, { egressProxy });
    expect(update.status).toBe(400);
    expect(update.body.errors.find((e) => e.field === 'egressProxy')?.message).toContain(message);
    expect((await t.api.get(`${BASE}/bad-egress`)).status).toBe(404);
  });

  it('a proxy URL in an unknown field is refused; no token is 401', async () => {
    const unknown = await t.api.post<{ errors: Array<{ field: string }> }>(BASE, { id: 'bad-egress', displayName: 'B', targetUrl: receiver.url, egressProxyUrl: 'http://p:1' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('egressProxyUrl');
    const anonymous = await t.api.put(`${BASE}/via-default`, { egressProxy: 'eu' }, { token: undefined });
    expect(anonymous.status).toBe(401);
    expect((await t.api.get<{ egressProxy?: string }>(`${BASE}/via-default`)).body).not.toHaveProperty('egressProxy');
  });

  it('the proxy password never reaches a log line or a response', () => {
    expect(t.logs.join('\n')).not.toContain(PROXY_PASSWORD);
  });
});
