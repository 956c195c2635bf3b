/**
 * Which service URLs the relay will call. URLs in a 202 body come from a service we did not write:
 * HTTPS only; plain HTTP only to loopback in the local default; private, link-local and metadata
 * addresses refused unless allowlisted. Checked on the literal URL at intake and again on every
 * resolved address when connecting (so DNS tricks and redirects are covered too).
 */
import { lookup } from 'node:dns/promises';
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
  ['192.0.2.0', 24], // TEST-NET-1 (documentation, never a real service)
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
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
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8],
] as const)
  privateNets.addSubnet(net, bits, 'ipv6');

/**
 * IPv6 ranges that embed or translate an IPv4 address: through a NAT64 gateway, a 6to4 or Teredo
 * relay or a SIIT translator they reach whatever IPv4 address they carry (10.0.0.1, 169.254.169.254),
 * so they are refused outright rather than judged by the IPv6 address they look like.
 */
const translatedNets = new BlockList();
const translatedNames: Array<readonly [string, number, string]> = [];
for (const [net, bits, name] of [
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['::', 96, 'IPv4-compatible'],
  ['::ffff:0:0:0', 96, 'SIIT IPv4-translated'],
  ['2002::', 16, '6to4'],
  ['2001::', 32, 'Teredo'],
] as const) {
  translatedNets.addSubnet(net, bits, 'ipv6');
  translatedNames.push([net, bits, name]);
}

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
  if (family(a) === 'ipv6' && translatedNets.check(a, 'ipv6')) {
    const hit = translatedNames.find(([net, bits]) => {
      const one = new BlockList();
      one.addSubnet(net, bits, 'ipv6');
      return one.check(a, 'ipv6');
    });
    return `${hit?.[2] ?? 'IPv4-translating'} address ${a} is not allowed (it reaches an IPv4 address)`;
  }
  return null;
}

/**
 * True for names that always mean this machine: "localhost" and anything under it (RFC 6761),
 * however written ("LocalHost.", "localhost..", "foo.localhost").
 */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.+$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** Resolves a host name to all its addresses (node:dns by default; tests pass their own). */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The intake check with the name resolved, as the connect-time check will: a name whose
 * addresses include a refused one (an /etc/hosts entry for 127.0.0.1, a DNS name for 10.0.0.1)
 * is refused now rather than only when the relay calls it. A name that does not resolve yet is
 * left to the connect-time check.
 */
export async function resolvedUrlRefusal(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolve = systemResolve,
): Promise<string | null> {
  const first = urlRefusal(raw, policy);
  if (first) return first;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || policy.allowHosts.includes(host.toLowerCase())) return null;
  let addresses: string[];
  try {
    addresses = await Promise.race([
      resolve(host),
      new Promise<string[]>((_, reject) =>
        setTimeout(() => reject(new Error('timeout')), 3000).unref(),
      ),
    ]);
  } catch {
    return null;
  }
  for (const a of addresses) {
    const why = addressRefusal(a, host, policy);
    if (why) return `resolves to a refused address: ${why}`;
  }
  return null;
}

/**
 * The intake check of a URL the relay calls later (a service's URLs, notify_url, an ask's
 * hitl_callback_url): in production (no plain-HTTP loopback) names are resolved now as they will be
 * at connect, so a name for 127.0.0.1 or 10.0.0.1 is refused at once rather than on first use; in
 * the local default only the literal rule (the connect-time check applies either way).
 */
export function intakeUrlRefusal(
  raw: string,
  policy: UrlPolicy,
  resolve?: Resolve,
): Promise<string | null> {
  return policy.allowHttpLoopback
    ? Promise.resolve(urlRefusal(raw, policy))
    : resolvedUrlRefusal(raw, policy, resolve);
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
  const literal = isIP(host) ? host : isLoopbackName(host) ? '127.0.0.1' : null;
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
