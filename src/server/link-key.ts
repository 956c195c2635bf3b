/**
 * The key that signs Details links (`/r/<key>/<signature>`). A Details link redirects to the
 * review URL, so whoever can mint links can read review URLs through the relay. With
 * RELAY_SECRET_KEY the key is derived from it and never stored, so a copy of the database alone
 * mints nothing; without it (the local default) one random key is kept in the store for every
 * replica and restart.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import type { KeyValue } from '../adapter.ts';

const STORED = 'relay:link-key';

/** The Details-link signing key for this deployment. */
export async function detailsLinkKey(secretKey: string | undefined, kv: KeyValue): Promise<string> {
  if (secretKey)
    return Buffer.from(
      hkdfSync('sha256', secretKey, 'hitl-relay', 'details-links v1', 32),
    ).toString('base64url');
  await kv.setIfAbsent(STORED, randomBytes(32).toString('base64url'));
  return (await kv.get(STORED))!;
}
