/** relay.ask(): the typed answer of each family comes back through the TypeScript client. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { RelayClient } from '../../src/client/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { roomMessages } from './helpers.ts';

let relay: RelayHandle;
let client: RelayClient;
beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 });
});
afterAll(async () => {
  await relay?.stop();
});

/** Answers the ask in `room` as Ann through the web chat, once its card is there. */
async function answerIn(room: string, action: string, data: Record<string, unknown>) {
  const m = await eventually(
    async () => (await roomMessages(relay.url, room)).find((x) => x.ask),
    10_000,
    `an ask in ${room}`,
  );
  const res = await request(
    `${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data }),
    },
  );
  return res.body.json();
}

describe('relay.ask', () => {
  it('returns a multi decision typed as {selected: string[]}', async () => {
    const asked = client.ask(
      {
        type: 'decision',
        sub_type: 'multi',
        prompt: 'Select the teams to notify.',
        options: [
          { key: 'infra', label: 'Infrastructure' },
          { key: 'backend', label: 'Backend' },
        ],
        max_select: 2,
      },
      { target: 'web:client-multi', timeoutMs: 15_000 },
    );
    await answerIn('client-multi', 'select', { selected: ['backend'] });
    const out = await asked;
    expectTypeOf(out.answer).toEqualTypeOf<{ selected: string[] } | null>();
    expect(out).toMatchObject({ kind: 'decision.multi', status: 'completed', final: true });
    expect(out.answer?.selected).toEqual(['backend']);
    expect(out.approval).toBeNull();
  });

  it('returns an edited draft with the agentos approval view', async () => {
    let id = '';
    const asked = client.ask(
      { type: 'edit', sub_type: 'content', prompt: 'Edit the reply.', draft: 'Hi.' },
      { target: 'web:client-edit', onCreated: (c) => (id = c.id) },
    );
    await answerIn('client-edit', 'submit', { content: 'Hello there.' });
    const out = await asked;
    expectTypeOf(out.answer).toEqualTypeOf<{ content: string } | null>();
    expect(id).toBe(out.id);
    expect(out.answer).toEqual({ content: 'Hello there.' });
    expect(out.approval).toEqual({ approved: true, modifications: { output: 'Hello there.' } });
  });

  it('gives up waiting after timeoutMs with the ask still open, and reports refusals', async () => {
    const open = await client.ask(
      {
        type: 'context',
        sub_type: 'confirm',
        prompt: 'Read the policy?',
        statement: 'PII is deleted after 90 days.',
      },
      { target: 'web:client-open', timeoutMs: 0 },
    );
    expectTypeOf(open.answer).toEqualTypeOf<{ confirmed: boolean } | null>();
    expect(open).toMatchObject({ final: false, answer: null, status: 'pending' });
    await expect(
      client.ask(
        { type: 'decision', sub_type: 'rank', prompt: 'Rank', options: [{ key: 'a', label: 'A' }] },
        { target: 'web:client-bad' },
      ),
    ).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      details: [{ path: 'content.options' }],
    });
  });
});
