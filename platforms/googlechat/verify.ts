/**
 * Every event Google Chat sends carries `Authorization: Bearer <token>` signed by Google. Which
 * token depends on the Chat app's "Authentication Audience" (developers.google.com/workspace/chat/
 * verify-requests-from-chat):
 * - Project number: a JWT issued by chat@system.gserviceaccount.com, audience the project number,
 *   signed by that service account's keys (its JWKS).
 * - HTTP endpoint URL: a Google OIDC ID token (issuer accounts.google.com), audience the URL, for
 *   the e-mail chat@system.gserviceaccount.com (verified), signed by Google's OAuth keys.
 * Checked with jose against the configured JWKS (fetched and cached by jose), RS256 only, with a
 * small clock skew; anything else is refused.
 */
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { CHAT_ISSUER } from './config.ts';

const ID_TOKEN_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
/** How far apart Google's clock and ours may be. */
const CLOCK_SKEW_S = 60;

/** Checks event tokens for one Chat app. */
export class EventTokenVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;
  private readonly byProjectNumber: boolean;

  constructor(
    private readonly audience: string,
    certsUrl: string,
    private readonly now: () => number = Date.now,
  ) {
    this.byProjectNumber = /^\d+$/.test(audience);
    this.keys = createRemoteJWKSet(new URL(certsUrl), {
      timeoutDuration: 5_000,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
    });
  }

  /**
   * The token's claims when `authorization` is a valid `Bearer` token for this app; otherwise the
   * reason it is not (for the log: never the token).
   */
  async verify(
    authorization: string | undefined,
  ): Promise<{ ok: true; claims: JWTPayload } | { ok: false; reason: string }> {
    const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(
      authorization?.trim() ?? '',
    );
    if (!match?.[1]) return { ok: false, reason: 'no bearer token' };
    try {
      const { payload } = await jwtVerify(match[1], this.keys, {
        algorithms: ['RS256'],
        audience: this.audience,
        issuer: this.byProjectNumber ? CHAT_ISSUER : ID_TOKEN_ISSUERS,
        clockTolerance: CLOCK_SKEW_S,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'iat'],
      });
      if (!this.byProjectNumber && (payload.email !== CHAT_ISSUER || !payload.email_verified))
        return { ok: false, reason: 'the ID token is not for chat@system.gserviceaccount.com' };
      return { ok: true, claims: payload };
    } catch (err) {
      const reason =
        err instanceof errors.JOSEError ? `${err.code}: ${err.message}` : 'token check failed';
      return { ok: false, reason: reason.slice(0, 200) };
    }
  }
}
