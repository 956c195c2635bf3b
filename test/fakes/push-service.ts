/**
 * A fake Web Push service on loopback, speaking the real wire format: it accepts a push only with a
 * valid VAPID JWT (RFC 8292: `Authorization: vapid t=<jwt>, k=<P-256 public key>`, ES256 signed by
 * that key, `aud` the endpoint's origin, `exp` in the future and within 24 hours) and decrypts the
 * RFC 8291 aes128gcm body with the subscription's private key, made here the way a browser makes
 * it (ECDH P-256 + a 16-byte auth secret). Decrypting it is what proves the encryption is real.
 */
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One subscription as a browser holds it: its private half stays here. */
export interface FakeSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** One push the service accepted, decrypted. */
export interface ReceivedPush {
  id: string;
  plaintext: string;
  claims: { aud: string; exp: number; sub: string };
  headers: Record<string, string | string[] | undefined>;
}

const b64 = (b: Buffer) => b.toString('base64url');

/** Decrypts one aes128gcm body (RFC 8188 framing, RFC 8291 keys). */
export function decryptAes128gcm(
  body: Buffer,
  uaPrivate: Buffer,
  uaPublic: Buffer,
  authSecret: Buffer,
): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const shared = ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: aes128gcm\0', 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: nonce\0', 12));
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    d.update(ciphertext.subarray(0, ciphertext.length - 16)),
    d.final(),
  ]);
  let end = padded.length;
  while (end > 0 && padded[end - 1] === 0) end--;
  if (padded[end - 1] !== 2) throw new Error('not the last record (no 0x02 delimiter)');
  return padded.subarray(0, end - 1).toString('utf8');
}

/** Checks the VAPID header; returns its claims or throws what is wrong. */
export function checkVapid(header: string | undefined, origin: string): ReceivedPush['claims'] {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`no vapid Authorization header: ${header}`);
  const [h, p, s] = m[1]!.split('.');
  const raw = Buffer.from(m[2]!, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not a P-256 public key');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64(raw.subarray(1, 33)), y: b64(raw.subarray(33)) },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(s!, 'base64url'),
  );
  if (!ok) throw new Error('the VAPID JWT signature does not verify with k');
  if (JSON.parse(Buffer.from(h!, 'base64url').toString()).alg !== 'ES256')
    throw new Error('not ES256');
  const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
  const now = Date.now() / 1000;
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Error('exp out of range');
  if (typeof claims.sub !== 'string') throw new Error('no sub');
  return claims;
}

/** The fake push service. */
export interface FakePushService {
  origin: string;
  /** A new subscription the way a browser makes one (its private key kept by the fake). */
  subscribe(): FakeSubscription;
  /** Pushes accepted so far. */
  received: ReceivedPush[];
  /** Pushes refused (bad VAPID, undecryptable), with why. */
  refused: string[];
  /** Answers this subscription's pushes with `status` from now on (410: gone). */
  answer(endpoint: string, status: number): void;
  stop(): Promise<void>;
}

/** Starts the fake on 127.0.0.1. */
export async function startFakePushService(): Promise<FakePushService> {
  const subs = new Map<string, { priv: Buffer; pub: Buffer; auth: Buffer; status: number }>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const sub = subs.get(id);
      if (req.method !== 'POST' || !sub) return void res.writeHead(404).end();
      try {
        const claims = checkVapid(req.headers.authorization, origin);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        if (!req.headers.ttl) throw new Error('no TTL');
        const plaintext = decryptAes128gcm(Buffer.concat(chunks), sub.priv, sub.pub, sub.auth);
        if (sub.status >= 300) return void res.writeHead(sub.status).end();
        received.push({ id, plaintext, claims, headers: req.headers });
        res.writeHead(201).end();
      } catch (err) {
        refused.push((err as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    refused,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      const pub = ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = b64(randomBytes(12));
      subs.set(id, { priv: ecdh.getPrivateKey(), pub, auth, status: 201 });
      return { endpoint: `${origin}/push/${id}`, keys: { p256dh: b64(pub), auth: b64(auth) } };
    },
    answer(endpoint, status) {
      const s = subs.get(endpoint.split('/').pop()!);
      if (s) s.status = status;
    },
    stop: () => new Promise((r) => server.close(() => r())),
  };
}
