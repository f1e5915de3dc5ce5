// IP address and CIDR parsing to integers, so range checks are exact arithmetic rather than
// string matching (which IPv6's many spellings and IPv4-mapped forms would defeat).

export type IpAddress = { family: 4; value: bigint } | { family: 6; value: bigint };

export interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

export function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Strict dotted-decimal: no octal ("010") or hex forms, which resolvers read differently.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

export function parseIpv6(input: string): bigint | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);

  // An embedded IPv4 tail (::ffff:1.2.3.4) is rewritten as its two hextets.
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }

  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): bigint[] | undefined => {
    if (part === '') return [];
    const out: bigint[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      out.push(BigInt(`0x${group}`));
    }
    return out;
  };
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  const explicit = head.length + tail.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return undefined;
  const groups = [...head, ...new Array<bigint>(8 - explicit).fill(0n), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | group, 0n);
}

export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIpv6(text);
  if (v6 !== undefined) return { family: 6, value: v6 };
  return undefined;
}

export function parseCidr(text: string): Cidr | undefined {
  const [addressText, prefixText, ...extra] = text.trim().split('/');
  if (addressText === undefined || extra.length > 0) return undefined;
  const address = parseIp(addressText);
  if (!address) return undefined;
  const bits = address.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  return { family: address.family, network: address.value & mask(prefix, bits), prefix };
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  const bits = cidr.family === 4 ? 32 : 128;
  return (address.value & mask(cidr.prefix, bits)) === cidr.network;
}

function mask(prefix: number, bits: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return prefix === 0 ? 0n : (all >> BigInt(bits - prefix)) << BigInt(bits - prefix);
}
