/**
 * The tool gate against a real relay (its asks service, store and web chat), a person answering in
 * the web chat: allow passes, deny refuses without asking, approve holds the call until a person
 * decides and then sends exactly the approved (possibly edited) arguments once; a refusal names
 * who refused; identical calls join one decision; a quorum policy applies; the history binds the
 * decision to the SHA-256 of the canonical arguments sent.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createToolGate, type GateTool, type ToolGate } from '../../src/mcp-gateway/tool-gate.ts';
import { receiptProblem, sha256Of } from '../../src/receipts/receipt.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let gate: ToolGate;

const UPSTREAMS = {
  files: {
    target: 'web:gate',
    tools: { rules: { wipe: 'deny', rename: { policy: 'approve', edit: ['to'] } } },
  },
  prod: { target: 'route:four-eyes' },
  nowhere: {},
};

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    routes: { 'four-eyes': { targets: ['web:quorum'], policy: 'two' } },
    configFile: { policies: { two: { required: 2 } } },
  });
  gate = createToolGate(
    { relay: relay.relay.services, asks: relay.relay.asks!, origin: () => relay.url },
    UPSTREAMS,
  );
});
afterAll(async () => {
  gate?.close();
  await relay?.stop();
});

const destructive: GateTool = {
  name: 'delete_file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  annotations: { destructiveHint: true },
};
const rename: GateTool = {
  name: 'rename',
  inputSchema: {
    type: 'object',
    properties: { from: { type: 'string' }, to: { type: 'string', pattern: '^/srv/' } },
    required: ['from', 'to'],
  },
};

const decide = (
  tool: GateTool,
  args: Record<string, unknown>,
  o: { upstream?: string; key?: string | null; signal?: AbortSignal; cancel?: boolean } = {},
) =>
  gate({
    upstream: o.upstream ?? 'files',
    tool,
    args,
    client: { keyName: o.key === undefined ? 'ci-bot' : o.key },
    signal: o.signal ?? new AbortController().signal,
    ...(o.cancel && o.signal ? { cancelled: o.signal } : {}),
  });

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

const messages = async (room: string) =>
  (await json('GET', `/web/api/rooms/${room}/messages`)).body as any[];
const openCards = async (room: string) => (await messages(room)).filter((m) => m.case && !m.final);
/** The open card of the case in `room` that is not one of `seen`, once it is there. */
const newCard = (room: string, seen: Set<string>) =>
  eventually(
    async () => (await openCards(room)).find((m) => !seen.has(m.case)),
    10_000,
    `a card in ${room}`,
  );
const tap = (room: string, m: any, action: string, user = 'ann', data?: unknown) =>
  json('POST', `/web/api/rooms/${room}/messages/${m.id}/actions/${action}`, {
    user: { id: user, name: user === 'ann' ? 'Ann' : user },
    ...(data !== undefined ? { data } : {}),
  });
const caseCount = async () => (await relay.relay.services.store.listCases({ limit: 1000 })).length;
const history = (id: string) => relay.relay.services.store.listHistory(id);
const seen = new Set<string>();

describe('policies', () => {
  it('GATE-1 allow: a read-only tool passes unchanged and nobody is asked', async () => {
    const before = await caseCount();
    const args = { path: '/srv/a' };
    const out = await decide({ name: 'stat', annotations: { readOnlyHint: true } }, args);
    expect(out).toEqual({ kind: 'send', args });
    expect(await caseCount()).toBe(before);
  });

  it('GATE-2 deny: refused without asking anyone, saying it was not sent', async () => {
    const before = await caseCount();
    const out = await decide({ name: 'wipe', annotations: { readOnlyHint: true } }, {});
    expect(out).toEqual({
      kind: 'refuse',
      message: expect.stringContaining('wipe on files is denied'),
    });
    expect((out as any).message).toContain('It was not sent.');
    expect(await caseCount()).toBe(before);
  });

  it('GATE-3 approve without a target: refused, naming the missing setting', async () => {
    const out = await decide(destructive, { path: '/x' }, { upstream: 'nowhere' });
    expect((out as any).message).toContain('mcp_upstreams[].target');
  });
});

describe('approve', () => {
  it('GATE-4 shows tool, upstream, client and every argument; confirmed: sends exactly those, once', async () => {
    const args = { path: '/srv/report.txt', recursive: false, keep: ['a', 'b'] };
    const pending = decide(destructive, args);
    const card = await newCard('gate', seen);
    seen.add(card.case);
    const text = JSON.stringify(card);
    for (const s of [
      'delete_file',
      'files',
      'ci-bot',
      '/srv/report.txt',
      'recursive: false',
      '[\\"a\\",\\"b\\"]',
    ])
      expect(text).toContain(s);
    expect((await tap('gate', card, 'confirm')).body.outcome).toBe('submitted');
    expect(await pending).toEqual({ kind: 'send', args });
    const rows = await history(card.case);
    const sent = rows.filter((r) => r.kind === 'tool_call_sent');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.detail).toEqual({
      upstream: 'files',
      tool: 'delete_file',
      client: 'ci-bot',
      arguments_sha256: sha256Of(args),
    });
    // The signed receipt binds the person who decided to the SHA-256 of the arguments sent.
    const receipt = (await json('GET', `/v1/cases/${card.case}/receipt`)).body;
    expect(receiptProblem(receipt)).toBeNull();
    expect(receipt.receipt.tool_call).toEqual({
      upstream: 'files',
      tool: 'delete_file',
      client: 'ci-bot',
      arguments_sha256: sha256Of(args),
    });
    expect(receipt.receipt.decision.submitted_by).toMatchObject({ platform_user_id: 'ann' });
    // The held call is a case like any other: its ask says who decided.
    const ask = await json('GET', `/v1/asks/${card.case}`);
    expect(ask.body).toMatchObject({ status: 'completed', answer: { confirmed: true } });
    expect(ask.body.case.labels).toMatchObject({
      mcp_upstream: 'files',
      mcp_tool: 'delete_file',
      mcp_client: 'ci-bot',
    });
  });

  it('GATE-5 refused in chat: the client is told who refused and how, nothing is sent', async () => {
    const pending = decide(destructive, { path: '/srv/keep' }, { key: null });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    expect(JSON.stringify(card)).toContain('a client with the relay API key');
    await tap('gate', card, 'cancel');
    const out = await pending;
    expect(out.kind).toBe('refuse');
    expect((out as any).message).toMatch(/^Ann \(x-web\) declined delete_file on files/);
    expect((out as any).message).toContain('It was not sent.');
    expect((await history(card.case)).some((r) => r.kind === 'tool_call_sent')).toBe(false);
  });

  it('GATE-6 edits: one the inputSchema refuses is refused at the tap; the valid edit is what is sent', async () => {
    const pending = decide(rename, { from: '/srv/a', to: '/srv/b' });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    expect(card.ask).toMatchObject({ kind: 'approval.modify' });
    const bad = await tap('gate', card, 'approve', 'ann', {
      decision: 'approve',
      values: { to: '/etc/x' },
    });
    expect(JSON.stringify(bad.body), JSON.stringify(bad.body)).toContain('must match pattern');
    const ro = await tap('gate', card, 'approve', 'ann', {
      decision: 'approve',
      values: { from: '/srv/z' },
    });
    expect(JSON.stringify(ro.body)).toContain('read-only');
    const ok = await tap('gate', card, 'approve', 'ann', {
      decision: 'approve',
      values: { to: '/srv/c' },
    });
    expect(ok.body.outcome, JSON.stringify(ok.body)).toBe('submitted');
    expect(await pending).toEqual({ kind: 'send', args: { from: '/srv/a', to: '/srv/c' } });
    const row = (await history(card.case)).find((r) => r.kind === 'tool_call_sent');
    expect(row?.detail.arguments_sha256).toBe(sha256Of({ from: '/srv/a', to: '/srv/c' }));
    const receipt = (await json('GET', `/v1/cases/${card.case}/receipt`)).body;
    expect(receipt.receipt.tool_call.arguments_sha256).toBe(row?.detail.arguments_sha256);
  });

  it('GATE-7 rejected with edits offered: the refusal says rejected and who', async () => {
    const pending = decide(rename, { from: '/srv/a', to: '/srv/d' });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    await tap('gate', card, 'reject', 'ann', { decision: 'reject' });
    expect(((await pending) as any).message).toMatch(/^Ann \(x-web\) rejected rename on files/);
    const receipt = (await json('GET', `/v1/cases/${card.case}/receipt`)).body;
    expect(receipt.receipt.tool_call.arguments_sha256).toBeNull();
  });
});

describe('one decision per held call', () => {
  it('GATE-8 identical calls join one ask; once approved, one is sent and the other told so', async () => {
    const args = { path: '/srv/twice' };
    const open = gate.waits.open;
    const first = decide(destructive, args);
    const second = decide(destructive, { ...args });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    // A third identical call arrives after the card: it joins as well.
    const third = decide(destructive, args);
    await eventually(async () => gate.waits.open === open + 3 || undefined);
    expect((await openCards('gate')).filter((m) => m.case === card.case)).toHaveLength(1);
    // Another client's identical call is its own question.
    const other = decide(destructive, args, { key: 'other-bot' });
    const otherCard = await newCard('gate', seen);
    seen.add(otherCard.case);
    expect(otherCard.case).not.toBe(card.case);
    await tap('gate', card, 'confirm');
    const outs = await Promise.all([first, second, third]);
    expect(outs.filter((o) => o.kind === 'send')).toEqual([{ kind: 'send', args }]);
    for (const o of outs.filter((x) => x.kind === 'refuse'))
      expect((o as any).message).toContain('sent once already');
    expect((await history(card.case)).filter((r) => r.kind === 'tool_call_sent')).toHaveLength(1);
    await tap('gate', otherCard, 'cancel');
    expect((await other).kind).toBe('refuse');
  });

  it('GATE-9 a client that gave up and retries joins the same decision and gets the send', async () => {
    const args = { path: '/srv/retry' };
    const open = gate.waits.open;
    const gaveUp = new AbortController();
    const first = decide(destructive, args, { signal: gaveUp.signal });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    gaveUp.abort();
    expect((await first).kind).toBe('refuse');
    const retry = decide(destructive, args);
    await eventually(async () => gate.waits.open === open + 1 || undefined);
    expect((await openCards('gate')).filter((m) => !seen.has(m.case))).toEqual([]);
    await tap('gate', card, 'confirm');
    expect(await retry).toEqual({ kind: 'send', args });
    // Sent: the next identical call is a new question.
    const again = decide(destructive, args);
    const next = await newCard('gate', seen);
    seen.add(next.case);
    expect(next.case).not.toBe(card.case);
    await tap('gate', next, 'cancel');
    expect((await again).kind).toBe('refuse');
  });

  it('GATE-10 a quorum policy: one approval is counted, the second sends', async () => {
    const args = { path: '/srv/prod' };
    const pending = decide(destructive, args, { upstream: 'prod' });
    const card = await newCard('quorum', new Set());
    expect((await tap('quorum', card, 'confirm', 'ann')).body.outcome).toBe('vote_recorded');
    const status = await json('GET', `/v1/asks/${card.case}`);
    expect(status.body.status).not.toBe('completed');
    expect((await tap('quorum', card, 'confirm', 'bob')).body.outcome).toBe('submitted');
    expect(await pending).toEqual({ kind: 'send', args });
  });

  it('GATE-11 a client that cancels a held call: its ask is withdrawn (the card says so), a retry is a new question', async () => {
    const args = { path: '/srv/cancelled' };
    const cancel = new AbortController();
    const first = decide(destructive, args, { signal: cancel.signal, cancel: true });
    const card = await newCard('gate', seen);
    seen.add(card.case);
    cancel.abort();
    const out = await first;
    expect(out.kind).toBe('refuse');
    expect((out as any).message).toContain('was withdrawn');
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled');
    expect(ended.reason).toContain('MCP client cancelled the tool call');
    await eventually(async () =>
      (await messages('gate')).find((m) => m.case === card.case && m.final),
    );
    const retry = decide(destructive, args);
    const next = await newCard('gate', seen);
    seen.add(next.case);
    expect(next.case).not.toBe(card.case);
    await tap('gate', next, 'cancel');
    expect((await retry).kind).toBe('refuse');
  });

  it('GATE-12 one of two identical callers cancels: the ask stays for the other, who gets the send', async () => {
    const args = { path: '/srv/one-cancels' };
    const open = gate.waits.open;
    const cancel = new AbortController();
    const quitter = decide(destructive, args, { signal: cancel.signal, cancel: true });
    const stayer = decide(destructive, args);
    const card = await newCard('gate', seen);
    seen.add(card.case);
    await eventually(async () => gate.waits.open === open + 2 || undefined);
    cancel.abort();
    expect(((await quitter) as any).message).toContain('stays open');
    await tap('gate', card, 'confirm');
    expect(await stayer).toEqual({ kind: 'send', args });
  });
});
