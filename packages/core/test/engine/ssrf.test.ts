import { describe, expect, test } from 'vitest';
import { parseCidr, parseIp, parseIpv6 } from '../../src/engine/ssrf/ip.js';
import { createSsrfPolicy, forbiddenCategory } from '../../src/engine/ssrf/policy.js';

function category(text: string): string | undefined {
  const address = parseIp(text);
  if (!address) throw new Error(`unparseable ${text}`);
  return forbiddenCategory(address);
}

describe('IP parsing', () => {
  test('IPv6 spellings parse to the same number', () => {
    const expected = parseIpv6('0:0:0:0:0:ffff:7f00:1');
    expect(parseIpv6('::ffff:127.0.0.1')).toBe(expected);
    expect(parseIpv6('[::FFFF:7F00:0001]')).toBe(expected);
    expect(parseIpv6('fe80::1%eth0')).toBe(parseIpv6('fe80:0:0:0:0:0:0:1'));
    expect(parseIpv6('::')).toBe(0n);
  });

  test('malformed addresses are rejected', () => {
    for (const text of ['1.2.3', '1.2.3.256', '01.2.3.4', '0x7f.0.0.1', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '::ffff:1.2.3', 'example.com', '']) {
      expect(parseIp(text), text).toBeUndefined();
    }
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('10.0.0.0/8/1')).toBeUndefined();
  });
});

describe('forbidden address categories', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
  ])('%s is %s', (address, expected) => {
    expect(category(address)).toBe(expected);
  });

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(category(address)).toBeUndefined();
  });
});

describe('SSRF policy with an allow-list', () => {
  test('forbidden by default, allowed when allow-listed', () => {
    const closed = createSsrfPolicy();
    expect(closed.check('127.0.0.1')).toEqual({ allowed: false, category: 'loopback' });
    expect(closed.check('8.8.8.8')).toEqual({ allowed: true });
    expect(closed.check('not-an-ip')).toEqual({ allowed: false, category: 'unparseable' });

    const open = createSsrfPolicy(['127.0.0.0/8', '::1']);
    expect(open.check('127.0.0.1')).toEqual({ allowed: true });
    expect(open.check('::1')).toEqual({ allowed: true });
    expect(open.check('::ffff:127.0.0.1')).toEqual({ allowed: true });
    expect(open.check('10.0.0.1')).toEqual({ allowed: false, category: 'private' });
    expect(open.check('169.254.169.254')).toEqual({ allowed: false, category: 'metadata' });
  });

  test('an invalid allow-list entry is a configuration error', () => {
    expect(() => createSsrfPolicy(['localhost'])).toThrow(/ssrfAllowList/);
  });
});
