/**
 * The web chat's settings. Its two variables are validated by the core configuration (the startup
 * warnings and the startup line need them too); this module turns them into the adapter's options
 * the way every other platform's config.ts turns its environment into its config.
 */
import type { WebPushOptions } from './push.ts';

/** The environment variables behind the web chat (read and validated by the core config). */
export const WEB_ENV_VARS: readonly string[] = ['WEB_CHAT', 'WEB_CHAT_TOKEN'];

/** The web chat's part of the core configuration. */
export interface WebConfigInput {
  /** WEB_CHAT (or its default): whether the web chat runs. */
  webChat: boolean;
  /** WEB_CHAT_TOKEN. */
  webChatToken: string | undefined;
  /** The demo service is mounted. */
  demo: boolean;
  /** RELAY_API_KEY is set (then /v1/cases needs it, so the page's demo buttons cannot work). */
  apiKey: string | undefined;
  /** The URL policy (RELAY_ALLOW_HTTP_LOOPBACK, ALLOW_HOSTS): what a push may reach. */
  allowHttpLoopback: boolean;
  allowHosts: string[];
  /** PUBLIC_URL: the VAPID subject when it is https. */
  publicUrl: string | undefined;
}

/** The web chat's options, or null when it is off. */
export interface WebConfig {
  /** WEB_CHAT_TOKEN: when set, people sign in with it (a session cookie), scripts send it as Bearer. */
  token?: string | undefined;
  /** Show the "New demo case" buttons (the demo service is mounted and /v1/cases needs no key). */
  demo?: boolean;
  /** Web Push (absent: none is sent, the push routes answer 404). */
  push?: WebPushOptions;
}

/** The web chat's options from the core configuration, or null when the web chat is off. */
export function readWebConfig(config: WebConfigInput): WebConfig | null {
  if (!config.webChat) return null;
  // The page's demo buttons call /v1/cases from the browser, which works without an API key only.
  const subject = config.publicUrl?.startsWith('https://') ? config.publicUrl : undefined;
  return {
    token: config.webChatToken,
    demo: config.demo && !config.apiKey,
    push: {
      policy: { allowHttpLoopback: config.allowHttpLoopback, allowHosts: config.allowHosts },
      ...(subject && { subject }),
    },
  };
}
