/** Google Chat settings from the environment, validated; null when the platform is not configured. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { ValidationError } from '../../src/errors.ts';
import { registerSecret } from '../../src/log.ts';

/** Every environment variable the Google Chat adapter reads. */
export const GOOGLECHAT_ENV_VARS: readonly string[] = [
  'GOOGLE_CHAT_CREDENTIALS',
  'GOOGLE_CHAT_AUDIENCE',
  'GOOGLE_CHAT_API_URL',
  'GOOGLE_CHAT_TOKEN_URL',
  'GOOGLE_CHAT_CERTS_URL',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const GOOGLECHAT_ENV_DOCS: Record<string, EnvDoc> = {
  GOOGLE_CHAT_CREDENTIALS: {
    meaning:
      "the Chat app's service account key (the JSON itself, or the path of its file); setting it turns Google Chat on",
  },
  GOOGLE_CHAT_AUDIENCE: {
    meaning:
      'the "Authentication Audience" of the Chat app: its project number (digits), or its HTTP endpoint URL; every event must carry a token for it',
  },
  GOOGLE_CHAT_API_URL: { meaning: 'root of the Chat API (default `https://chat.googleapis.com`)' },
  GOOGLE_CHAT_TOKEN_URL: {
    meaning:
      "where the service account's signed assertion is exchanged for an access token (default: the key's `token_uri`)",
  },
  GOOGLE_CHAT_CERTS_URL: {
    meaning:
      "the JWKS that signs Google's event tokens (default: Google's, for the audience's kind)",
  },
};

/** The variables, validated; their meanings are GOOGLECHAT_ENV_DOCS (docs/configuration.md). */
export const GOOGLECHAT_ENV_SCHEMA = z.object({
  GOOGLE_CHAT_CREDENTIALS: z.string().min(2, 'must be a service account key (JSON) or its path'),
  GOOGLE_CHAT_AUDIENCE: z
    .string({ error: 'is required: events from Google are checked against it' })
    .regex(
      /^(\d{6,20}|https:\/\/\S+)$/,
      'must be the project number (digits) or the https:// endpoint URL',
    ),
  GOOGLE_CHAT_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .optional(),
  GOOGLE_CHAT_TOKEN_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .optional(),
  GOOGLE_CHAT_CERTS_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .optional(),
});

/** The fields of a service account key the adapter uses. */
const keySchema = z.object({
  type: z.literal('service_account', { error: 'must be "service_account"' }),
  client_email: z.email({ error: 'must be the service account e-mail' }),
  private_key: z.string().includes('PRIVATE KEY', { error: 'must be a PEM private key' }),
  private_key_id: z.string().min(1).optional(),
  token_uri: z.url({ protocol: /^https?$/ }).optional(),
});

/** A service account key (its private key is a secret). */
export type ServiceAccountKey = z.output<typeof keySchema>;

/** Who signs Google's event tokens for each kind of audience, and where its keys are. */
export const CHAT_ISSUER = 'chat@system.gserviceaccount.com';
export const PROJECT_NUMBER_CERTS = `https://www.googleapis.com/service_accounts/v1/jwk/${CHAT_ISSUER}`;
export const ID_TOKEN_CERTS = 'https://www.googleapis.com/oauth2/v3/certs';

/** How the adapter reaches the Chat API and checks Google's events. */
export interface GooglechatConfig {
  key: ServiceAccountKey;
  /** The project number, or the endpoint URL (ID tokens). */
  audience: string;
  /** Without a trailing slash. */
  apiUrl: string;
  tokenUrl: string;
  certsUrl: string;
}

/** The key from JSON text or a file; a ValidationError names what is wrong, never the key. */
export function readServiceAccountKey(value: string): ServiceAccountKey {
  let text = value.trim();
  if (!text.startsWith('{')) {
    try {
      text = readFileSync(text, 'utf8');
    } catch (err) {
      throw new ValidationError('invalid_config', 'Google Chat configuration', [
        {
          path: 'GOOGLE_CHAT_CREDENTIALS',
          message: `is not JSON and no readable file (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        },
      ]);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = keySchema.safeParse(json);
  if (!parsed.success)
    throw new ValidationError('invalid_config', 'Google Chat configuration', [
      {
        path: 'GOOGLE_CHAT_CREDENTIALS',
        message: `is not a service account key: ${parsed.error.issues
          .map((i) => `${i.path.join('.') || 'key'} ${i.message}`)
          .join('; ')}`,
      },
    ]);
  registerSecret(parsed.data.private_key);
  return parsed.data;
}

/** Reads the Google Chat settings; null when GOOGLE_CHAT_CREDENTIALS is absent. Throws ValidationError. */
export function readGooglechatConfig(env: NodeJS.ProcessEnv): GooglechatConfig | null {
  const raw = pickEnv(env, GOOGLECHAT_ENV_VARS);
  if (!raw.GOOGLE_CHAT_CREDENTIALS) return null;
  // The key may be inline: register it before anything can show it.
  registerSecret(raw.GOOGLE_CHAT_CREDENTIALS);
  const e = parseEnv(GOOGLECHAT_ENV_SCHEMA, raw, 'Google Chat configuration');
  const key = readServiceAccountKey(e.GOOGLE_CHAT_CREDENTIALS);
  const byNumber = /^\d+$/.test(e.GOOGLE_CHAT_AUDIENCE);
  return {
    key,
    audience: e.GOOGLE_CHAT_AUDIENCE,
    apiUrl: (e.GOOGLE_CHAT_API_URL ?? 'https://chat.googleapis.com').replace(/\/+$/, ''),
    tokenUrl: e.GOOGLE_CHAT_TOKEN_URL ?? key.token_uri ?? 'https://oauth2.googleapis.com/token',
    certsUrl: e.GOOGLE_CHAT_CERTS_URL ?? (byNumber ? PROJECT_NUMBER_CERTS : ID_TOKEN_CERTS),
  };
}
