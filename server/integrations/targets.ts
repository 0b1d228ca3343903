import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may send (docs/decisions/0132-webhook-delivery.md): never the product's own
 * network. Every address a host name resolves to is checked when connecting (the checked address is
 * the one connected to, so a second DNS answer cannot swap it), redirects are not followed, and
 * link-local addresses (the cloud metadata service among them) are refused even when the operator
 * allows private targets.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
PRIVATE.addAddress('::', 'ipv6');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('ff00::', 8, 'ipv6');

export type TargetRefusal = 'link-local' | 'private';

/** The 16 bytes of an IPv6 address (a dotted IPv4 tail read as its last four), or null. */
function ipv6Bytes(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

const dottedOf = (b: number[]) => b.join('.');
const zero = (b: number[]) => b.every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the standard forms that embed or map one:
 * IPv4-compatible (::/96), mapped (::ffff:0:0/96) and translated (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96, and 64:ff9b:1::/48 at each of RFC 6052's prefix lengths), 6to4 (2002::/16) and
 * Teredo (2001::/32: its server and its client). Empty for any other address.
 */
export function embeddedIpv4(address: string): string[] {
  const b = ipv6Bytes(address);
  if (!b) return [];
  const last = b.slice(12);
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (zero(b.slice(0, 12))) return [dottedOf(last)];
  if (zero(b.slice(0, 10)) && word(10) === 0xffff) return [dottedOf(last)];
  if (zero(b.slice(0, 8)) && word(8) === 0xffff && word(10) === 0) return [dottedOf(last)];
  if (word(0) === 0x64 && word(2) === 0xff9b && zero(b.slice(4, 12))) return [dottedOf(last)];
  if (word(0) === 0x64 && word(2) === 0xff9b && word(4) === 1) {
    // RFC 6052: the IPv4 follows the prefix, skipping bits 64 to 71.
    const at = (start: number) => [start, start + 1, start + 2, start + 3].map((i) => (i >= 8 ? i + 1 : i)).map((i) => b[i]!);
    return [dottedOf(at(6)), dottedOf(at(7)), dottedOf(at(8)), dottedOf(last)];
  }
  if (word(0) === 0x2002) return [dottedOf(b.slice(2, 6))];
  if (word(0) === 0x2001 && word(2) === 0) return [dottedOf(b.slice(4, 8)), dottedOf(last.map((x) => x ^ 0xff))];
  return [];
}

/**
 * Why an address may not be called, or null when it may. An IPv6 address that embeds or maps an
 * IPv4 address is judged by the IPv4 inside it (by the worst, when it holds two).
 */
export function refuseAddress(address: string, allowPrivate: boolean): TargetRefusal | null {
  const inside = embeddedIpv4(address);
  if (inside.length > 0) {
    const reasons = inside.map((ip) => refuseAddress(ip, allowPrivate));
    return reasons.includes('link-local') ? 'link-local' : reasons.includes('private') ? 'private' : null;
  }
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (LINK_LOCAL.check(address, family)) return 'link-local';
  if (!allowPrivate && PRIVATE.check(address, family)) return 'private';
  return null;
}

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain']);

/** Whether the URL names this machine literally. */
function namesLoopback(url: URL): boolean {
  const host = hostOf(url).toLowerCase();
  return (
    LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || (isIP(host) !== 0 && refuseAddress(host, false) === 'private' && /^(127\.|::1$)/.test(host))
  );
}

/**
 * The check of an endpoint's URL when it is saved (before any DNS lookup): https, or http to this
 * machine when private targets are allowed (development); no credentials in it; an address written
 * literally must be allowed. Answers null when it may be saved, else why not.
 */
export function refuseUrl(raw: string, allowPrivate: boolean): 'scheme' | TargetRefusal | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'scheme';
  }
  if (url.username || url.password) return 'scheme';
  if (url.protocol === 'http:') {
    if (!(allowPrivate && namesLoopback(url))) return 'scheme';
  } else if (url.protocol !== 'https:') return 'scheme';
  const host = hostOf(url);
  if (isIP(host)) return refuseAddress(host, allowPrivate);
  if (!allowPrivate && namesLoopback(url)) return 'private';
  return null;
}
