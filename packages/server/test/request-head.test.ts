// The pure checks of a request's head (src/routing/request-head.ts).
import { describe, expect, it } from 'vitest';
import { contentTypeCharset, hostFieldCount, isAcceptedCharset } from '../src/routing/request-head.js';

describe('contentTypeCharset', () => {
  it.each([
    [undefined, undefined],
    ['application/json', undefined],
    ['application/json; charset=UTF-8', 'utf-8'],
    ['application/json;charset="latin1"', 'latin1'],
    ['application/json; foo=bar; Charset = utf8 ', 'utf8'],
    ['application/json; charset', undefined],
  ])('%j → %j', (contentType, charset) => {
    expect(contentTypeCharset(contentType)).toBe(charset);
  });

  it('accepts UTF-8 or no charset only', () => {
    expect([undefined, 'utf-8', 'utf8'].every(isAcceptedCharset)).toBe(true);
    expect(['latin1', 'iso-8859-1', 'utf-16', ''].some(isAcceptedCharset)).toBe(false);
  });
});

describe('hostFieldCount', () => {
  it('counts Host fields in any letter case', () => {
    expect(hostFieldCount(['Host', 'a', 'Accept', '*/*'])).toBe(1);
    expect(hostFieldCount(['Host', 'a', 'host', 'b', 'HOST', 'c'])).toBe(3);
    expect(hostFieldCount([])).toBe(0);
  });
});
