/**
 * Who a request came from. The peer address is the only fact; `X-Forwarded-For` and `Forwarded`
 * are words anyone can send. They are believed only from proxies the operator names in
 * TRUST_PROXY (addresses or CIDRs): behind those, the client is the nearest hop that is not one of
 * them (the headers are read right to left, as each proxy appends the peer it saw). From any other
 * peer they are ignored, so a forged header cannot lift a per-client limit.
 */
import { BlockList, isIP } from 'node:net';

/** The proxies whose forwarding headers are believed. */
export interface TrustedProxies {
  has(address: string): boolean;
}

const NONE: TrustedProxies = { has: () => false };

/** `::ffff:10.0.0.1` is 10.0.0.1 (a dual-stack socket's IPv4 peer). */
function plain(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/**
 * Parses TRUST_PROXY: comma-separated addresses or CIDRs (`10.0.0.0/8, ::1`); empty trusts none.
 * Throws naming the entry that is neither.
 */
export function parseTrustedProxies(value: string): TrustedProxies {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!entries.length) return NONE;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max)
      throw new Error(`"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, 127.0.0.1, ::1)`);
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return {
    has(a) {
      const ip = plain(a);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/** The `for=` hops of a Forwarded header (RFC 7239), in order; quoted, bracketed, ports dropped. */
function forwardedFor(header: string): string[] {
  const hops: string[] = [];
  for (const element of header.split(','))
    for (const pair of element.split(';')) {
      const [k, v] = pair.split('=');
      if (k?.trim().toLowerCase() !== 'for' || v === undefined) continue;
      const raw = v.trim().replace(/^"|"$/g, '');
      const bracketed = /^\[([^\]]+)\]/.exec(raw);
      hops.push(bracketed ? bracketed[1]! : raw.replace(/:\d+$/, ''));
    }
  return hops;
}

/** The forwarded hops, nearest client first: Forwarded's when sent, else X-Forwarded-For's. */
function hopsOf(headers: Record<string, string>): string[] {
  if (headers.forwarded) return forwardedFor(headers.forwarded);
  return (headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The client's address: the peer, unless the peer is a trusted proxy; then the nearest forwarded
 * hop that is not a trusted proxy (an unparsable hop ends the walk: it is taken as the client).
 */
export function clientAddress(
  peer: string | undefined,
  headers: Record<string, string>,
  trusted: TrustedProxies,
): string | undefined {
  if (!peer || !trusted.has(peer)) return peer;
  let client = peer;
  const hops = hopsOf(headers);
  for (let i = hops.length - 1; i >= 0; i--) {
    client = hops[i]!.slice(0, 64);
    if (!trusted.has(client)) break;
  }
  return client;
}
