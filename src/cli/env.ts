/** Where the CLI finds the relay: the same environment the server reads. */
import { RelayClient } from '../client/relay-client.ts';
import { CliError } from './output.ts';

/** A client for RELAY_URL (default http://127.0.0.1:$PORT, PORT defaulting to 8787) with RELAY_API_KEY. */
export function clientFromEnv(env: NodeJS.ProcessEnv, relayUrl?: string): RelayClient {
  const url = relayUrl ?? env.RELAY_URL ?? `http://127.0.0.1:${env.PORT || 8787}`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new CliError(`RELAY_URL must be an http(s) URL, got "${url}"`, 2, [
      { path: 'RELAY_URL', message: 'must be an http(s) URL' },
    ]);
  return new RelayClient({ relayUrl: url, apiKey: env.RELAY_API_KEY || undefined });
}
