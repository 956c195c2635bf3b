/**
 * One-off setup step: registers the `/hitl` slash command for the application.
 *   npx tsx platforms/discord/register-commands.ts            (global)
 *   npx tsx platforms/discord/register-commands.ts --guild ID (one server, appears at once)
 * Reads DISCORD_TOKEN, DISCORD_APPLICATION_ID (and DISCORD_API_URL) from the environment.
 */
import { pathToFileURL } from 'node:url';
import { DiscordApi } from './api.ts';
import { discordInviteUrl, registerDiscordCommands } from './commands.ts';
import { readDiscordConfig } from './config.ts';

/** Runs the registration; returns the process exit code. Output goes to `out`. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: { log(line: string): void; error(line: string): void } = console,
): Promise<number> {
  const guildFlag = argv.indexOf('--guild');
  const guildId = guildFlag >= 0 ? argv[guildFlag + 1] : undefined;
  if (guildFlag >= 0 && !guildId) {
    out.error('usage: register-commands.ts [--guild <guild id>]');
    return 2;
  }
  try {
    const config = readDiscordConfig(env);
    if (!config) {
      out.error('DISCORD_TOKEN is not set: nothing to register.');
      return 2;
    }
    const api = new DiscordApi({
      token: config.token,
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
    });
    const registered = await registerDiscordCommands(api, config.applicationId, guildId);
    out.log(
      `Registered ${registered.length} command(s) ${guildId ? `in guild ${guildId}` : 'globally'}: /hitl id, /pending`,
    );
    out.log(`Invite the bot with: ${discordInviteUrl(config.applicationId)}`);
    return 0;
  } catch (error) {
    out.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
