/** Upstream URLs under the URL policy of services, refused before the gateway starts. */
import { describe, expect, it } from 'vitest';
import type { McpUpstreamConfig } from '../../src/config/mcp-upstreams.ts';
import { ValidationError } from '../../src/errors.ts';
import { checkUpstreamUrls } from '../../src/mcp-gateway/upstream-policy.ts';

const http = (url: string): McpUpstreamConfig => ({
  url,
  headers: {},
  timeoutMs: 3_600_000,
  protocol: 'auto',
});
const local = { allowHttpLoopback: true, allowHosts: [] as string[] };
const server = { allowHttpLoopback: false, allowHosts: [] as string[] };

function issuesOf(url: string, policy = server) {
  try {
    checkUpstreamUrls({ a: http(url) }, policy);
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.details;
    throw err;
  }
}

describe('upstream URLs', () => {
  it('takes HTTPS, and plain HTTP to loopback in the local default', () => {
    expect(issuesOf('https://mcp.example.com/mcp')).toEqual([]);
    expect(issuesOf('http://127.0.0.1:9000/mcp', local)).toEqual([]);
  });

  it('refuses plain HTTP, private addresses and credentials, naming the key', () => {
    expect(issuesOf('http://example.com/mcp', local)).toEqual([
      {
        path: 'mcp_upstreams.a.url',
        message: 'must be HTTPS (plain HTTP is accepted for loopback only)',
      },
    ]);
    expect(issuesOf('http://127.0.0.1:9000/mcp')).toEqual([
      { path: 'mcp_upstreams.a.url', message: 'must be HTTPS' },
    ]);
    expect(issuesOf('https://10.0.0.5/mcp')[0]?.message).toContain('private');
    expect(issuesOf('https://u:p@mcp.example.com/')[0]?.message).toBe('must not carry credentials');
    expect(
      issuesOf('https://10.0.0.5/mcp', { allowHttpLoopback: false, allowHosts: ['10.0.0.5'] }),
    ).toEqual([]);
  });

  it('leaves stdio upstreams alone', () => {
    expect(() =>
      checkUpstreamUrls(
        { s: { command: 'node', args: [], env: {}, timeoutMs: 1000, protocol: 'auto' } },
        server,
      ),
    ).not.toThrow();
  });
});
