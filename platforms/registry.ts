/**
 * Which platforms run: each turns on when its credentials are in the environment. Adapters are
 * imported lazily, so a platform's SDK is loaded only when that platform is configured.
 */
import type { PlatformAdapter } from '../src/adapter.ts';
import type { RelayConfig } from '../src/config/config.ts';

/** Every environment variable the platform adapters read. */
export async function platformEnvVars(): Promise<string[]> {
  return [];
}

/** Creates the adapters configured in `env`. */
export async function loadAdapters(
  env: NodeJS.ProcessEnv,
  config: RelayConfig,
): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  if (config.webChat) adapters.push((await import('./web/index.ts')).createWebAdapter());
  void env;
  return adapters;
}
