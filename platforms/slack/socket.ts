/**
 * Socket Mode wiring: Bolt's SocketModeReceiver (@slack/socket-mode) opens its WebSocket at the URL
 * `apps.connections.open` returns, asked with the app-level token on the same Web API base as
 * every other call (so a test's fake API hands out a loopback ws:// URL). The client reconnects by
 * itself after a `disconnect` message or a dropped socket; envelopes Slack sends again after a
 * reconnect are de-duplicated by the adapter (see SLACK_INTERACTION_TTL_MS).
 */
import { SocketModeReceiver } from '@slack/bolt';
import type { Logger as SlackLogger } from '@slack/web-api';

/** Socket Mode knobs; production uses the SDK's defaults. */
export interface SlackSocketOptions {
  /**
   * How long the client waits for a pong, and so the base of its reconnect delay (the SDK waits
   * this times the number of failed attempts in a row). Default 5 s.
   */
  reconnectDelayMs?: number;
}

/** The Socket Mode receiver for an app-level token ("xapp-..."). */
export function createSocketReceiver(args: {
  appToken: string;
  apiUrl?: string;
  logger: SlackLogger;
  options?: SlackSocketOptions;
}): SocketModeReceiver {
  return new SocketModeReceiver({
    appToken: args.appToken,
    logger: args.logger,
    ...(args.options?.reconnectDelayMs !== undefined
      ? { clientPingTimeout: args.options.reconnectDelayMs }
      : {}),
    // apps.connections.open goes to the configured Web API base, like every other call.
    ...(args.apiUrl ? { installerOptions: { clientOptions: { slackApiUrl: args.apiUrl } } } : {}),
  });
}
