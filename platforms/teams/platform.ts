/** Microsoft Teams as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { readTeamsConfig, TEAMS_ENV_VARS, type TeamsConfig } from './config.ts';

export const platform: PlatformDefinition<TeamsConfig> = {
  envVars: TEAMS_ENV_VARS,
  readConfig: (env) => readTeamsConfig(env),
  create: async (config) => (await import('./index.ts')).createTeamsAdapter(config),
  exampleEnv: {
    TEAMS_APP_ID: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
    TEAMS_APP_PASSWORD: 'xZ8~Q.secret-value-0123456789',
  },
  routes: {
    'POST /api/messages': {
      summary: 'Microsoft Teams Bot Framework activities (JWT)',
      responses: webhookResponses('Missing or invalid Bot Framework token.'),
    },
  },
};
