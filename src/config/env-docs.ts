/**
 * What each environment variable of the core means, for docs/configuration.md (written by
 * scripts/config-reference.ts from these words and the zod schemas' types and defaults).
 */
import type { CORE_ENV_VARS } from './config.ts';
import type { EnvDoc } from './env.ts';

/** Every core variable's meaning (a missing one is a type error). */
export const CORE_ENV_DOCS: Record<(typeof CORE_ENV_VARS)[number], EnvDoc> = {
  PORT: { meaning: 'listen port' },
  HOST: {
    meaning: 'listen address',
    default: '`127.0.0.1` without an API key, else `0.0.0.0`',
  },
  PUBLIC_URL: {
    meaning:
      'base URL of the relay as people and services reach it (Details links, the asks service)',
    default: 'the listen URL',
  },
  DATA_DIR: { meaning: 'folder of the SQLite files (cases, the asks service, the demo)' },
  DATABASE_URL: { meaning: 'use PostgreSQL (several replicas) instead of SQLite' },
  RELAY_API_KEY: {
    meaning: 'API key for `/v1/*` and `/metrics`; when set, the relay runs in server mode',
  },
  RELAY_API_KEYS: {
    meaning:
      'named client keys, `name=key,name=key` (each 16+ characters), accepted as RELAY_API_KEY is; what a client does is recorded under its name (needs RELAY_API_KEY)',
  },
  RELAY_SECRET_KEY: {
    meaning:
      'seals case secrets and answers at rest and signs Details links (the same on every replica)',
  },
  RECEIPT_SIGNING_KEY: {
    meaning: 'Ed25519 key (PKCS#8 PEM or 32-byte seed) that signs decision receipts',
    default: 'generated once, stored sealed',
  },
  RETENTION_DAYS: {
    meaning:
      'days a final case (and a final ask) is kept, then deleted with its history; `0`: for ever',
  },
  RECEIPT_RETENTION_DAYS: { meaning: 'days a decision receipt is kept; `0`: for ever' },
  RELAY_CONFIG: {
    meaning: 'path of the JSON file with routes, allowlists, policies and callback secrets (below)',
  },
  LOG_LEVEL: { meaning: 'pino log level' },
  LOG_FORMAT: {
    meaning: '`json` (one object per line) or `pretty` (one readable line)',
    default: '`pretty` on a terminal, else `json`',
  },
  DELIVERY_TIMEOUT_SECONDS: {
    meaning:
      'a case no target has shown after this long ends its waiters with `delivery.state: "failed"`',
  },
  EXIT_ON_FATAL: {
    meaning: '`1`: exit 1 when a platform refuses its token (else keep running, `/readyz` 503)',
  },
  POLL_INTERVAL_MIN_SECONDS: { meaning: 'shortest wait between two polls of a case' },
  POLL_INTERVAL_MAX_SECONDS: { meaning: 'longest wait between two polls of a case (back-off cap)' },
  LEASE_SECONDS: {
    meaning:
      'how long shared work (a due poll, an event stream, a post) stays with a process that stopped answering before another takes it over',
  },
  DEMO: {
    meaning: '`1` mounts the demo HITL service at `/demo` (unauthenticated: off on servers)',
    default: '`1` without an API key, else `0`',
  },
  WEB_CHAT: {
    meaning: '`1` serves the web chat at `/chat`, `0` turns it off',
    default: '`1` without an API key or with `WEB_CHAT_TOKEN`, else `0`',
  },
  WEB_CHAT_TOKEN: { meaning: 'web chat sign-in: the way in on a server' },
  TRUST_PROXY: {
    meaning:
      'proxies (comma-separated addresses or CIDRs, e.g. `10.0.0.0/8,::1`) whose `X-Forwarded-For` / `Forwarded` name the client; from any other peer those headers are ignored and per-client limits go by the peer address',
    default: 'none',
  },
  LOCALE: { meaning: 'the words on cards: `templates/<locale>.json`' },
  RELAY_ALLOW_HOSTS: {
    meaning: 'comma-separated service hosts exempt from the private-address rule',
  },
  RELAY_ALLOW_HTTP_LOOPBACK: {
    meaning: '`1` accepts `http://` service URLs on loopback',
    default: '`1` without an API key, else `0`',
  },
  CALLBACK_PATH: { meaning: 'where services POST signed callbacks' },
  INTAKE_RATE_LIMIT_PER_MINUTE: {
    meaning: '`POST /v1/cases` per API key per minute (a token bucket); `0`: no limit',
  },
  SSE_MAX_STREAMS: { meaning: 'event streams one process holds at once; `0` turns SSE off' },
  RELAY_NOTIFY_SECRET: {
    meaning: 'signs `notify_url` deliveries',
    default: 'derived from `RELAY_API_KEY`, else `RELAY_SECRET_KEY`; unsigned without both',
  },
  NOTIFY_RETRY_MIN_SECONDS: { meaning: 'first wait before a `notify_url` delivery is retried' },
  NOTIFY_RETRY_MAX_SECONDS: { meaning: 'longest wait between `notify_url` retries' },
  NOTIFY_MAX_ATTEMPTS: { meaning: '`notify_url` attempts before a delivery is given up' },
  NOTIFY_TIMEOUT_SECONDS: { meaning: 'how long one `notify_url` attempt may take' },
  SUBMIT_TIMEOUT_SECONDS: {
    meaning: 'how long a submit may take once sent; later is an unknown outcome, settled by a poll',
  },
  EXPIRY_WARNING: {
    meaning:
      'warnings before a case expires, e.g. `15m` or `1h,15m`: a reply on every card and an `expiring` notify event (docs/expiry-warnings.md)',
  },
  CLAIM_SECONDS: {
    meaning:
      "how long a tap's claim on a case lasts; at least the submit queue's 20 s + `SUBMIT_TIMEOUT_SECONDS` + 5",
  },
};

/** One variable of the demo service run alone (`tsx src/demo/serve.ts`), which has no schema. */
export interface DemoEnvDoc extends EnvDoc {
  type: string;
}

/** The variables `src/demo/serve.ts` reads (test/docs/configuration.test.ts checks the list). */
export const DEMO_SERVE_ENV_DOCS: Record<string, DemoEnvDoc> = {
  PORT: { type: 'integer', default: '`8788`', meaning: 'listen port' },
  HOST: { type: 'string', default: '`127.0.0.1`', meaning: 'listen address' },
  DEMO_DB: { type: 'string', default: '`:memory:`', meaning: 'SQLite file of its cases' },
  DEMO_BASE_URL: {
    type: 'URL',
    default: 'the request origin',
    meaning: 'base URL its hitl objects point at (behind a proxy: the public one)',
  },
  DEMO_TEST_CONTROLS: {
    type: '`0` \\| `1`',
    default: '`0`',
    meaning: '`1` adds the test controls under `/api/_test/` (never on a shared host)',
  },
  HITL_CALLBACK_SECRET: {
    type: 'string',
    default: '—',
    meaning: 'signs the callbacks it sends to `hitl_callback_url`',
  },
};
