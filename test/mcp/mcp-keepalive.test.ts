/**
 * A call without Tasks that gave a progress token is held on its own SSE stream until the person
 * answers. Both paths of /mcp (the lean path, src/mcp/lean-wait.ts, and the SDK's per-request
 * transport) write a `: keepalive` comment after every 15 s of the stream, so that proxies and idle
 * timeouts keep it open, and stop when the call ends (answered or cancelled). The relay's
 * setInterval runs on vitest's fake clock; the order of the bytes on the stream tells when each
 * comment was written (before or after the answer's frame), so nothing here sleeps.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const REVISION = '2026-07-28';
const COMMENT = ': keepalive\n\n';
let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

let id = 0;
/** An ask_confirm call without Tasks, with a progress token; `sdk` sends it to the SDK path. */
function held(room: string, sdk: boolean, signal?: AbortSignal) {
  const caps = sdk ? { roots: {} } : {};
  return fetch(`${relay.url}/mcp`, {
    method: 'POST',
    ...(signal ? { signal } : {}),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': 'ask_confirm',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: {
        name: 'ask_confirm',
        arguments: { prompt: 'Fine?', target: `web:${room}` },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'keepalive-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': caps,
          progressToken: 1,
        },
      },
    }),
  });
}

/** The held stream's text so far, read on until it holds `what` (or, with no `what`, to its end). */
async function readOn(reader: ReadableStreamDefaultReader<string>, text: string, what?: string) {
  while (what === undefined || !text.includes(what)) {
    const r = await reader.read();
    if (r.done) return text;
    text += r.value;
  }
  return text;
}

/** A held call whose card is posted: its stream's reader and the text read so far. */
async function open(room: string, sdk: boolean, signal?: AbortSignal) {
  const res = await held(room, sdk, signal);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const text = await readOn(reader, '', `posted to web:${room}`);
  return { reader, text };
}

/** Ann confirms the open ask in `room` in the web chat. */
async function confirm(room: string) {
  const m = await eventually(
    async () => {
      const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages`);
      return ((await res.json()) as any[]).find((x) => x.case && !x.final);
    },
    10_000,
    `a card in ${room}`,
  );
  const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { confirmed: true } }),
  });
  expect((await res.json()).outcome).toBe('submitted');
}

const count = (text: string) => text.split(COMMENT).length - 1;

describe.each([
  ['lean', false],
  ['SDK', true],
])('a held progress stream on the %s path', (path, sdk) => {
  it('gets a keep-alive comment after 15 s of silence, not before, and none after its end', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const timers = vi.getTimerCount();
    const early = await open(`ka-early-${path}`, sdk);
    expect(vi.getTimerCount()).toBeGreaterThan(timers);
    await vi.advanceTimersByTimeAsync(14_999);
    await confirm(`ka-early-${path}`);
    const answered = await readOn(early.reader, early.text);
    expect(answered).toContain('"confirmed":true');
    expect(count(answered)).toBe(0);
    expect(vi.getTimerCount()).toBe(timers);

    const late = await open(`ka-late-${path}`, sdk);
    await vi.advanceTimersByTimeAsync(15_000);
    await vi.advanceTimersByTimeAsync(15_000);
    await confirm(`ka-late-${path}`);
    const text = await readOn(late.reader, late.text);
    const result = text.indexOf('"result"');
    expect(result).toBeGreaterThan(0);
    expect(count(text.slice(0, result))).toBe(2);
    expect(count(text)).toBe(2);
    expect(vi.getTimerCount()).toBe(timers);
  });

  it('stops its keep-alive when the client cancels the call', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const timers = vi.getTimerCount();
    const abort = new AbortController();
    const room = `ka-cancel-${path}`;
    const call = await open(room, sdk, abort.signal);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(count(await readOn(call.reader, call.text, COMMENT))).toBe(1);
    abort.abort();
    await call.reader.cancel().catch(() => undefined);
    await eventually(async () => vi.getTimerCount() === timers, 10_000, 'the keep-alive cleared');
    const m = await eventually(async () => {
      const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages`);
      return (await res.text()).includes('the agent cancelled the request');
    });
    expect(m).toBe(true);
  });
});
