/** What `hitl-relay serve` warns about at start-up: settings that work on a laptop and fail people on a server. */
import type { RelayConfig } from '../config/config.ts';
import { NO_PLATFORM_NOTE } from '../health.ts';
import { isLocalOnly } from '../server/loopback-host.ts';
import { policiesCountingWebVotes } from './web-votes.ts';

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1|0\.0\.0\.0)$/i;
/** Listen addresses only this machine reaches (0.0.0.0 is every interface, so not one of them). */
const LOCAL_ONLY_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

/** Warnings for this configuration; `platforms` are the enabled adapters, `baseUrl` the Details links' base. */
export function startupWarnings(
  config: Pick<
    RelayConfig,
    | 'apiKey'
    | 'webChat'
    | 'webChatToken'
    | 'publicUrl'
    | 'host'
    | 'secretKey'
    | 'demo'
    | 'policies'
    | 'targetPolicies'
    | 'routes'
    | 'identities'
  >,
  platforms: string[],
  baseUrl: string,
  inContainer = false,
): string[] {
  const out: string[] = [];
  // `docker run -p 8787:8787` reaches the container's own interface, never its loopback.
  // With a key the default host is 0.0.0.0, so a loopback host there is an explicit HOST.
  if (inContainer && LOOPBACK_HOST.test(config.host) && config.host !== '0.0.0.0')
    out.push(
      config.apiKey
        ? `listening on ${config.host} inside a container, which a published port (-p) cannot reach: HOST=${config.host} is set; unset HOST (with RELAY_API_KEY the relay listens on 0.0.0.0) or set HOST=0.0.0.0 (docs/DEPLOY.md)`
        : `listening on ${config.host} inside a container, which a published port (-p) cannot reach: set RELAY_API_KEY (the relay then listens on 0.0.0.0), or HOST=0.0.0.0 on a private network (docs/DEPLOY.md)`,
    );
  // Without a key nothing asks who is calling: the app's loopback rule (isLocalOnly) then keeps
  // strangers out; on any other interface the door is open.
  if (!config.apiKey && !isLocalOnly(config))
    out.push(
      `no RELAY_API_KEY while listening on ${config.host}: /v1, /mcp and /mcp/gateway/* take requests from anyone who reaches this address, with no key (the gateway calls its upstreams with their configured headers for them); set RELAY_API_KEY, or HOST=127.0.0.1 (docs/DEPLOY.md)`,
    );
  // A server (it has an API key) keeps service tokens and review URLs in its store.
  if (config.apiKey && !config.secretKey)
    out.push(
      'no RELAY_SECRET_KEY: submit tokens, review URLs, service credentials and the receipt signing key are stored in plain JSON in the database; set RELAY_SECRET_KEY (32 random characters or more) to seal them (docs/DEPLOY.md)',
    );
  if (!platforms.length)
    out.push(
      `${NO_PLATFORM_NOTE}: configure a platform (its guide under platforms/) or set WEB_CHAT_TOKEN (WEB_CHAT=1 locally) (docs/operating.md)`,
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
  // The demo service has no key and no quota: fine on a laptop, an open door on a server.
  if (config.demo && (config.apiKey || !LOCAL_ONLY_HOST.test(config.host)))
    out.push(
      'DEMO=1 on a server: the demo HITL service at /demo is unauthenticated and unlimited, so anyone who reaches this relay can create reviews without RELAY_API_KEY and fill DATA_DIR; unset DEMO on a server (docs/operating.md)',
    );
  if (config.webChat) out.push(...webVoteWarnings(config));
  return out;
}

/** One warning per policy that one person can satisfy alone through the web chat. */
function webVoteWarnings(
  config: Parameters<typeof policiesCountingWebVotes>[0] & Pick<RelayConfig, 'webChatToken'>,
): string[] {
  const why = config.webChatToken
    ? 'WEB_CHAT_TOKEN is one shared token, not a sign-in per person, so'
    : 'the web chat has no sign-in (no WEB_CHAT_TOKEN) and';
  return policiesCountingWebVotes(config).map(
    (name) =>
      `policy "${name}" counts web chat votes, but ${why} web ids are self-declared: one person can satisfy it alone by sending two web ids; give it approvers on a chat platform (no web: ids) or keep its targets off the web chat (docs/who-may-approve.md)`,
  );
}
