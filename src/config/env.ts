/** Shared helpers for reading a group of environment variables (core and platform configs). */
import type { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { toIssues } from '../protocol/issues.ts';

/** The named variables, trimmed; empty values count as absent. */
export function pickEnv(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): Record<string, string | undefined> {
  return Object.fromEntries(
    names.map((name) => {
      const value = env[name]?.trim();
      return [name, value ? value : undefined];
    }),
  );
}

/** Validates picked variables; a failure is a ValidationError whose detail paths are the variable names. */
export function parseEnv<T>(
  schema: z.ZodType<T>,
  raw: Record<string, string | undefined>,
  what: string,
): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ValidationError('invalid_config', what, toIssues(parsed.error));
  return parsed.data;
}

/** One variable's documentation (docs/configuration.md): its meaning, and a default in words. */
export interface EnvDoc {
  meaning: string;
  /** The default in words, for a default that depends on other settings. */
  default?: string;
}
