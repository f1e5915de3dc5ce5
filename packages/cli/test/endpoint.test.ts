import { describe, expect, it } from 'vitest';
import { encodePathSegment, RequestUrl, resolveEndpointUrl, withQuery } from '../src/http/endpoint.js';

const base = 'https://herald.example.com';

describe('resolveEndpointUrl', () => {
  it.each([
    ['/orgs', '/api/v1/orgs'],
    ['orgs', '/api/v1/orgs'],
    ['/api/v1/orgs', '/api/v1/orgs'],
    ['api/v1/orgs', '/api/v1/orgs'],
    ['/api/v0.9/webhook-subscribers', '/api/v0.9/webhook-subscribers'],
    ['/api/v2', '/api/v2'],
    ['/orgs?limit=1', '/api/v1/orgs?limit=1'],
    ['/apiary', '/api/v1/apiary'],
    ['/', '/api/v1'],
  ])('%s → %s', (endpoint, path) => {
    const url = resolveEndpointUrl(base, endpoint);
    expect(url.origin).toBe(base);
    expect(url.pathname + url.search).toBe(path);
  });

  it('keeps a path prefix of the instance URL', () => {
    expect(resolveEndpointUrl('http://host:8080/herald/', '/orgs').href).toBe('http://host:8080/herald/api/v1/orgs');
  });

  it('accepts a full URL on the same origin and refuses another origin', () => {
    expect(resolveEndpointUrl(base, `${base}/api/v1/orgs`).pathname).toBe('/api/v1/orgs');
    expect(() => resolveEndpointUrl(base, 'https://evil.example.com/api/v1/orgs')).toThrow('is not the current instance');
    expect(() => resolveEndpointUrl(base, 'http://herald.example.com/api/v1/orgs')).toThrow('is not the current instance');
  });

  it('appends query pairs after an existing query', () => {
    expect(withQuery(new RequestUrl(base, '/x', '?a=1'), [['b', '2 3']]).search).toBe('?a=1&b=2%203');
    expect(withQuery(new RequestUrl(base, '/x'), []).href).toBe(`${base}/x`);
  });

  it('percent-encodes the path as a URL parser would, and drops a fragment', () => {
    const url = resolveEndpointUrl(base, '/orgs/a b/é"x"?q=a b#frag');
    expect(url.pathname + url.search).toBe('/api/v1/orgs/a%20b/%C3%A9%22x%22?q=a%20b');
  });

  it('resolves "." and ".." segments (also percent-encoded) inside the API base', () => {
    const path = (endpoint: string) => resolveEndpointUrl(base, endpoint).pathname;
    expect(path('/orgs/a/../b/./c')).toBe('/api/v1/orgs/b/c');
    expect(path('/orgs/a/%2e%2E/b')).toBe('/api/v1/orgs/b');
    expect(path('/orgs/a/..')).toBe('/api/v1/orgs/');
    expect(path('/orgs/..')).toBe('/api/v1/');
    expect(path('/orgs/...')).toBe('/api/v1/orgs/...');
  });

  it.each([
    ['/..', '/api/v1'],
    ['/../../x', '/api/v1'],
    ['/orgs/%2E%2E/%2e%2e/x', '/api/v1'],
    ['/api/v0.9/../v1/orgs', '/api/v0.9'],
    ['/orgs\\..\\..', '/api/v1'],
    [`${base}/api/v2/../../x`, '/api/v2'],
    [`${base}/../x`, '/'],
  ])('refuses %s: it leaves the API base %s', (endpoint, apiBase) => {
    expect(() => resolveEndpointUrl(base, endpoint)).toThrow(`leaves the API base ${apiBase}`);
  });

  it('measures the API base under a path prefix of the instance URL', () => {
    expect(() => resolveEndpointUrl('http://host/herald', '/orgs/../..')).toThrow('leaves the API base /herald/api/v1');
  });

  it('refuses control characters in the endpoint', () => {
    expect(() => resolveEndpointUrl(base, '/orgs\t/x')).toThrow('invalid endpoint "/orgs\\t/x": it contains a control character');
  });

  it('fills placeholders after resolving, so a value ".." stays data', () => {
    const url = resolveEndpointUrl(base, '/orgs/{org}/x?o={org}', { fill: (text) => text.replaceAll('{org}', encodePathSegment('..')) });
    expect(url.pathname + url.search).toBe('/api/v1/orgs/%2E%2E/x?o=%2E%2E');
  });

  it('keeps every segment of a command-built path as data', () => {
    expect(resolveEndpointUrl(base, '/api/v0.9/webhook-events/%2E%2E/redeliver', { dotSegments: 'literal' }).pathname).toBe('/api/v0.9/webhook-events/%2E%2E/redeliver');
    expect(resolveEndpointUrl(base, '/api/v0.9/webhook-events/../x', { dotSegments: 'literal' }).pathname).toBe('/api/v0.9/webhook-events/%2E%2E/x');
  });
});

describe('encodePathSegment', () => {
  it('escapes "." and ".." completely and everything else as a URI component', () => {
    expect(['.', '..', '...', 'a.b', 'a/b', 'a b'].map(encodePathSegment)).toStrictEqual(['%2E', '%2E%2E', '...', 'a.b', 'a%2Fb', 'a%20b']);
  });
});
