/** WhatsApp settings from the environment, validated; null when the platform is not configured. */
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { registerSecret } from '../../src/log.ts';

/** Every environment variable the WhatsApp adapter reads. */
export const WHATSAPP_ENV_VARS: readonly string[] = [
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'WHATSAPP_TEMPLATES',
  'WHATSAPP_GRAPH_URL',
  'WHATSAPP_GRAPH_VERSION',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const WHATSAPP_ENV_DOCS: Record<string, EnvDoc> = {
  WHATSAPP_ACCESS_TOKEN: {
    meaning:
      "a system user's access token with `whatsapp_business_messaging`; setting it turns WhatsApp on",
  },
  WHATSAPP_APP_SECRET: {
    meaning: "the Meta app's secret: every webhook POST must carry its `X-Hub-Signature-256`",
  },
  WHATSAPP_VERIFY_TOKEN: {
    meaning: 'the verify token you type into the webhook settings (the `hub.challenge` handshake)',
  },
  WHATSAPP_TEMPLATES: {
    meaning:
      'JSON: approved templates per review type, for cards outside the 24-hour window (platforms/whatsapp/README.md)',
  },
  WHATSAPP_GRAPH_URL: { meaning: 'root of the Graph API (default `https://graph.facebook.com`)' },
  WHATSAPP_GRAPH_VERSION: { meaning: 'the Graph API version in request paths (default `v23.0`)' },
};

/** The card fields a template's body variables ({{1}}, {{2}}, ...) are filled with, in order. */
export const TEMPLATE_FIELDS = ['title', 'prompt', 'status', 'link'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/** An approved message template for one review type (see platforms/whatsapp/README.md). */
export interface WhatsAppTemplate {
  /** The template's name as approved in WhatsApp Manager. */
  name: string;
  /** Its language code ("en", "en_US", ...). */
  language: string;
  /** What fills each body variable, in order. */
  body: TemplateField[];
  /** The protocol action each quick-reply button carries, in the buttons' order. */
  buttons: string[];
}

const templateSchema = z.object({
  name: z.string().regex(/^[a-z0-9_]{1,512}$/, 'must be lower case letters, digits and _'),
  language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'must be a code like "en" or "en_US"'),
  body: z.array(z.enum(TEMPLATE_FIELDS)).max(10).default([]),
  buttons: z
    .array(z.string().regex(/^[a-z_]{1,32}$/, 'must be a protocol action name'))
    .max(10, 'WhatsApp allows at most 10 quick-reply buttons')
    .default([]),
});

const templatesSchema = z.record(
  z.string().regex(/^[a-z_]{1,32}$/, 'keys are review types (approval, confirmation, ...)'),
  templateSchema,
);

/** The variables, validated; their meanings are WHATSAPP_ENV_DOCS (docs/configuration.md). */
export const WHATSAPP_ENV_SCHEMA = z.object({
  WHATSAPP_ACCESS_TOKEN: z.string().regex(/^\S{16,}$/, 'must be an access token (no spaces)'),
  WHATSAPP_APP_SECRET: z
    .string({ error: 'is required: webhooks are checked with it' })
    .regex(/^\S{8,}$/, 'must be the app secret (no spaces)'),
  WHATSAPP_VERIFY_TOKEN: z
    .string({ error: 'is required: the webhook handshake echoes it' })
    .regex(/^\S{8,256}$/, 'must be 8-256 characters without spaces'),
  WHATSAPP_TEMPLATES: z.string().optional(),
  WHATSAPP_GRAPH_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s):// URL' })
    .optional(),
  WHATSAPP_GRAPH_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, 'must look like "v23.0"')
    .optional(),
});

/** How the adapter reaches the Graph API and checks its webhooks. */
export interface WhatsAppConfig {
  /** A secret. */
  accessToken: string;
  /** A secret: the HMAC key of X-Hub-Signature-256. */
  appSecret: string;
  /** A secret: echoed in the subscription handshake. */
  verifyToken: string;
  /** Templates per review type ("approval", ...) for business-initiated cards. */
  templates: Record<string, WhatsAppTemplate>;
  /** Without a trailing slash. */
  graphUrl: string;
  graphVersion: string;
}

/** Parses WHATSAPP_TEMPLATES; a ValidationError names the key that is wrong. */
export function parseTemplates(text: string | undefined): Record<string, WhatsAppTemplate> {
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = Symbol('not JSON');
  }
  const parsed = parseEnv(
    z.object({ WHATSAPP_TEMPLATES: templatesSchema }),
    { WHATSAPP_TEMPLATES: json } as unknown as Record<string, string>,
    'WhatsApp configuration',
  );
  return parsed.WHATSAPP_TEMPLATES;
}

/** Reads the WhatsApp settings; null when WHATSAPP_ACCESS_TOKEN is absent. Throws ValidationError. */
export function readWhatsappConfig(env: NodeJS.ProcessEnv): WhatsAppConfig | null {
  const raw = pickEnv(env, WHATSAPP_ENV_VARS);
  if (!raw.WHATSAPP_ACCESS_TOKEN) return null;
  // Register before validating so that no later message can show them.
  registerSecret(raw.WHATSAPP_ACCESS_TOKEN);
  registerSecret(raw.WHATSAPP_APP_SECRET);
  registerSecret(raw.WHATSAPP_VERIFY_TOKEN);
  const env2 = parseEnv(WHATSAPP_ENV_SCHEMA, raw, 'WhatsApp configuration');
  return {
    accessToken: env2.WHATSAPP_ACCESS_TOKEN,
    appSecret: env2.WHATSAPP_APP_SECRET,
    verifyToken: env2.WHATSAPP_VERIFY_TOKEN,
    templates: parseTemplates(env2.WHATSAPP_TEMPLATES),
    graphUrl: (env2.WHATSAPP_GRAPH_URL ?? 'https://graph.facebook.com').replace(/\/+$/, ''),
    graphVersion: env2.WHATSAPP_GRAPH_VERSION ?? 'v23.0',
  };
}
