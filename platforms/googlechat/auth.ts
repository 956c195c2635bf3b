/**
 * The Chat app's access token: the service account signs a JWT assertion (RS256, `kid` = the key's
 * id, scope `chat.bot`, audience the token endpoint, one hour) and exchanges it at the token
 * endpoint with the JWT-bearer grant (RFC 7523), as Google's own libraries do. The token is kept
 * until five minutes before it expires; concurrent callers share one exchange. Neither the key nor
 * the token is ever logged.
 */
import { importPKCS8, SignJWT } from 'jose';
import { request } from 'undici';
import { registerSecret } from '../../src/log.ts';
import type { ServiceAccountKey } from './config.ts';
import { ChatApiError, chatApiError } from './errors.ts';

export const CHAT_BOT_SCOPE = 'https://www.googleapis.com/auth/chat.bot';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before it expires. */
const EARLY_MS = 5 * 60 * 1000;

interface TokenAnswer {
  access_token?: string;
  expires_in?: number;
  token_type?: string;
}

/** Hands out the app's bearer token for the Chat API. */
export class ServiceAccountToken {
  private token: { value: string; until: number } | null = null;
  private pending: Promise<string> | null = null;
  private signingKey: Promise<CryptoKey> | null = null;

  constructor(
    private readonly key: ServiceAccountKey,
    private readonly tokenUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid access token (exchanged now when there is none). Throws ChatApiError. */
  async get(): Promise<string> {
    if (this.token && this.now() < this.token.until) return this.token.value;
    this.pending ??= this.exchange().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Drops the token (the API answered 401): the next call exchanges a new one. */
  invalidate(): void {
    this.token = null;
  }

  /** The signed assertion for one exchange. */
  async assertion(): Promise<string> {
    this.signingKey ??= importPKCS8(this.key.private_key, 'RS256');
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ scope: CHAT_BOT_SCOPE })
      .setProtectedHeader({
        alg: 'RS256',
        typ: 'JWT',
        ...(this.key.private_key_id ? { kid: this.key.private_key_id } : {}),
      })
      .setIssuer(this.key.client_email)
      .setAudience(this.tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await this.signingKey);
  }

  private async exchange(): Promise<string> {
    const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.assertion() });
    const res = await request(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw chatApiError(res.statusCode, text, 'token');
    let answer: TokenAnswer;
    try {
      answer = JSON.parse(text) as TokenAnswer;
    } catch {
      throw new ChatApiError(res.statusCode, 'INVALID', 'the token answer was not JSON');
    }
    const value = answer.access_token;
    if (typeof value !== 'string' || !value)
      throw new ChatApiError(res.statusCode, 'INVALID', 'the token answer had no access_token');
    registerSecret(value);
    const life = (Number(answer.expires_in) || 3600) * 1000;
    this.token = { value, until: this.now() + Math.max(life - EARLY_MS, life / 2) };
    return value;
  }
}
