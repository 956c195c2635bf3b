/**
 * The outbound URL policy of services, applied to every HTTP upstream before the gateway starts:
 * HTTPS only, plain HTTP to loopback only in the local default, no credentials in the URL, no
 * private or link-local address unless allowlisted (the connection checks each resolved address
 * again). A refusal names the upstream's key in RELAY_CONFIG.
 */
import { isHttpUpstream, type McpUpstreamConfig } from '../config/mcp-upstreams.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import { type UrlPolicy, urlRefusal } from '../net/url-policy.ts';

/** Throws a ValidationError naming each upstream URL the policy refuses. */
export function checkUpstreamUrls(
  upstreams: Record<string, McpUpstreamConfig>,
  policy: UrlPolicy,
): void {
  const issues: ValidationIssue[] = [];
  for (const [name, u] of Object.entries(upstreams)) {
    const why = isHttpUpstream(u) ? urlRefusal(u.url, policy) : null;
    if (why) issues.push({ path: `mcp_upstreams.${name}.url`, message: why });
  }
  if (issues.length) throw new ValidationError('invalid_config', 'invalid RELAY_CONFIG', issues);
}
