/**
 * docs/four-eyes.md: its worked example is a RELAY_CONFIG the relay takes as it stands, with
 * the parts the text walks through (four-eyes, the ladder and its final answer).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readConfig } from '../../src/config/config.ts';

it('the worked example of docs/four-eyes.md is a valid RELAY_CONFIG', () => {
  const section = readFileSync('docs/four-eyes.md', 'utf8');
  const json = /```json relay-config\n([\s\S]*?)\n```/.exec(section)?.[1];
  expect(json).toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'hitl-readme-policies-'));
  try {
    const path = join(dir, 'relay-config.json');
    writeFileSync(path, json!);
    const c = readConfig({ RELAY_CONFIG: path });
    expect(c.policies['four-eyes']).toMatchObject({ required: 2, veto: true });
    expect(c.routes.deploys).toMatchObject({
      policy: 'four-eyes',
      escalation: { final: { action: 'reject', after_seconds: 14400 } },
    });
    expect(c.routes.deploys!.escalation!.steps.map((s) => s.after_seconds)).toEqual([900, 3600]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
