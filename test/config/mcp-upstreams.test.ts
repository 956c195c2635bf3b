/**
 * `mcp_upstreams` in RELAY_CONFIG: each upstream by name, over HTTP (URL policy as for services,
 * headers kept out of logs) or stdio, with every mistake refused naming where it is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

function withFile(upstreams: unknown, env: Record<string, string> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'relay-config-')), 'relay.json');
  writeFileSync(path, JSON.stringify({ mcp_upstreams: upstreams }));
  return () => readConfig({ RELAY_CONFIG: path, ...env });
}

function detailsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    // Paths start with the file's name, as every RELAY_CONFIG error's does.
    if (err instanceof ValidationError)
      return err.details.map((d) => ({ ...d, path: d.path.replace(/^.*relay\.json\./, '') }));
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('mcp_upstreams', () => {
  it('reads an HTTP and a stdio upstream with their defaults', () => {
    const c = withFile({
      files: {
        url: 'http://127.0.0.1:9000/mcp',
        headers: { 'x-api-key': 'up-secret-123456' },
      },
      tools: {
        command: 'node',
        args: ['server.js'],
        env: { TOKEN: 'env-secret-123456' },
        target: 'web:ops',
      },
    })();
    expect(c.mcpUpstreams).toEqual({
      files: {
        url: 'http://127.0.0.1:9000/mcp',
        headers: { 'x-api-key': 'up-secret-123456' },
        target: undefined,
        timeoutMs: 3_600_000,
        protocol: 'auto',
        lean: true,
      },
      tools: {
        command: 'node',
        args: ['server.js'],
        env: { TOKEN: 'env-secret-123456' },
        cwd: undefined,
        target: 'web:ops',
        timeoutMs: 3_600_000,
        protocol: 'auto',
        lean: true,
      },
    });
    // Header and env values are secrets: no log line or error text shows them.
    expect(scrub('sent up-secret-123456 and env-secret-123456')).toBe(
      'sent [REDACTED] and [REDACTED]',
    );
  });

  it('lets an upstream turn the lean pass-through off', () => {
    const c = withFile({ files: { url: 'http://127.0.0.1:9000/mcp', lean: false } })();
    expect(c.mcpUpstreams.files?.lean).toBe(false);
    expect(
      detailsOf(withFile({ files: { url: 'http://127.0.0.1:9000/mcp', lean: 'no' } })),
    ).toEqual([expect.objectContaining({ path: 'mcp_upstreams.files.lean' })]);
  });

  it('has none by default', () => {
    expect(readConfig({}).mcpUpstreams).toEqual({});
  });

  it('refuses an upstream with both or neither of url and command', () => {
    expect(
      detailsOf(withFile({ a: { url: 'http://127.0.0.1/mcp', command: 'x' }, b: {} })),
    ).toEqual([
      {
        path: 'mcp_upstreams.a',
        message: 'give exactly one of `url` (Streamable HTTP) or `command` (stdio)',
      },
      {
        path: 'mcp_upstreams.b',
        message: 'give exactly one of `url` (Streamable HTTP) or `command` (stdio)',
      },
    ]);
  });

  it("refuses the other transport's keys, unknown keys and bad names", () => {
    const d = detailsOf(
      withFile({
        a: { command: 'x', headers: { k: 'v' } },
        b: { url: 'http://127.0.0.1/mcp', args: ['y'] },
        c: { command: 'x', color: 'red' },
        'bad name': { command: 'x' },
      }),
    );
    expect(d).toEqual(
      expect.arrayContaining([
        { path: 'mcp_upstreams.a.headers', message: 'belongs to `url` upstreams: remove it' },
        { path: 'mcp_upstreams.b.args', message: 'belongs to `command` upstreams: remove it' },
        {
          path: 'mcp_upstreams.c.color',
          message: 'is not a field here: remove it (or check its spelling)',
        },
      ]),
    );
    expect(d.map((i) => i.path)).toContain('mcp_upstreams.bad name');
  });

  it('refuses a timeout under 10 s and an unknown protocol', () => {
    const d = detailsOf(withFile({ a: { command: 'x', timeout_seconds: 1, protocol: '2024' } }));
    expect(d.map((i) => i.path)).toEqual([
      'mcp_upstreams.a.timeout_seconds',
      'mcp_upstreams.a.protocol',
    ]);
  });
});
