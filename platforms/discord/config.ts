/** Discord settings from the environment, validated; null when the platform is not configured. */
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { registerSecret } from '../../src/log.ts';

/** Every environment variable the Discord adapter reads. */
export const DISCORD_ENV_VARS: readonly string[] = [
  'DISCORD_TOKEN',
  'DISCORD_APPLICATION_ID',
  'DISCORD_PUBLIC_KEY',
  'DISCORD_API_URL',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const DISCORD_ENV_DOCS: Record<string, EnvDoc> = {
  DISCORD_TOKEN: { meaning: 'the bot token; setting it turns Discord on' },
  DISCORD_APPLICATION_ID: {
    meaning: 'the application id (follow-ups, command registration, invite URL)',
  },
  DISCORD_PUBLIC_KEY: {
    meaning: "the application's public key (hex): HTTP interactions mode (else the gateway)",
  },
  DISCORD_API_URL: { meaning: 'REST base without the version (default `https://discord.com/api`)' },
};

/** How interactions (button taps, `/hitl id`) reach the relay. */
export type DiscordReceiveMode = 'http' | 'gateway';

/** How the adapter reaches Discord and how interactions arrive. */
export interface DiscordConfig {
  /** The bot token from the developer portal (Bot page). A secret. */
  token: string;
  /** The application id (General Information page); needed for follow-ups and command registration. */
  applicationId: string;
  /** The application's Ed25519 public key (hex); HTTP interactions mode when set. */
  publicKey?: string;
  /** REST base without the version ("https://discord.com/api" by default; tests point it at a fake). */
  apiUrl?: string;
  /** 'http' when publicKey is set (POST /discord/interactions), otherwise 'gateway' (discord.js Client). */
  mode: DiscordReceiveMode;
}

/** Discord ids are snowflakes: unsigned 64-bit integers written as decimal strings. */
export const DISCORD_SNOWFLAKE_PATTERN = /^\d{1,20}$/;

/** The variables, validated; their meanings are DISCORD_ENV_DOCS (docs/configuration.md). */
export const DISCORD_ENV_SCHEMA = z.object({
  // A bot token is three base64url parts joined by dots; we only check its rough shape.
  DISCORD_TOKEN: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
      'must be the bot token from the Bot page',
    ),
  DISCORD_APPLICATION_ID: z
    .string({
      error: 'is required when DISCORD_TOKEN is set (General Information -> Application ID)',
    })
    .regex(DISCORD_SNOWFLAKE_PATTERN, 'must be the numeric application id'),
  DISCORD_PUBLIC_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be the 64 hex digits of the application public key')
    .optional(),
  DISCORD_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).optional(),
});

/** Reads the Discord settings; null when DISCORD_TOKEN is absent. Throws ValidationError. */
export function readDiscordConfig(env: NodeJS.ProcessEnv): DiscordConfig | null {
  const raw = pickEnv(env, DISCORD_ENV_VARS);
  if (!raw.DISCORD_TOKEN) return null;
  // Register before validating so that no later message can show it.
  registerSecret(raw.DISCORD_TOKEN);
  const v = parseEnv(DISCORD_ENV_SCHEMA, raw, 'Discord configuration');
  return {
    token: v.DISCORD_TOKEN,
    applicationId: v.DISCORD_APPLICATION_ID,
    ...(v.DISCORD_PUBLIC_KEY ? { publicKey: v.DISCORD_PUBLIC_KEY.toLowerCase() } : {}),
    ...(v.DISCORD_API_URL ? { apiUrl: v.DISCORD_API_URL.replace(/\/+$/, '') } : {}),
    mode: v.DISCORD_PUBLIC_KEY ? 'http' : 'gateway',
  };
}
