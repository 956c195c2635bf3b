/** TRUST_PROXY's entries (net/trusted-proxy.ts believes forwarding headers from these alone). */
import { isIP } from 'node:net';
import { ValidationError } from '../errors.ts';

/** A comma-separated list's entries, trimmed, empty ones dropped. */
export function listOf(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** TRUST_PROXY's entries, each an IP address or a CIDR (ValidationError naming one that is not). */
export function proxyEntries(value: string): string[] {
  const entries = listOf(value);
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const max = isIP(address) === 6 ? 128 : 32;
    const prefix = bits === undefined ? max : Number(bits);
    if (
      !isIP(address) ||
      extra !== undefined ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > max
    )
      throw new ValidationError('invalid_config', 'invalid configuration', [
        {
          path: 'TRUST_PROXY',
          message: `"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`,
        },
      ]);
  }
  return entries;
}
