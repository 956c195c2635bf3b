/** The CLI's words: a refusal says each clause once; a card not yet edited says so in words. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { formatCase } from '../../src/cli/output.ts';
import type { CaseView } from '../../src/client/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-cli-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hitl-relay send` on a file; the file is refused before the relay (port 9: nothing) is asked. */
async function send(body: unknown) {
  const path = join(dir, 'case.json');
  writeFileSync(path, JSON.stringify(body));
  let err = '';
  const code = await main(['send', '--to', 'web:lobby', path], {
    io: { out: () => {}, err: (t) => (err += t) },
    env: { RELAY_URL: 'http://127.0.0.1:9' },
    stdin: async () => '',
  });
  return { code, lines: err.trim().split('\n') };
}

const HITL = {
  spec_version: '0.7',
  case_id: 'c1',
  review_url: 'https://service.example/review/c1',
  poll_url: 'not a url',
  type: 'approval',
  prompt: 'Deploy?',
  status: 'pending',
  created_at: '2026-01-01T00:00:00Z',
  expires_at: '2099-01-01T00:00:00Z',
};

it('names each failing field once: the first line says what, the field lines say where', async () => {
  const one = await send({ status: 'human_input_required', message: 'm', hitl: HITL });
  expect(one.code).toBe(1);
  expect(one.lines).toEqual([
    'hitl-relay send: invalid hitl object:',
    '  response.hitl.poll_url: must be an absolute http(s) URL',
  ]);
  const two = await send({ status: 'done', message: 'm' });
  expect(two.lines[0]).toBe('hitl-relay send: not a HITL 202 body:');
  expect(two.lines.slice(1)).toEqual([
    '  response.status: must be "human_input_required"',
    '  response.hitl: is required (nonoptional)',
  ]);
  for (const r of [one, two])
    for (const line of r.lines.slice(1))
      expect(r.lines.filter((l) => l.includes(line.split(': ')[1]!))).toHaveLength(1);
});

it('says in words that a card shows an earlier status, instead of "(behind)"', () => {
  const view = {
    id: 'hc_1',
    status: 'completed',
    final: true,
    type: 'approval',
    prompt: 'Deploy?',
    target: 'web:lobby',
    service: 'https://service.example',
    case_id: 'c1',
    expires_at: '2099-01-01T00:00:00Z',
    messages: [
      { target: 'web:lobby', state: 'posted', current: false, error: null, posted_at: null },
    ],
  } as unknown as CaseView;
  const text = formatCase(view);
  expect(text).toContain('web:lobby posted (shows an earlier status; its edit is pending)');
  expect(text).not.toContain('(behind)');
});
