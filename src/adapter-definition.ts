/**
 * What a platform folder hands the registry (platforms/<name>/platform.ts exports one
 * PlatformDefinition): how it is configured, how its adapter is made, and what its HTTP routes are
 * for the OpenAPI document. With the folder's line in platforms/registry.ts, that is all the core
 * learns of a platform (docs/adding-a-platform.md).
 */
import type { PlatformAdapter } from './adapter.ts';
import type { RelayConfig } from './config/config.ts';

/**
 * One answer of a platform route, for the OpenAPI document (src/server/openapi-platforms.ts writes
 * it out): no body, a JSON error, a JSON body of a component schema (or an array of them), or text.
 */
export type RouteResponseDoc =
  | { description: string }
  | { error: string }
  | { json: string; description: string }
  | { jsonArrayOf: string; description: string }
  | { text: string; type?: string };

/** One inbound route of a platform, as the OpenAPI document describes it. */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** A required JSON request body of this component schema. */
  body?: { json: string; description: string };
  /** Keyed by status code. Every POST also answers 413 and 415 (the server's body rules). */
  responses: Readonly<Record<string, RouteResponseDoc>>;
}

/**
 * A platform's routes, keyed "METHOD path" as the adapter declares them (`:name` segments included),
 * or "METHOD *" for a path the operator configures. A route missing here is left undocumented, and
 * the OpenAPI test fails on it.
 */
export type RouteDocs = Readonly<Record<string, RouteDoc>>;

/** One platform, as the registry sees it. `C` is the platform's own config. */
export interface PlatformDefinition<C> {
  /** Every environment variable the platform reads (the configuration reference lists them). */
  envVars: readonly string[];
  /** The platform's config, or null when it is not configured (its credentials are absent). */
  readConfig(env: NodeJS.ProcessEnv, config: RelayConfig): C | null;
  /** Makes the adapter; imports the platform's SDK lazily, so it loads only when configured. */
  create(config: C): Promise<PlatformAdapter>;
  routes: RouteDocs;
  /**
   * An environment that turns the platform on with all its inbound routes while contacting nothing
   * (loopback API roots, made-up credentials): the OpenAPI and registry tests start every platform
   * with it.
   */
  exampleEnv: Readonly<Record<string, string>>;
}

/** What a platform's webhook answers besides 200 (each a JSON error); `unauthorized` says when 401. */
export function webhookResponses(unauthorized: string): Record<string, RouteResponseDoc> {
  return {
    '200': { description: 'Handled.' },
    '400': { error: 'Not a valid event of this platform.' },
    '401': { error: unauthorized },
    '503': { error: 'The platform adapter is not running yet (starting or stopping).' },
  };
}
