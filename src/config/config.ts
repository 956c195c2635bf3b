/** Configuration from the environment and an optional JSON file (RELAY_CONFIG), validated with zod. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { registerSecret } from '../log.ts';
import { type CasePolicyMode, casePolicyModeSchema } from '../policy/case-policy.ts';
import { type EscalationConfig, escalationSchema } from '../policy/escalation.ts';
import { type ExpiryThresholds, expiryWarningSchema } from '../policy/expiry-warning.ts';
import { type PolicyConfig, policySchema } from '../policy/policy.ts';
import { toIssues } from '../protocol/issues.ts';
import { deriveNotifySecret } from '../protocol/notify-signature.ts';
import { type NamedApiKey, namedApiKeysOf } from './api-keys.ts';
import { parseEnv, pickEnv } from './env.ts';
import { type McpUpstreamConfig, mcpUpstreamsSchema, upstreamsOf } from './mcp-upstreams.ts';
import type { NotifySettings } from './notify-settings.ts';
import { listOf, proxyEntries } from './trust-proxy.ts';

/** Every environment variable the core reads (platforms list theirs in platforms/<name>/config.ts). */
export const CORE_ENV_VARS = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'RELAY_API_KEY',
  'RELAY_API_KEYS',
  'RELAY_SECRET_KEY',
  'RELAY_CONFIG',
  'LOG_LEVEL',
  'POLL_INTERVAL_MIN_SECONDS',
  'LEASE_SECONDS',
  'POLL_INTERVAL_MAX_SECONDS',
  'DEMO',
  'WEB_CHAT',
  'WEB_CHAT_TOKEN',
  'LOCALE',
  'RELAY_ALLOW_HOSTS',
  'RELAY_ALLOW_HTTP_LOOPBACK',
  'CALLBACK_PATH',
  'INTAKE_RATE_LIMIT_PER_MINUTE',
  'RELAY_NOTIFY_SECRET',
  'NOTIFY_RETRY_MIN_SECONDS',
  'NOTIFY_RETRY_MAX_SECONDS',
  'NOTIFY_MAX_ATTEMPTS',
  'NOTIFY_TIMEOUT_SECONDS',
  'SUBMIT_TIMEOUT_SECONDS',
  'CLAIM_SECONDS',
  'SSE_MAX_STREAMS',
  'RECEIPT_SIGNING_KEY',
  'RETENTION_DAYS',
  'RECEIPT_RETENTION_DAYS',
  'EXIT_ON_FATAL',
  'DELIVERY_TIMEOUT_SECONDS',
  'LOG_FORMAT',
  'EXPIRY_WARNING',
  'TRUST_PROXY',
] as const;

/**
 * Defaults of the submit queue (service-client/submit-gate.ts): 64 in flight per origin, 2,000
 * waiting, 20 s at most in the queue. Here because a tap's claim (CLAIM_SECONDS) must outlast it.
 */
export const SUBMIT_GATE_DEFAULTS = { perOrigin: 64, maxQueue: 2000, maxWaitMs: 20_000 };

const TARGET = /^(route|[a-z][a-z0-9_-]*):.+$/;

/** The RELAY_CONFIG file; each key's `.describe()` is its line in docs/configuration.md. */
export const configFileSchema = z.strictObject({
  routes: z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]+$/),
      z.strictObject({
        targets: z
          .array(z.string().regex(TARGET, 'must look like "platform:address"'))
          .min(1)
          .describe('the chats a case sent to `route:<name>` is posted in (fan-out)'),
        allow: z
          .array(z.string())
          .optional()
          .describe("platform user ids who may act on its cases (with each target's own list)"),
        policy: z
          .string()
          .optional()
          .describe('the approval policy of its cases (a name in `policies`)'),
        case_policy: casePolicyModeSchema
          .optional()
          .describe('whether a case may bring its own policy at intake (default `stricter`)'),
        escalation: escalationSchema
          .optional()
          .describe('more targets as time passes without a decision'),
        expiry_warning: expiryWarningSchema
          .optional()
          .describe(
            'warnings before expiry for its cases, e.g. `"15m"` or `["1h", "15m"]` (over `EXPIRY_WARNING`; `"0"`: none)',
          ),
      }),
    )
    .default({})
    .describe('named lists of targets: a `route:<name>` target posts to each'),
  allow: z
    .record(z.string().regex(TARGET), z.array(z.string()))
    .default({})
    .describe('per target, the platform user ids who may act (a target without a list: everyone)'),
  callback_secrets: z
    .record(z.string().url(), z.string().min(16))
    .default({})
    .describe(
      'per service origin, the secret its signed callbacks are checked with (16+ characters)',
    ),
  policies: z
    .record(z.string().regex(/^[A-Za-z0-9_-]+$/), policySchema)
    .default({})
    .describe('approval policies by name (docs/four-eyes.md)'),
  target_policies: z
    .record(z.string().regex(TARGET), z.string())
    .default({})
    .describe('the policy of cases sent straight to a target (routes name theirs)'),
  identities: z
    .record(
      z.string().min(1).max(200),
      z.array(z.string().regex(TARGET, 'must look like "platform:user"')),
    )
    .default({})
    .describe(
      'people and the platform accounts (`platform:user`) they own: one person counts once',
    ),
  mcp_upstreams: mcpUpstreamsSchema,
});

/** The core's environment variables; their meanings are in env-docs.ts. */
export const coreEnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().optional(),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  RELAY_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  RELAY_API_KEYS: z.string().optional(),
  RELAY_SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  RETENTION_DAYS: z.coerce.number().min(0).default(30),
  RECEIPT_RETENTION_DAYS: z.coerce.number().min(0).default(365),
  RECEIPT_SIGNING_KEY: z
    .string()
    .min(32, 'must be a PKCS#8 PEM Ed25519 key or its 32-byte seed')
    .optional(),
  RELAY_CONFIG: z.string().optional(),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  POLL_INTERVAL_MIN_SECONDS: z.coerce.number().min(0.01).default(30),
  LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  POLL_INTERVAL_MAX_SECONDS: z.coerce.number().min(0.01).default(300),
  DEMO: z.enum(['0', '1']).optional(),
  WEB_CHAT: z.enum(['0', '1']).optional(),
  WEB_CHAT_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOCALE: z.string().default('en'),
  RELAY_ALLOW_HOSTS: z.string().default(''),
  TRUST_PROXY: z.string().default(''),
  RELAY_ALLOW_HTTP_LOOPBACK: z.enum(['0', '1']).optional(),
  CALLBACK_PATH: z.string().startsWith('/').default('/v1/callbacks/hitl'),
  INTAKE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  RELAY_NOTIFY_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  NOTIFY_RETRY_MIN_SECONDS: z.coerce.number().min(0.01).default(5),
  NOTIFY_RETRY_MAX_SECONDS: z.coerce.number().min(0.01).default(3600),
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(20),
  NOTIFY_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(10),
  // Kept well inside a tap's 60 s claim, with the 20 s a submit may wait for its slot.
  SUBMIT_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(30).default(10),
  CLAIM_SECONDS: z.coerce.number().min(5).max(3600).default(60),
  SSE_MAX_STREAMS: z.coerce.number().int().min(0).max(100_000).default(1000),
  EXIT_ON_FATAL: z.enum(['0', '1']).default('0'),
  DELIVERY_TIMEOUT_SECONDS: z.coerce.number().min(0.1).default(600),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  EXPIRY_WARNING: z.string().max(120).optional(),
});

/** A route: a named list of targets (fan-out) with an optional allowlist. */
export interface RouteConfig {
  targets: string[];
  allow?: string[];
  policy?: string | undefined;
  case_policy?: CasePolicyMode | undefined;
  escalation?: EscalationConfig | undefined;
  /** Thresholds before expiry (seconds, largest first); over the relay's EXPIRY_WARNING. */
  expiry_warning?: ExpiryThresholds | undefined;
}

/** The relay's configuration. */
export interface RelayConfig {
  port: number;
  /** Listen address: loopback when no API key is set. */
  host: string;
  publicUrl: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  apiKey: string | undefined;
  /** Named client keys (RELAY_API_KEYS), accepted as RELAY_API_KEY is. */
  namedApiKeys: NamedApiKey[];
  secretKey: string | undefined;
  /** Signs decision receipts (generated and stored sealed when absent). */
  receiptSigningKey: string | undefined;
  /** How long final cases are kept (0: for ever). */
  retentionMs: number;
  /** How long receipts are kept (0: for ever). */
  receiptRetentionMs: number;
  logLevel: string;
  /** json or pretty; absent: pretty when stdout is a terminal. */
  logFormat: 'json' | 'pretty' | undefined;
  /** Exit non-zero when a platform refuses its credentials (default: keep running, /readyz 503). */
  exitOnFatal: boolean;
  /** A case no target has shown after this long ends its waiters with delivery_failed. */
  deliveryTimeoutMs: number;
  pollMinMs: number;
  /**
   * How long a lease on shared work (a due poll, an event stream, a post under way) outlives the
   * process holding it: the time another replica, or this one restarted, waits before taking over.
   */
  leaseMs: number;
  pollMaxMs: number;
  demo: boolean;
  webChat: boolean;
  /** WEB_CHAT_TOKEN: people sign in to the web chat with it (on a server, the way in). */
  webChatToken: string | undefined;
  locale: string;
  /** Hosts exempt from the private-address rule (e.g. an internal service). */
  allowHosts: string[];
  /**
   * TRUST_PROXY: the proxies (addresses, CIDRs) whose X-Forwarded-For / Forwarded headers name
   * the client; [] believes no such header (per-client limits go by the peer address).
   */
  trustProxy: string[];
  /** Plain HTTP to loopback addresses is accepted (the local default, for the built-in demo). */
  allowHttpLoopback: boolean;
  callbackPath: string;
  /** POST /v1/cases per API key per minute (a token bucket of that size); 0 turns the limit off. */
  intakeRateLimitPerMinute: number;
  /** Event streams (SSE) one process holds at once; 0 turns SSE off (polling and callbacks only). */
  sseMaxStreams: number;
  /** How long one submit may take once sent; no answer by then is an unknown outcome. */
  submitTimeoutMs: number;
  /**
   * How long a tap's claim on a case lasts: while it does, no other tap submits. It outlasts the
   * submit's wait for a slot and its deadline, so a submit still under way is never doubled.
   */
  claimMs: number;
  /** EXPIRY_WARNING: warnings before a case expires (seconds before, largest first; [] none). */
  expiryWarning: ExpiryThresholds;
  /** notify_url deliveries: signing secret, retry schedule, attempt timeout (defaults when absent). */
  notify?: NotifySettings;
  routes: Record<string, RouteConfig>;
  /** Approval policies by name, and the policy of each direct target. */
  policies: Record<string, PolicyConfig>;
  targetPolicies: Record<string, string>;
  /** People and the platform accounts they own. */
  identities: Record<string, string[]>;
  /** Per-target allowlists of platform user ids; a target without one lets everyone act. */
  allow: Record<string, string[]>;
  /** Callback signing secrets per service origin. */
  callbackSecrets: Record<string, string>;
  /** The MCP servers the gateway stands in front of, by name. */
  mcpUpstreams: Record<string, McpUpstreamConfig>;
}

type Env = z.infer<typeof coreEnvSchema>;

/** Rules between variables, each refused with the variable to change. */
function checkEnvRules(e: Env): void {
  const refuse = (path: string, message: string) => {
    throw new ValidationError('invalid_config', 'invalid configuration', [{ path, message }]);
  };
  if (e.POLL_INTERVAL_MAX_SECONDS < e.POLL_INTERVAL_MIN_SECONDS)
    refuse('POLL_INTERVAL_MAX_SECONDS', 'must not be below POLL_INTERVAL_MIN_SECONDS');
  if (e.NOTIFY_RETRY_MAX_SECONDS < e.NOTIFY_RETRY_MIN_SECONDS)
    refuse('NOTIFY_RETRY_MAX_SECONDS', 'must not be below NOTIFY_RETRY_MIN_SECONDS');
  // A claim that lapsed while its submit still waits for a slot or an answer would let a second
  // tap submit too.
  const claimFloor = Math.ceil(
    SUBMIT_GATE_DEFAULTS.maxWaitMs / 1000 + e.SUBMIT_TIMEOUT_SECONDS + 5,
  );
  if (e.CLAIM_SECONDS < claimFloor)
    refuse(
      'CLAIM_SECONDS',
      `must be at least ${claimFloor} (the submit queue's ${SUBMIT_GATE_DEFAULTS.maxWaitMs / 1000} s + SUBMIT_TIMEOUT_SECONDS + 5 s)`,
    );
}

/** EXPIRY_WARNING as thresholds; a clear error naming it when it is not a list of durations. */
function expiryWarningOf(raw: string | undefined): ExpiryThresholds {
  if (raw === undefined) return [];
  const r = expiryWarningSchema.safeParse(raw);
  if (r.success) return r.data;
  throw new ValidationError('invalid_config', 'invalid configuration', [
    { path: 'EXPIRY_WARNING', message: r.error.issues[0]?.message ?? 'invalid' },
  ]);
}

/** notify_url deliveries: signed with RELAY_NOTIFY_SECRET, else a secret derived from a key. */
function notifySettingsOf(e: Env): NotifySettings {
  const notifyKey = e.RELAY_API_KEY ?? e.RELAY_SECRET_KEY;
  const secret = e.RELAY_NOTIFY_SECRET ?? (notifyKey ? deriveNotifySecret(notifyKey) : undefined);
  registerSecret(secret);
  return {
    secret,
    retryMinMs: e.NOTIFY_RETRY_MIN_SECONDS * 1000,
    retryMaxMs: e.NOTIFY_RETRY_MAX_SECONDS * 1000,
    maxAttempts: e.NOTIFY_MAX_ATTEMPTS,
    timeoutMs: e.NOTIFY_TIMEOUT_SECONDS * 1000,
  };
}

/** The configuration's own secrets (the upstreams' are registered where they are read). */
function secretsOf(e: Env, callbackSecrets: Record<string, string>): (string | undefined)[] {
  const named = namedApiKeysOf(e.RELAY_API_KEYS, e.RELAY_API_KEY).map((k) => k.key);
  const own = [e.RELAY_API_KEY, e.RELAY_SECRET_KEY, e.RECEIPT_SIGNING_KEY, e.WEB_CHAT_TOKEN];
  return [...own, ...named, ...Object.values(callbackSecrets)];
}

/** Reads and validates the configuration; throws ValidationError naming the variable or file path. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): RelayConfig {
  const e = parseEnv(coreEnvSchema, pickEnv(env, CORE_ENV_VARS), 'invalid configuration');
  checkEnvRules(e);
  const file = e.RELAY_CONFIG ? readConfigFile(e.RELAY_CONFIG) : configFileSchema.parse({});
  // Known before anything can log them, so no log line carries them.
  for (const s of secretsOf(e, file.callback_secrets)) registerSecret(s);
  const local = !e.RELAY_API_KEY;
  return {
    port: e.PORT,
    host: e.HOST ?? (local ? '127.0.0.1' : '0.0.0.0'),
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    apiKey: e.RELAY_API_KEY,
    namedApiKeys: namedApiKeysOf(e.RELAY_API_KEYS, e.RELAY_API_KEY),
    secretKey: e.RELAY_SECRET_KEY,
    receiptSigningKey: e.RECEIPT_SIGNING_KEY,
    retentionMs: e.RETENTION_DAYS * 86_400_000,
    receiptRetentionMs: e.RECEIPT_RETENTION_DAYS * 86_400_000,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    exitOnFatal: e.EXIT_ON_FATAL === '1',
    deliveryTimeoutMs: e.DELIVERY_TIMEOUT_SECONDS * 1000,
    pollMinMs: e.POLL_INTERVAL_MIN_SECONDS * 1000,
    leaseMs: e.LEASE_SECONDS * 1000,
    pollMaxMs: e.POLL_INTERVAL_MAX_SECONDS * 1000,
    // The demo service takes unauthenticated writes: on by default only in the local default.
    demo: e.DEMO ? e.DEMO === '1' : local,
    // Without WEB_CHAT_TOKEN the web chat has no sign-in: on by default only in the local default
    // (loopback); on a server it is on when it has a token, or when turned on on purpose.
    webChat: e.WEB_CHAT ? e.WEB_CHAT === '1' : local || !!e.WEB_CHAT_TOKEN,
    webChatToken: e.WEB_CHAT_TOKEN,
    locale: e.LOCALE,
    allowHosts: listOf(e.RELAY_ALLOW_HOSTS).map((h) => h.toLowerCase()),
    trustProxy: proxyEntries(e.TRUST_PROXY),
    allowHttpLoopback: e.RELAY_ALLOW_HTTP_LOOPBACK ? e.RELAY_ALLOW_HTTP_LOOPBACK === '1' : local,
    callbackPath: e.CALLBACK_PATH,
    intakeRateLimitPerMinute: e.INTAKE_RATE_LIMIT_PER_MINUTE,
    sseMaxStreams: e.SSE_MAX_STREAMS,
    submitTimeoutMs: e.SUBMIT_TIMEOUT_SECONDS * 1000,
    claimMs: e.CLAIM_SECONDS * 1000,
    expiryWarning: expiryWarningOf(e.EXPIRY_WARNING),
    notify: notifySettingsOf(e),
    routes: file.routes,
    policies: file.policies,
    targetPolicies: file.target_policies,
    identities: file.identities,
    allow: file.allow,
    callbackSecrets: Object.fromEntries(
      Object.entries(file.callback_secrets).map(([k, v]) => [new URL(k).origin, v]),
    ),
    mcpUpstreams: upstreamsOf(file.mcp_upstreams),
  };
}

function readConfigFile(path: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ValidationError('invalid_config', `cannot read RELAY_CONFIG ${path}`, [
      { path: 'RELAY_CONFIG', message: (err as Error).message },
    ]);
  }
  const r = configFileSchema.safeParse(raw);
  if (!r.success)
    throw new ValidationError('invalid_config', `invalid ${path}`, toIssues(r.error, path));
  const named = [
    ...Object.entries(r.data.routes).map(([k, v]) => [`routes.${k}.policy`, v.policy] as const),
    ...Object.entries(r.data.target_policies).map(([k, v]) => [`target_policies.${k}`, v] as const),
  ];
  const unknown = named.filter(([, name]) => name !== undefined && !(name in r.data.policies));
  if (unknown.length)
    throw new ValidationError(
      'invalid_config',
      `invalid ${path}`,
      unknown.map(([at, name]) => ({ path: at, message: `no policy "${name}" in policies` })),
    );
  return r.data;
}
