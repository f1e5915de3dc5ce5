import { describe, expect, test } from 'vitest';
import { classifyNetworkError } from '../../src/engine/network-errors.js';

function withCode(code: string, name = 'Error'): Error {
  return Object.assign(new Error('x'), { code, name });
}

describe('network error classes', () => {
  test.each([
    ['ECONNREFUSED', 'CONNECTION_REFUSED'],
    ['ECONNRESET', 'CONNECTION_RESET'],
    ['UND_ERR_SOCKET', 'CONNECTION_RESET'],
    ['ENOTFOUND', 'DNS'],
    ['EAI_AGAIN', 'DNS'],
    ['UND_ERR_HEADERS_TIMEOUT', 'TIMEOUT'],
    ['UND_ERR_CONNECT_TIMEOUT', 'TIMEOUT'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS'],
    ['SSRF_BLOCKED', 'SSRF_BLOCKED'],
    ['ERR_INVALID_URL', 'INVALID_URL'],
    ['SOMETHING_ELSE', 'NETWORK'],
  ])('%s → %s', (code, expected) => {
    expect(classifyNetworkError(withCode(code))).toBe(expected);
  });

  test('looks through causes and aggregate errors (happy eyeballs)', () => {
    const aggregate = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'all failed');
    expect(classifyNetworkError(new Error('fetch failed', { cause: aggregate }))).toBe('CONNECTION_REFUSED');
    expect(classifyNetworkError(new DOMException('timed out', 'TimeoutError'))).toBe('TIMEOUT');
    expect(classifyNetworkError('a string')).toBe('NETWORK');
  });
});
