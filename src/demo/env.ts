/** The environment the standalone demo service (`src/demo/serve.ts`) reads; the compose test checks against it. */

/** Every environment variable serve.ts reads. */
export const DEMO_ENV_VARS = [
  'PORT',
  'HOST',
  'DEMO_DB',
  'DEMO_BASE_URL',
  'DEMO_TEST_CONTROLS',
  'HITL_CALLBACK_SECRET',
] as const;
