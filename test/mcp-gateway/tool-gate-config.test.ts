/**
 * The tool rules of `mcp_upstreams[].tools`: a configured rule wins; without one the server's
 * annotations decide (read-only passes, destructive waits for a person), and a tool that says
 * neither takes the upstream's default; bad rules are refused naming the place.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.ts';
import { parseGateUpstreams, ruleFor } from '../../src/mcp-gateway/tool-gate-config.ts';

const [files] = parseGateUpstreams({
  files: {
    target: 'web:ops',
    tools: {
      rules: {
        read_file: 'deny',
        delete_file: { policy: 'approve', edit: ['path'], expires_in: 600 },
        list_dir: 'approve',
      },
    },
  },
});

describe('ruleFor', () => {
  it('takes the annotations when no rule names the tool', () => {
    expect(ruleFor(files!, 'stat', { readOnlyHint: true })).toMatchObject({
      policy: 'allow',
      because: 'read-only',
    });
    expect(ruleFor(files!, 'rm', { destructiveHint: true })).toMatchObject({
      policy: 'approve',
      because: 'destructive',
    });
    // readOnlyHint wins over destructiveHint (the spec: destructive means something only when not read-only).
    expect(ruleFor(files!, 'x', { readOnlyHint: true, destructiveHint: true }).policy).toBe(
      'allow',
    );
  });

  it('falls back to the default (approve unless configured) when the annotations say neither', () => {
    expect(ruleFor(files!, 'touch', undefined)).toMatchObject({
      policy: 'approve',
      because: 'default',
    });
    const [open] = parseGateUpstreams({ o: { tools: { default: 'allow' } } });
    expect(ruleFor(open!, 'touch', {}).policy).toBe('allow');
    expect(ruleFor(open!, 'rm', { destructiveHint: true }).policy).toBe('approve');
  });

  it('lets a rule override what the server claims', () => {
    expect(ruleFor(files!, 'read_file', { readOnlyHint: true })).toMatchObject({
      policy: 'deny',
      because: 'rule',
    });
    expect(ruleFor(files!, 'delete_file', { destructiveHint: true })).toEqual({
      policy: 'approve',
      because: 'rule',
      edit: ['path'],
      expiresIn: 600,
    });
    expect(ruleFor(files!, 'list_dir', { readOnlyHint: true })).toMatchObject({
      policy: 'approve',
      expiresIn: 3600,
    });
    // Prototype names are not rules.
    expect(ruleFor(files!, 'constructor', undefined).because).toBe('default');
  });
});

describe('parseGateUpstreams', () => {
  const refusal = (raw: Parameters<typeof parseGateUpstreams>[0]) => {
    try {
      parseGateUpstreams(raw);
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).details;
    }
    throw new Error('accepted');
  };

  it('refuses a bad rule naming where it is', () => {
    expect(refusal({ a: {}, b: { tools: { rules: { rm: 'ask' } } } })).toContainEqual({
      path: 'mcp_upstreams.b.tools.rules.rm.policy',
      message: 'must be allow, approve or deny',
    });
    expect(refusal({ a: { tools: { rules: { rm: { policy: 'maybe' } } } } })).toContainEqual({
      path: 'mcp_upstreams.a.tools.rules.rm.policy',
      message: 'must be allow, approve or deny',
    });
    expect(refusal({ a: { tools: { defualt: 'allow' } } })).toContainEqual({
      path: 'mcp_upstreams.a.tools.defualt',
      message: 'is not a field here: remove it (or check its spelling)',
    });
    expect(refusal({ a: { tools: { expires_in: 1 } } })[0]?.path).toBe(
      'mcp_upstreams.a.tools.expires_in',
    );
    expect(
      refusal({ a: { tools: { rules: { rm: { policy: 'approve', edit: [] } } } } })[0]?.path,
    ).toBe('mcp_upstreams.a.tools.rules.rm.edit');
  });

  it('gives every upstream the defaults when it has no tools section', () => {
    expect(parseGateUpstreams(undefined)).toEqual([]);
    expect(parseGateUpstreams({ x: { target: undefined } })[0]).toEqual({
      name: 'x',
      target: undefined,
      tools: { default: 'approve', rules: {}, expires_in: 3600 },
    });
  });
});
