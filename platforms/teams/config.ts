/** Microsoft Teams settings from the environment, validated; null when the platform is not configured. */
import { z } from 'zod';
import { type EnvDoc, parseEnv, pickEnv } from '../../src/config/env.ts';
import { registerSecret } from '../../src/log.ts';
import type { PaceWindow } from './pace.ts';
import type { TeamsRetryOptions } from './transport.ts';

/** Every environment variable the Teams adapter reads. */
export const TEAMS_ENV_VARS: readonly string[] = [
  'TEAMS_APP_ID',
  'TEAMS_APP_PASSWORD',
  'TEAMS_APP_TENANT_ID',
  'TEAMS_APP_TYPE',
  'TEAMS_ALLOW_UNAUTHENTICATED',
];

/** What each variable means, for docs/configuration.md (scripts/config-reference.ts). */
export const TEAMS_ENV_DOCS: Record<string, EnvDoc> = {
  TEAMS_APP_ID: { meaning: "the bot's Microsoft App ID (a GUID); setting it turns Teams on" },
  TEAMS_APP_PASSWORD: { meaning: 'the client secret (MultiTenant, SingleTenant)' },
  TEAMS_APP_TENANT_ID: { meaning: 'the Entra ID tenant (SingleTenant, UserAssignedMSI)' },
  TEAMS_APP_TYPE: { meaning: '`MultiTenant`, `SingleTenant` or `UserAssignedMSI`' },
  TEAMS_ALLOW_UNAUTHENTICATED: {
    meaning:
      '`1` only for local tests: allows an empty `TEAMS_APP_ID`, which turns all request authentication off',
  },
};

/** How the bot's Entra ID app signs in (botbuilder's MicrosoftAppType). */
export type TeamsAppType = 'MultiTenant' | 'SingleTenant' | 'UserAssignedMSI';

/** Knobs that tests turn down; production keeps the defaults. */
export interface TeamsTuning {
  /** Per-conversation send windows (Teams: 7/1 s, 8/2 s, 60/30 s, 1800/h per bot per conversation). */
  pace: PaceWindow[];
  /** Backoff for 429/412/502/504 answers of the Bot Connector. */
  retry: TeamsRetryOptions;
  /** How long an Action.Execute invoke waits for the relay before answering "Submitting…". */
  invokeDeadlineMs: number;
  /** Where the JWT signing keys' OpenID document is (tests: a loopback fake); botbuilder's default when absent. */
  openIdMetadataUrl?: string;
}

/** How the adapter signs in to the Bot Connector. */
export interface TeamsConfig {
  /** The bot's Microsoft App ID (Entra ID application id); "" only in unauthenticated test mode. */
  appId: string;
  /** The client secret (MultiTenant / SingleTenant). A secret. */
  appPassword?: string;
  /** The Entra ID tenant (SingleTenant / UserAssignedMSI). */
  tenantId?: string;
  appType: TeamsAppType;
  /** True when TEAMS_ALLOW_UNAUTHENTICATED=1: an empty app id is accepted (no JWT checks at all). */
  allowUnauthenticated: boolean;
  tuning?: Partial<TeamsTuning>;
}

const GUID = /^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/;

/** The variables, validated; their meanings are TEAMS_ENV_DOCS (docs/configuration.md). */
export const TEAMS_ENV_SCHEMA = z
  .object({
    TEAMS_APP_ID: z.string().regex(GUID, "must be the bot's Microsoft App ID (a GUID)").optional(),
    TEAMS_APP_PASSWORD: z.string().optional(),
    TEAMS_APP_TENANT_ID: z
      .string()
      .regex(GUID, 'must be the Entra ID tenant id (a GUID)')
      .optional(),
    TEAMS_APP_TYPE: z
      .enum(['MultiTenant', 'SingleTenant', 'UserAssignedMSI'], {
        error: 'must be MultiTenant, SingleTenant or UserAssignedMSI',
      })
      .default('MultiTenant'),
    TEAMS_ALLOW_UNAUTHENTICATED: z
      .enum(['0', '1'], { error: 'must be 1 (test/dev mode) or 0' })
      .optional(),
  })
  .superRefine((env, check) => {
    const issue = (path: string, message: string) =>
      check.addIssue({ code: 'custom', path: [path], message });
    if (!env.TEAMS_APP_ID) {
      if (env.TEAMS_ALLOW_UNAUTHENTICATED !== '1') {
        issue(
          'TEAMS_APP_ID',
          'is required: an empty app id switches authentication off (set TEAMS_ALLOW_UNAUTHENTICATED=1 only for local tests)',
        );
      }
      return;
    }
    if (env.TEAMS_APP_TYPE === 'UserAssignedMSI') {
      if (env.TEAMS_APP_PASSWORD)
        issue('TEAMS_APP_PASSWORD', 'must not be set for UserAssignedMSI');
    } else if (!env.TEAMS_APP_PASSWORD) {
      issue('TEAMS_APP_PASSWORD', `is required for ${env.TEAMS_APP_TYPE}`);
    }
    if (env.TEAMS_APP_TYPE !== 'MultiTenant' && !env.TEAMS_APP_TENANT_ID) {
      issue('TEAMS_APP_TENANT_ID', `is required for ${env.TEAMS_APP_TYPE}`);
    }
  });

/**
 * Reads the Teams settings; null when neither TEAMS_APP_ID nor TEAMS_ALLOW_UNAUTHENTICATED=1 is set.
 * Throws ValidationError (detail path = the variable's name).
 */
export function readTeamsConfig(env: NodeJS.ProcessEnv): TeamsConfig | null {
  const raw = pickEnv(env, TEAMS_ENV_VARS);
  // TEAMS_APP_ID set but empty is a misconfiguration, not "Teams off": it would disable authentication.
  const mentioned = env.TEAMS_APP_ID !== undefined || raw.TEAMS_ALLOW_UNAUTHENTICATED === '1';
  if (!mentioned) return null;
  registerSecret(raw.TEAMS_APP_PASSWORD);
  const v = parseEnv(TEAMS_ENV_SCHEMA, raw, 'Teams configuration');
  return {
    appId: v.TEAMS_APP_ID ?? '',
    appType: v.TEAMS_APP_TYPE,
    allowUnauthenticated: v.TEAMS_ALLOW_UNAUTHENTICATED === '1',
    ...(v.TEAMS_APP_PASSWORD ? { appPassword: v.TEAMS_APP_PASSWORD } : {}),
    ...(v.TEAMS_APP_TENANT_ID ? { tenantId: v.TEAMS_APP_TENANT_ID } : {}),
  };
}
