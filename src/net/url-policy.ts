/**
 * Which service URLs the relay will call. URLs in a 202 body come from a service we did not write:
 * HTTPS only; plain HTTP only to loopback in the local default; private, link-local and metadata
 * addresses refused unless allowlisted. Checked on the literal URL at intake and again on every
 * resolved address when connecting (so DNS tricks and redirects are covered too).
 */
import { BlockList, isIP } from 'node:net';

/** The outbound policy. */
export interface UrlPolicy {
  allowHttpLoopback: boolean;
  /** Host names exempt from the private-address rule. */
  allowHosts: string[];
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const privateNets = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16], // link-local, includes the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  privateNets.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  privateNets.addSubnet(net, bits, 'ipv6');

function family(ip: string): 'ipv4' | 'ipv6' {
  return isIP(ip) === 6 ? 'ipv6' : 'ipv4';
}

/** Unwraps IPv4-mapped IPv6 (::ffff:10.0.0.1) so it is judged as the IPv4 address it is. */
function normalise(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

/** True for loopback addresses (127.0.0.0/8, ::1). */
export function isLoopback(ip: string): boolean {
  const a = normalise(ip);
  return loopback.check(a, family(a));
}

/** Why an address may not be called, or null when it may. */
export function addressRefusal(ip: string, host: string, policy: UrlPolicy): string | null {
  if (policy.allowHosts.includes(host.toLowerCase())) return null;
  const a = normalise(ip);
  if (isLoopback(a)) return policy.allowHttpLoopback ? null : 'loopback addresses are not allowed';
  if (privateNets.check(a, family(a))) return `private or link-local address ${a} is not allowed`;
  return null;
}

/** Why a service URL is refused at intake, or null when it is acceptable. */
export function urlRefusal(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) ? host : host === 'localhost' ? '127.0.0.1' : null;
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'http:') {
    if (!policy.allowHttpLoopback) return 'must be HTTPS';
    if (!literal || !isLoopback(literal))
      return 'must be HTTPS (plain HTTP is accepted for loopback only)';
    return null;
  }
  if (url.protocol !== 'https:') return 'must be HTTPS';
  return literal ? addressRefusal(literal, host, policy) : null;
}
