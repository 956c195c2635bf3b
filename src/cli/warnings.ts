/** What `hitl-relay serve` warns about at start-up: settings that work on a laptop and fail people on a server. */
import type { RelayConfig } from '../config/config.ts';

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1|0\.0\.0\.0)$/i;

/** Warnings for this configuration; `platforms` are the enabled adapters, `baseUrl` the Details links' base. */
export function startupWarnings(
  config: Pick<RelayConfig, 'apiKey' | 'webChat' | 'webChatToken' | 'publicUrl' | 'host'>,
  platforms: string[],
  baseUrl: string,
  inContainer = false,
): string[] {
  const out: string[] = [];
  // `docker run -p 8787:8787` reaches the container's own interface, never its loopback.
  if (inContainer && LOOPBACK_HOST.test(config.host) && config.host !== '0.0.0.0')
    out.push(
      `listening on ${config.host} inside a container, which a published port (-p) cannot reach: set RELAY_API_KEY (the relay then listens on 0.0.0.0), or HOST=0.0.0.0 on a private network (docs/DEPLOY.md)`,
    );
  const chats = platforms.filter((p) => p !== 'web');
  if (chats.length && LOOPBACK_HOST.test(new URL(baseUrl).hostname))
    out.push(
      `Details links on ${chats.join(', ')} cards point at ${baseUrl}, which people's phones cannot open: set PUBLIC_URL to the relay's public https address (docs/DEPLOY.md)`,
    );
  if (config.apiKey && config.webChat && !config.webChatToken)
    out.push(
      'the web chat is on without sign-in (WEB_CHAT=1, no WEB_CHAT_TOKEN): anyone who reaches this relay can decide cases; set WEB_CHAT_TOKEN (docs/DEPLOY.md)',
    );
  return out;
}
