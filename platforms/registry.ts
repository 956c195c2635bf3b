/**
 * Which platforms run: each turns on when its credentials are in the environment. Adapters are
 * imported lazily, so a platform's SDK is loaded only when that platform is configured.
 */
import type { PlatformAdapter } from '../src/adapter.ts';
import type { RelayConfig } from '../src/config/config.ts';

/** Every environment variable the platform adapters read. */
export async function platformEnvVars(): Promise<string[]> {
  const [t, s, d, m, w] = await Promise.all([
    import('./telegram/config.ts'),
    import('./slack/config.ts'),
    import('./discord/config.ts'),
    import('./teams/config.ts'),
    import('./web/config.ts'),
  ]);
  return [
    ...t.TELEGRAM_ENV_VARS,
    ...s.SLACK_ENV_VARS,
    ...d.DISCORD_ENV_VARS,
    ...m.TEAMS_ENV_VARS,
    ...w.WEB_ENV_VARS,
  ];
}

/** Creates the adapters configured in `env` (configs are read first, so a bad one fails before anything starts). */
export async function loadAdapters(
  env: NodeJS.ProcessEnv,
  config: RelayConfig,
): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  const web = (await import('./web/config.ts')).readWebConfig(config);
  if (web) adapters.push((await import('./web/index.ts')).createWebAdapter(web));
  const telegram = (await import('./telegram/config.ts')).readTelegramConfig(env);
  const slack = (await import('./slack/config.ts')).readSlackConfig(env);
  const discord = (await import('./discord/config.ts')).readDiscordConfig(env);
  const teams = (await import('./teams/config.ts')).readTeamsConfig(env);
  if (telegram)
    adapters.push((await import('./telegram/index.ts')).createTelegramAdapter(telegram));
  if (slack) adapters.push((await import('./slack/index.ts')).createSlackAdapter(slack));
  if (discord) adapters.push((await import('./discord/index.ts')).createDiscordAdapter(discord));
  if (teams) adapters.push((await import('./teams/index.ts')).createTeamsAdapter(teams));
  return adapters;
}
