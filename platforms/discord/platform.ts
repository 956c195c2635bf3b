/** Discord as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { DISCORD_ENV_VARS, type DiscordConfig, readDiscordConfig } from './config.ts';

export const platform: PlatformDefinition<DiscordConfig> = {
  envVars: DISCORD_ENV_VARS,
  readConfig: (env) => readDiscordConfig(env),
  create: async (config) => (await import('./index.ts')).createDiscordAdapter(config),
  exampleEnv: {
    DISCORD_TOKEN: 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.fake.discord-token-for-openapi',
    DISCORD_APPLICATION_ID: '1100000000000000001',
    DISCORD_PUBLIC_KEY: 'a'.repeat(64),
    DISCORD_API_URL: 'http://127.0.0.1:9/api/',
  },
  routes: {
    'POST /discord/interactions': {
      summary: 'Discord HTTP interactions (Ed25519 signed)',
      responses: webhookResponses('Missing or bad signature.'),
    },
  },
};
