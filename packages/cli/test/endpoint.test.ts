import { describe, expect, it } from 'vitest';
import { resolveEndpointUrl, withQuery } from '../src/api/endpoint.js';

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
    expect(withQuery(new URL(`${base}/x?a=1`), [['b', '2 3']]).search).toBe('?a=1&b=2%203');
    expect(withQuery(new URL(`${base}/x`), []).href).toBe(`${base}/x`);
  });
});
