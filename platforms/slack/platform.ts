/** Slack as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { readSlackConfig, SLACK_ENV_VARS, type SlackConfig } from './config.ts';

export const platform: PlatformDefinition<SlackConfig> = {
  envVars: SLACK_ENV_VARS,
  readConfig: (env) => readSlackConfig(env),
  create: async (config) => (await import('./index.ts')).createSlackAdapter(config),
  exampleEnv: {
    SLACK_BOT_TOKEN: 'xoxb-1111-2222-fakeBotTokenForConfig',
    SLACK_SIGNING_SECRET: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
  },
  routes: {
    'POST /slack/events': {
      summary: 'Slack events and interactions (signed, X-Slack-Signature)',
      responses: webhookResponses('Missing or bad signature.'),
    },
  },
};
