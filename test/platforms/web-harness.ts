/** The web chat's harness: its "platform" is the relay itself, so taps and reads go through /web/api. */
import { request } from 'undici';
import { createWebAdapter } from '../../platforms/web/index.ts';
import type { MessageRef } from '../../src/adapter.ts';
import type { AdapterHarness, MakeHarness } from '../contract/harness.ts';

/** Builds a web chat harness; it learns the relay URL at the first tap or read. */
export const makeWebHarness: MakeHarness = async () => {
  const adapter = createWebAdapter();
  let relayUrl = '';
  // The web adapter has no remote platform: what the "platform" holds is what /web/api serves.
  const bodies: string[] = [];
  const messagesOf = async (room: string) => {
    const res = await request(`${relayUrl}/web/api/rooms/${room}/messages`);
    const text = await res.body.text();
    bodies.push(text);
    return JSON.parse(text) as Array<{
      id: string;
      case: string | null;
      text: string;
      actions: { action: string }[];
      link: { url: string } | null;
    }>;
  };
  const harness: AdapterHarness = {
    adapter,
    target: 'web:contract',
    users: { allowed: { id: 'ann', name: 'Ann' }, stranger: { id: 'mallory', name: 'Mallory' } },
    nativeConfirm: false,
    async read(ref: MessageRef) {
      const m = (await messagesOf(ref.address)).find((x) => x.id === ref.id);
      if (!m) throw new Error(`no web message ${ref.id}`);
      return { text: m.text, actions: m.actions.map((a) => a.action), link: m.link?.url ?? null };
    },
    async messages(room: string) {
      return (await messagesOf(room))
        .filter((m) => m.case)
        .map((m) => ({ platform: 'web', address: room, id: m.id }));
    },
    async tap({ ref, action, user, relayUrl: url }) {
      relayUrl = url;
      const res = await request(
        `${url}/web/api/rooms/${ref.address}/messages/${ref.id}/actions/${action}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ user }),
        },
      );
      const body = (await res.body.json()) as { outcome: string; text: string };
      bodies.push(JSON.stringify(body));
      return { notice: body.outcome === 'submitted' ? null : body.text };
    },
    async attach(url) {
      relayUrl = url;
    },
    requests: () => bodies,
    async close() {},
  };
  return harness;
};
