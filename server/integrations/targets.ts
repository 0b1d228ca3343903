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

/** Why an address may not be called, or null when it may. IPv4 written in IPv6 is checked as IPv4. */
export function refuseAddress(address: string, allowPrivate: boolean): TargetRefusal | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (LINK_LOCAL.check(ip, family)) return 'link-local';
  if (!allowPrivate && PRIVATE.check(ip, family)) return 'private';
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
