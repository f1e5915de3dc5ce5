import { describe, expect, test } from 'vitest';
import { createEgressProxies, parseProxyUrl } from '../../src/engine/egress/proxy-config.js';
import { classifyNetworkError } from '../../src/engine/network-errors.js';
import { ProxyError } from '../../src/engine/http/tunnel-connector.js';

describe('egress proxy URLs', () => {
  test('host and port, with credentials turned into a Basic Proxy-Authorization', () => {
    expect(parseProxyUrl('http://proxy.internal:3128', 'X', 'default')).toEqual({ name: 'default', host: 'proxy.internal', port: 3128, display: 'proxy.internal:3128' });
    expect(parseProxyUrl('http://[::1]:8080/', 'X', 'v6')).toMatchObject({ host: '::1', port: 8080, display: '[::1]:8080' });
    expect(parseProxyUrl('http://proxy', 'X', 'p')).toMatchObject({ port: 80 });
    const withCredentials = parseProxyUrl('http://herald:p%40ss%3Aword@proxy:3128', 'X', 'p');
    expect(withCredentials.authorization).toBe(`Basic ${Buffer.from('herald:p@ss:word').toString('base64')}`);
    expect(withCredentials.display).toBe('proxy:3128');
  });

  test.each([
    ['not a url', /X is not a URL/],
    ['https://proxy:3128', /https:\/\/ proxies are not supported/],
    ['socks5://proxy:1080', /must be an http:\/\/ URL, not socks5:/],
    ['http://proxy:3128/path', /without a path, query or fragment/],
    ['http://proxy:3128/?q=1', /without a path, query or fragment/],
    ['http://proxy:3128/#f', /without a path, query or fragment/],
    ['http://proxy:99999', /X is not a URL/],
  ])('%s is refused', (text, message) => {
    expect(() => parseProxyUrl(text, 'X', 'p')).toThrow(message);
  });

  test('a refused URL is never repeated in the message (it may hold a password)', () => {
    for (const text of ['https://user:s3cret-pw@proxy:3128', 'http://user:s3cret-pw@proxy:3128/path', 'ftp://user:s3cret-pw@proxy']) {
      expect(() => parseProxyUrl(text, 'X', 'p')).toThrow(RangeError);
      try {
        parseProxyUrl(text, 'X', 'p');
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cret-pw');
      }
    }
  });
});

describe('egress proxy routes', () => {
  const proxies = createEgressProxies({ egressProxy: 'http://default-proxy:3128', egressProxies: { eu: 'http://eu-proxy:3128', 'us-east-1': 'http://us:8080' } });

  test('absent setting: the default proxy; none: direct; a name: that proxy; an unknown name: an error naming it', () => {
    expect(proxies.route(undefined)).toMatchObject({ proxy: { name: 'default', display: 'default-proxy:3128' } });
    expect(proxies.route('none')).toEqual({ proxy: undefined });
    expect(proxies.route('eu')).toMatchObject({ proxy: { name: 'eu', display: 'eu-proxy:3128' } });
    expect(proxies.route('ap')).toEqual({ unknown: 'no egress proxy named "ap" is configured on this delivery worker' });
    expect([...proxies.names]).toEqual(['none', 'eu', 'us-east-1']);
  });

  test('without a default proxy an absent setting goes direct', () => {
    expect(createEgressProxies({}).route(undefined)).toEqual({ proxy: undefined });
    expect(createEgressProxies({ egressProxy: '' }).route(undefined)).toEqual({ proxy: undefined });
  });

  test.each(['none', 'default', 'EU', '-eu', 'eu-', 'e_u', 'a'.repeat(64), ''])('"%s" is not a proxy name', (name) => {
    expect(() => createEgressProxies({ egressProxies: { [name]: 'http://p:1' } })).toThrow(/delivery.egressProxies: .* is not a proxy name/);
  });

  test('a bad named URL names its setting', () => {
    expect(() => createEgressProxies({ egressProxies: { eu: 'https://p:1' } })).toThrow(/delivery.egressProxies\["eu"\]: https/);
    expect(() => createEgressProxies({ egressProxy: 'proxy:3128' })).toThrow(/delivery.egressProxy must be an http:\/\/ URL/);
  });
});

describe('proxy failures have their own class', () => {
  test('a ProxyError is PROXY even when its cause is a refused connection', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(classifyNetworkError(new ProxyError('egress proxy 127.0.0.1:9 unreachable: ECONNREFUSED', { cause: refused }))).toBe('PROXY');
    expect(classifyNetworkError(refused)).toBe('CONNECTION_REFUSED');
  });
});
