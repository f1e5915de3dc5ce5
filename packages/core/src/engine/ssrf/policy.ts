// Which addresses a delivery may connect to (DECISIONS §7 SSRF guard). Pure: the connector
// (http/guarded-connector.ts) applies it to every address DNS returns, at connect time.
import { cidrContains, parseCidr, parseIp, type Cidr, type IpAddress } from './ip.js';

export type ForbiddenCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'metadata'
  | 'reserved'
  | 'unparseable';

function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`bad built-in CIDR ${text}`);
  return parsed;
}

// Most specific first: the metadata addresses sit inside link-local / unique-local ranges.
const FORBIDDEN: ReadonlyArray<readonly [Cidr, ForbiddenCategory]> = [
  [cidr('169.254.169.254/32'), 'metadata'],
  [cidr('fd00:ec2::254/128'), 'metadata'],
  [cidr('0.0.0.0/8'), 'unspecified'],
  [cidr('10.0.0.0/8'), 'private'],
  [cidr('100.64.0.0/10'), 'cgnat'],
  [cidr('127.0.0.0/8'), 'loopback'],
  [cidr('169.254.0.0/16'), 'link-local'],
  [cidr('172.16.0.0/12'), 'private'],
  [cidr('192.0.0.0/24'), 'reserved'],
  [cidr('192.0.2.0/24'), 'reserved'],
  [cidr('192.168.0.0/16'), 'private'],
  [cidr('198.18.0.0/15'), 'reserved'],
  [cidr('198.51.100.0/24'), 'reserved'],
  [cidr('203.0.113.0/24'), 'reserved'],
  [cidr('224.0.0.0/4'), 'multicast'],
  [cidr('240.0.0.0/4'), 'reserved'], // includes 255.255.255.255 broadcast
  [cidr('::/128'), 'unspecified'],
  [cidr('::1/128'), 'loopback'],
  [cidr('100::/64'), 'reserved'],
  [cidr('2001:db8::/32'), 'reserved'],
  [cidr('fc00::/7'), 'private'],
  [cidr('fe80::/10'), 'link-local'],
  [cidr('fec0::/10'), 'link-local'], // deprecated site-local
  [cidr('ff00::/8'), 'multicast'],
];

// IPv6 ranges that carry an IPv4 address which is what the packets really reach.
const MAPPED = cidr('::ffff:0:0/96');
const NAT64 = cidr('64:ff9b::/96');
const COMPATIBLE = cidr('::/96'); // deprecated IPv4-compatible ::a.b.c.d
const SIX_TO_FOUR = cidr('2002::/16');

/** The IPv4 address an IPv6 address stands for, if it embeds one. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 6) return undefined;
  if (cidrContains(MAPPED, address) || cidrContains(NAT64, address) || (cidrContains(COMPATIBLE, address) && address.value > 1n)) {
    return { family: 4, value: address.value & 0xffffffffn };
  }
  if (cidrContains(SIX_TO_FOUR, address)) return { family: 4, value: (address.value >> 80n) & 0xffffffffn };
  return undefined;
}

/** Undefined for a public address, else why it is forbidden. */
export function forbiddenCategory(address: IpAddress): ForbiddenCategory | undefined {
  const v4 = embeddedIpv4(address);
  if (v4) return forbiddenCategory(v4);
  return FORBIDDEN.find(([range]) => cidrContains(range, address))?.[1];
}

export type AddressVerdict = { allowed: true } | { allowed: false; category: ForbiddenCategory };

export interface SsrfPolicy {
  check(addressText: string): AddressVerdict;
}

/** `allowList`: CIDRs (or single addresses) exempt from the guard, e.g. ['127.0.0.0/8', '::1']. */
export function createSsrfPolicy(allowList: readonly string[] = []): SsrfPolicy {
  const allowed = allowList.map((text) => {
    const parsed = parseCidr(text);
    if (!parsed) throw new RangeError(`ssrfAllowList: "${text}" is not an IP address or CIDR`);
    return parsed;
  });
  const isAllowListed = (address: IpAddress): boolean => allowed.some((range) => cidrContains(range, address));
  return {
    check(addressText) {
      const address = parseIp(addressText);
      if (!address) return { allowed: false, category: 'unparseable' };
      const v4 = embeddedIpv4(address);
      if (isAllowListed(address) || (v4 && isAllowListed(v4))) return { allowed: true };
      const category = forbiddenCategory(address);
      return category ? { allowed: false, category } : { allowed: true };
    },
  };
}
