/**
 * A fake Bot Framework token issuer on 127.0.0.1: the OpenID configuration document and its JWKS
 * (one RSA key, endorsed for `msteams`) that botbuilder downloads to check the JWT on each
 * activity, and tokens signed as the Bot Connector signs them (RS256, iss https://api.botframework.com,
 * aud = the bot's app id, serviceurl claim). It can answer 500 to model the key download failing.
 */
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const ISSUER = 'https://api.botframework.com';

function b64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** Signs `claims` as an RS256 JWT with `key`, naming `kid` in its header. */
export function signJwt(claims: Record<string, unknown>, key: KeyObject, kid: string): string {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid, x5t: kid }));
  const body = b64url(JSON.stringify(claims));
  const signer = createSign('RSA-SHA256');
  signer.update(`${head}.${body}`);
  return `${head}.${body}.${b64url(signer.sign(key))}`;
}

/** A new RSA private key (for forged tokens). */
export function newSigningKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

export class FakeTeamsIssuer {
  readonly kid = 'fake-bot-framework-key-1';
  readonly key = newSigningKey();
  /** Requests served (metadata and keys). */
  served = 0;
  /** When true, every request answers 500. */
  failing = false;
  private server: Server | null = null;
  private base = '';

  static async start(): Promise<FakeTeamsIssuer> {
    const fake = new FakeTeamsIssuer();
    const jwk = fake.key.export({ format: 'jwk' }) as { n: string; e: string };
    const server = createServer((req, res) => {
      fake.served++;
      if (fake.failing) {
        res.writeHead(500).end();
        return;
      }
      const body =
        req.url === '/keys'
          ? {
              keys: [
                {
                  kty: 'RSA',
                  use: 'sig',
                  kid: fake.kid,
                  n: jwk.n,
                  e: jwk.e,
                  endorsements: ['msteams'],
                },
              ],
            }
          : {
              issuer: ISSUER,
              jwks_uri: `${fake.base}/keys`,
              id_token_signing_alg_values_supported: ['RS256'],
            };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Pass as the adapter's tuning.openIdMetadataUrl. */
  get metadataUrl(): string {
    return `${this.base}/.well-known/openidconfiguration`;
  }

  /** The claims the Bot Connector puts in a token for `appId` and `serviceUrl`, valid for an hour. */
  claims(appId: string, serviceUrl: string): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: ISSUER,
      aud: appId,
      serviceurl: serviceUrl,
      nbf: now - 60,
      iat: now - 60,
      exp: now + 3600,
    };
  }

  /** A genuine token (signed with the published key). */
  token(appId: string, serviceUrl: string, extra: Record<string, unknown> = {}): string {
    return signJwt({ ...this.claims(appId, serviceUrl), ...extra }, this.key, this.kid);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
