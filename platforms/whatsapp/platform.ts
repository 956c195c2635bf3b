/** WhatsApp as the registry sees it (src/adapter-definition.ts). */
import { type PlatformDefinition, webhookResponses } from '../../src/adapter-definition.ts';
import { readWhatsappConfig, WHATSAPP_ENV_VARS, type WhatsAppConfig } from './config.ts';

export const platform: PlatformDefinition<WhatsAppConfig> = {
  envVars: WHATSAPP_ENV_VARS,
  readConfig: (env) => readWhatsappConfig(env),
  create: async (config) => (await import('./index.ts')).createWhatsappAdapter(config),
  exampleEnv: {
    WHATSAPP_ACCESS_TOKEN: 'EAAGmadeUpTokenForTheOpenApiProbe0123456789',
    WHATSAPP_APP_SECRET: 'made-up-app-secret',
    WHATSAPP_VERIFY_TOKEN: 'made-up-verify-token',
    WHATSAPP_GRAPH_URL: 'http://127.0.0.1:9',
  },
  routes: {
    'GET /whatsapp/webhook': {
      summary:
        'WhatsApp webhook subscription handshake (hub.mode, hub.verify_token, hub.challenge)',
      responses: {
        '200': {
          text: 'The hub.challenge, echoed for the right verify token.',
          type: 'text/plain',
        },
        '403': { error: 'Not a subscribe request, or the wrong verify token.' },
      },
    },
    'POST /whatsapp/webhook': {
      summary: 'WhatsApp Cloud API webhook: messages and statuses (X-Hub-Signature-256)',
      responses: webhookResponses(
        'Missing or wrong X-Hub-Signature-256 (HMAC-SHA256 of the body).',
      ),
    },
  },
};
