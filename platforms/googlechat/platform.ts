/** Google Chat as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { GOOGLECHAT_ENV_VARS, type GooglechatConfig, readGooglechatConfig } from './config.ts';

/** A made-up service account key (a real RSA key shape, no account behind it), for the OpenAPI probe. */
const EXAMPLE_KEY = JSON.stringify({
  type: 'service_account',
  client_email: 'hitl-relay@made-up-project.iam.gserviceaccount.com',
  private_key_id: 'made-up',
  private_key: '-----BEGIN PRIVATE KEY-----\nmade-up\n-----END PRIVATE KEY-----\n',
});

export const platform: PlatformDefinition<GooglechatConfig> = {
  envVars: GOOGLECHAT_ENV_VARS,
  readConfig: (env) => readGooglechatConfig(env),
  create: async (config) => (await import('./index.ts')).createGooglechatAdapter(config),
  exampleEnv: {
    GOOGLE_CHAT_CREDENTIALS: EXAMPLE_KEY,
    GOOGLE_CHAT_AUDIENCE: '123456789012',
    GOOGLE_CHAT_API_URL: 'http://127.0.0.1:9',
    GOOGLE_CHAT_TOKEN_URL: 'http://127.0.0.1:9/token',
    GOOGLE_CHAT_CERTS_URL: 'http://127.0.0.1:9/certs',
  },
  routes: {
    'POST /googlechat/events': {
      summary:
        'Google Chat app endpoint: interaction events (MESSAGE, ADDED_TO_SPACE, CARD_CLICKED) with a Google-signed bearer token; the answer is the synchronous Chat reply',
      responses: webhookResponses(
        'Missing or bad bearer token (not signed by Google for this app’s audience).',
      ),
    },
  },
};
