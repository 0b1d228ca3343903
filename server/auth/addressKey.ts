import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address a sign-in attempt is counted against. An IPv4 address counts as itself (an
 * IPv4-mapped IPv6 address as its IPv4 address); an IPv6 address counts as its /64 network, since
 * one subscriber usually holds a whole /64 and could otherwise give every guess its own address.
 */
export function addressKey(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(bare)) return ip;
  const groups = ipv6Groups(bare);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(ip: string): string[] {
  const toGroups = (part: string): string[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [g];
          // An embedded IPv4 address fills the last two groups.
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [head = '', tail] = ip.split('::');
  const left = toGroups(head);
  const right = tail === undefined ? [] : toGroups(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}
