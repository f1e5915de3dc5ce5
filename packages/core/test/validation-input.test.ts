// Unit tests of core's input rules for subscribers: well-formed text, target URL normalization and
// repeated event patterns.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/shared/errors.js';
import { stringCheck } from '../src/validation/fields.js';
import { checkTargetUrl, normaliseSubscriberRequest, uniqueEventPatterns } from '../src/validation/subscriber-input.js';
import { isWellFormedText } from '../src/validation/text.js';

describe('well-formed text', () => {
  it('tells unpaired surrogates from pairs', () => {
    expect(isWellFormedText('plain')).toBe(true);
    expect(isWellFormedText('rocket \ud83d\ude80')).toBe(true);
    expect(isWellFormedText('\ud800')).toBe(false);
    expect(isWellFormedText('x\udc00y')).toBe(false);
    expect(isWellFormedText('\ude80\ud83d')).toBe(false);
  });

  it('stringCheck refuses ill-formed text whatever the other rules', () => {
    expect(stringCheck({ min: 1, max: 10 })('ok')).toBeUndefined();
    expect(stringCheck({ min: 1, max: 10 })('a\ud800')).toBe('must be well-formed Unicode (no unpaired surrogates)');
  });
});

describe('checkTargetUrl', () => {
  it.each([
    ['https://example.com/hooks', 'https://example.com/hooks'],
    ['HTTPS://Example.COM:443/a/./b/../c', 'https://example.com/a/c'],
    ['http://example.com', 'http://example.com/'],
    ['http://example.com:80/x?y=1', 'http://example.com/x?y=1'],
    ['http://[::1]:8080/', 'http://[::1]:8080/'],
    ['http://xn--bcher-kva.example/', 'http://xn--bcher-kva.example/'],
    ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ['https://BÜCHER.example./x', 'https://xn--bcher-kva.example/x'],
    ['https://example.com./x', 'https://example.com/x'],
    ['http://1.2.3.4./', 'http://1.2.3.4/'],
    ['http://example.com/a%20b', 'http://example.com/a%20b'],
    ['http://example.com?x', 'http://example.com/?x'],
  ])('%s → %s', (raw, url) => {
    expect(checkTargetUrl(raw)).toEqual({ ok: true, url });
  });

  it.each([
    ['http://:@127.0.0.1:1/', 'must not contain user info (user:password@)'],
    ['http://user@example.com/', 'must not contain user info (user:password@)'],
    ['https://a:b@example.com/', 'must not contain user info (user:password@)'],
    ['http:/h', 'must be an absolute http:// or https:// URL'],
    ['http:h', 'must be an absolute http:// or https:// URL'],
    ['ftp://example.com/', 'must be an absolute http:// or https:// URL'],
    ['//example.com/', 'must be an absolute http:// or https:// URL'],
    ['http:///h', 'must name a host'],
    ['http://?x', 'must name a host'],
    ['http://example.com:0/', 'must not use port 0'],
    ['http://example.com:65536/', 'must be an absolute URL with a valid host and port'],
    ['http://exa mple.com/', 'must not contain spaces or control characters'],
    ['http://example.com/\n', 'must not contain spaces or control characters'],
    ['http://example.com\\@evil.com/', 'must not contain backslashes'],
    ['http://example.com/#', 'must not have a fragment (#…)'],
    ['http://example.com/x#y', 'must not have a fragment (#…)'],
    ['http://example.com/\ud800', 'must be well-formed Unicode (no unpaired surrogates)'],
    ['http://[::1/', 'must be an absolute URL with a valid host and port'],
    ['https://example.com../x', 'must not have an empty label in its host (a..b)'],
    ['https://a..b/x', 'must not have an empty label in its host (a..b)'],
    ['https://.example.com/x', 'must not have an empty label in its host (a..b)'],
  ])('%j is refused: %s', (raw, message) => {
    expect(checkTargetUrl(raw)).toEqual({ ok: false, message });
  });

  it('the normalized URL must still fit the bound', () => {
    // WHATWG adds the "/" path: 2048 characters without it become 2049.
    const raw = `http://${'a'.repeat(2041)}`;
    expect(raw).toHaveLength(2048);
    expect(checkTargetUrl(raw)).toEqual({ ok: false, message: 'must be at most 2048 characters' });
  });
});

describe('normaliseSubscriberRequest', () => {
  it('normalizes targetUrl, keeps each pattern once, leaves the rest as it is', () => {
    const input = { displayName: 'x', targetUrl: 'HTTP://Example.com', events: ['a.b', 'a.*', 'a.b'], enabled: false };
    expect(normaliseSubscriberRequest(input)).toEqual({ displayName: 'x', targetUrl: 'http://example.com/', events: ['a.b', 'a.*'], enabled: false });
    expect(input.targetUrl).toBe('HTTP://Example.com');
    expect(normaliseSubscriberRequest({})).toEqual({});
  });

  it('throws a ValidationError naming targetUrl', () => {
    expect(() => normaliseSubscriberRequest({ targetUrl: 'http://:@h/' })).toThrow(ValidationError);
    try {
      normaliseSubscriberRequest({ targetUrl: 'http://h/#f' });
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([{ field: 'targetUrl', message: 'must not have a fragment (#…)' }]);
    }
  });

  it('uniqueEventPatterns keeps first-seen order', () => {
    expect(uniqueEventPatterns(['*', 'a.b', '*', 'c.*', 'a.b'])).toEqual(['*', 'a.b', 'c.*']);
    expect(uniqueEventPatterns([])).toEqual([]);
  });
});
