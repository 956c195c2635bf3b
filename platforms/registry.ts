/**
 * The platforms: one line each. Everything else that knows about platforms reads this list: the
 * SDK boundary (.dependency-cruiser.cjs, test/boundaries), the folder-shape test, the configuration
 * reference, the OpenAPI document and the CLI. A platform turns on when its credentials are in the
 * environment; its folder's platform.ts is loaded lazily, and its SDK only when it is configured.
 */

import type { PlatformAdapter } from '../src/adapter.ts';
import type { PlatformDefinition, RouteDocs } from '../src/adapter-definition.ts';
import type { RelayConfig } from '../src/config/config.ts';

/** One platform's line. */
export interface RegistryLine {
  /** The folder under platforms/ and the adapter's `platform`. */
  name: string;
  /**
   * The packages only this folder may import, as name prefixes ('@slack/' covers every @slack
   * package): src/ and the other platforms never import them (`npm run check`).
   */
  sdk: readonly string[];
  /** The folder's platform.ts. */
  load(): Promise<{ platform: PlatformDefinition<unknown> }>;
}

// Adding a platform: its folder, and one line here (docs/adding-a-platform.md).
export const PLATFORMS: readonly RegistryLine[] = [
  { name: 'web', sdk: [], load: () => import('./web/platform.ts') },
  { name: 'telegram', sdk: ['grammy', '@grammyjs/'], load: () => import('./telegram/platform.ts') },
  { name: 'slack', sdk: ['@slack/'], load: () => import('./slack/platform.ts') },
  {
    name: 'discord',
    sdk: ['discord.js', '@discordjs/', 'discord-interactions', 'discord-api-types'],
    load: () => import('./discord/platform.ts'),
  },
  {
    name: 'teams',
    sdk: ['botbuilder', 'botframework-', '@microsoft/', '@azure/'],
    load: () => import('./teams/platform.ts'),
  },
  { name: 'whatsapp', sdk: [], load: () => import('./whatsapp/platform.ts') },
  { name: 'googlechat', sdk: [], load: () => import('./googlechat/platform.ts') },
];

/** Every platform's definition, in the registry's order. */
async function definitions(): Promise<Array<[string, PlatformDefinition<unknown>]>> {
  return Promise.all(PLATFORMS.map(async (p) => [p.name, (await p.load()).platform] as const));
}

/** Every environment variable the platform adapters read. */
export async function platformEnvVars(): Promise<string[]> {
  return (await definitions()).flatMap(([, d]) => d.envVars);
}

/** What each platform's inbound routes are, for the OpenAPI document (keyed by platform). */
export async function platformRouteDocs(): Promise<Record<string, RouteDocs>> {
  return Object.fromEntries((await definitions()).map(([name, d]) => [name, d.routes]));
}

/** An environment that turns every platform on with its inbound routes, contacting nothing. */
export async function everyPlatformEnv(): Promise<Record<string, string>> {
  return Object.assign({}, ...(await definitions()).map(([, d]) => d.exampleEnv));
}

/** Creates the adapters configured in `env` (configs are read first, so a bad one fails before anything starts). */
export async function loadAdapters(
  env: NodeJS.ProcessEnv,
  config: RelayConfig,
): Promise<PlatformAdapter[]> {
  const configured = (await definitions()).flatMap(([, d]) => {
    const read = d.readConfig(env, config);
    return read === null ? [] : [{ d, read }];
  });
  return Promise.all(configured.map(({ d, read }) => d.create(read)));
}
