/**
 * The shared adapter contract: the same case lifecycle against every platform's fake, through a
 * real relay and the real demo HITL service. A platform passes this suite or is not done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIRM_MIN_MS } from '../../src/tap/confirm-irreversible.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import type { AdapterHarness, MakeHarness } from './harness.ts';

/** Runs the contract suite for one adapter (one receive mode). */
export function runAdapterContract(name: string, makeHarness: MakeHarness): void {
  describe(`adapter contract: ${name}`, () => {
    let h: AdapterHarness;
    let demo: DemoHandle;
    let relay: RelayHandle;

    beforeEach(async () => {
      h = await makeHarness();
      demo = await startDemo();
      relay = await startRelay({
        adapters: [h.adapter],
        allow: { [h.target]: [h.users.allowed.id] },
      });
      await h.attach?.(relay.url);
    });
    afterEach(async () => {
      await relay?.stop();
      await demo?.stop();
      await h?.close();
    });

    const address = () => h.target.slice(h.target.indexOf(':') + 1);

    /** Creates a demo case, sends it to the harness's target, and returns the relay case and its message. */
    async function sendCase(
      type: string,
      inline = true,
      body: Record<string, unknown> = {},
      edit?: (r: any) => void,
    ) {
      const response = await demo.create(type, inline, body);
      edit?.(response);
      const before = (await h.messages(address())).length;
      const sent = await relay.send(h.target, response);
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      const refs = await eventually(
        async () => {
          const all = await h.messages(address());
          return all.length > before ? all : null;
        },
        10_000,
        'the card to be posted',
      );
      return { response, id: sent.body.id as string, ref: refs.at(-1)!, hitl: response.hitl };
    }

    async function tapUntilSubmitted(
      ref: Parameters<AdapterHarness['tap']>[0]['ref'],
      action: string,
      confirm: boolean,
    ) {
      const first = await h.tap({ ref, action, user: h.users.allowed, relayUrl: relay.url });
      if (confirm && !h.nativeConfirm) {
        // The confirming tap counts once the warning has been up for CONFIRM_MIN_MS.
        await new Promise((resolve) => setTimeout(resolve, CONFIRM_MIN_MS));
        return h.tap({ ref, action, user: h.users.allowed, relayUrl: relay.url });
      }
      return first;
    }

    /**
     * The card shows that its case ended: edited to have no buttons (and `text`), or, on a platform
     * that cannot edit (`edits: false`), by exactly one reply quoting it that states the outcome.
     */
    async function cardEnded(ref: Parameters<AdapterHarness['read']>[0], text?: RegExp) {
      if (h.edits !== false) {
        await eventually(
          async () => (await h.read(ref)).actions.length === 0,
          10_000,
          'the final card',
        );
        if (text) expect((await h.read(ref)).text).toMatch(text);
        return;
      }
      const replies = await eventually(
        async () => {
          const all = await h.replies!(ref);
          return all.length > 0 && (!text || all.some((r) => text.test(r.text))) ? all : null;
        },
        10_000,
        'the outcome reply',
      );
      const outcome = replies.filter((r) => r.actions.length === 0 && (!text || text.test(r.text)));
      expect(outcome.length).toBeGreaterThan(0);
    }

    it('posts one card with exactly the inline-allowed actions and a Details link', async () => {
      const { ref } = await sendCase('confirmation');
      const seen = await h.read(ref);
      expect(seen.actions).toEqual(['confirm', 'cancel']);
      expect(seen.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/r\//);
      const plain = await sendCase('approval', false);
      const seenPlain = await h.read(plain.ref);
      expect(seenPlain.actions).toEqual([]);
      expect(seenPlain.link).toBeTruthy();
    });

    it('a tap submits once to the service and the card ends with no buttons', async () => {
      const { ref, id, hitl } = await sendCase('approval');
      expect((await h.read(ref)).actions).toEqual(['approve', 'reject']);
      await tapUntilSubmitted(ref, 'approve', false);
      const done = await relay.until(id, (c) => c.status === 'completed');
      expect(done.result.action).toBe('approve');
      expect(done.submitted_by.platform_user_id).toBe(h.users.allowed.id);
      const subs = (await demo.submissions()).filter((s) => s.case_id === hitl.case_id);
      expect(subs).toHaveLength(1);
      expect(subs[0]!.bearer_valid).toBe(true);
      expect(subs[0]!.body.action).toBe('approve');
      await cardEnded(ref, h.edits === false ? /approved/i : undefined);
      if (h.edits === false) {
        // The follow-up rule: the card still shows its buttons, and a tap on it is only answered.
        const again = await h.tap({
          ref,
          action: 'reject',
          user: h.users.allowed,
          relayUrl: relay.url,
        });
        expect(again.notice).toMatch(/already decided/i);
        expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(
          1,
        );
        const outcomes = (await h.replies!(ref)).filter(
          (r) => /approved/i.test(r.text) && !/already decided/i.test(r.text),
        );
        expect(outcomes).toHaveLength(1);
      }
    });

    it('an irreversible action asks for confirmation before anything is submitted', async () => {
      const { ref, id, hitl } = await sendCase('confirmation');
      if (!h.nativeConfirm) {
        await h.tap({ ref, action: 'confirm', user: h.users.allowed, relayUrl: relay.url });
        expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(
          0,
        );
        expect((await relay.get(id)).status).toBe('pending');
      }
      await tapUntilSubmitted(ref, 'confirm', !h.nativeConfirm);
      await relay.until(id, (c) => c.status === 'completed' && c.result.action === 'confirm');
      expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(1);
    });

    it('a tap from someone not on the allowlist changes nothing', async () => {
      const { ref, id, hitl } = await sendCase('approval');
      const before = await h.read(ref);
      const seen = await h.tap({
        ref,
        action: 'approve',
        user: h.users.stranger,
        relayUrl: relay.url,
      });
      if (seen.notice !== null) expect(seen.notice).toMatch(/not allowed/i);
      expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(0);
      expect((await relay.get(id)).status).toBe('pending');
      expect((await h.read(ref)).actions).toEqual(before.actions);
    });

    it('a 403 from the service points the person to Details and decides nothing', async () => {
      // The service allows only approve inline; the agent forwards a body that also lists reject.
      const { ref, id } = await sendCase('approval', true, { inline_actions: ['approve'] }, (r) => {
        r.hitl.inline_actions = ['approve', 'reject'];
      });
      const seen = await h.tap({
        ref,
        action: 'reject',
        user: h.users.allowed,
        relayUrl: relay.url,
      });
      if (seen.notice !== null) expect(seen.notice).toMatch(/Details/);
      const c = await relay.get(id);
      expect(c.status).toBe('pending');
      expect(c.history.some((e: any) => e.kind === 'submit' && e.outcome === 'forbidden')).toBe(
        true,
      );
    });

    it('two taps at once produce exactly one submit', async () => {
      const { ref, id, hitl } = await sendCase('escalation');
      const user = h.users.allowed;
      await Promise.all([
        h.tap({ ref, action: 'skip', user, relayUrl: relay.url }),
        h.tap({ ref, action: 'skip', user, relayUrl: relay.url }),
        h.tap({ ref, action: 'retry', user, relayUrl: relay.url }),
      ]);
      await relay.until(id, (c) => c.status === 'completed');
      expect(
        (await demo.submissions()).filter((s) => s.case_id === hitl.case_id && s.bearer_valid),
      ).toHaveLength(1);
    });

    it('expiry and cancellation at the service end the card without buttons', async () => {
      const a = await sendCase('confirmation');
      const b = await sendCase('escalation');
      await demo.act(a.hitl.case_id, { step: 'expire' });
      await demo.act(b.hitl.case_id, { step: 'cancel' });
      await relay.until(a.id, (c) => c.status === 'expired');
      await relay.until(b.id, (c) => c.status === 'cancelled');
      await cardEnded(a.ref, /expired/i);
      await cardEnded(b.ref, /cancelled/i);
    });

    it('a slow service submit: the platform still gets its answer in its window', async () => {
      const window = h.answerWindowMs;
      if (window === undefined) return;
      const { ref, id, hitl } = await sendCase('approval');
      await demo.fault({ route: 'respond', kind: 'slow', count: 1, delay_ms: 3_500 });
      const seen = await tapUntilSubmitted(ref, 'approve', false);
      expect(seen.answerMs).toBeLessThan(window);
      await relay.until(id, (c) => c.status === 'completed', 15_000);
      expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(1);
      await cardEnded(ref);
    });

    /** POST /v1/cases/:id/repost, as an agent would call it. */
    async function repost(id: string): Promise<{ reposted: string[] }> {
      const res = await fetch(`${relay.url}/v1/cases/${id}/repost`, { method: 'POST' });
      expect(res.status).toBe(200);
      return (await res.json()) as { reposted: string[] };
    }

    /** Cancels the case at the service, so the relay edits its card, and waits for the record. */
    async function editAfterWorldChange(id: string, caseId: string) {
      await demo.act(caseId, { step: 'cancel' });
      return relay.until(
        id,
        (c) => c.status === 'cancelled' && c.messages[0]?.state === 'gone',
        15_000,
      );
    }

    it('a card deleted by a person: recorded on the case, which goes on; reposted on request', async () => {
      const world = h.world;
      if (!world) return;
      const { ref, id, hitl } = await sendCase('approval');
      world.deleteMessage(ref);
      const before = (await h.messages(address())).length;
      const c = await editAfterWorldChange(id, hitl.case_id);
      expect(c.messages[0].error).toBeTruthy();
      const gone = c.history.filter((e: any) => e.kind === 'message_gone');
      expect(gone).toHaveLength(1);
      expect(gone[0]).toMatchObject({ target: h.target, reason: 'not_found' });
      const answer = await repost(id);
      expect(answer.reposted).toEqual([h.target]);
      const refs = await eventually(
        async () => {
          const all = await h.messages(address());
          return all.length > before ? all : null;
        },
        10_000,
        'the reposted card',
      );
      const seen = await h.read(refs.at(-1)!);
      expect(seen.text).toMatch(/cancelled/i);
      expect(seen.actions).toEqual([]);
      const after = await relay.get(id);
      expect(after.messages[0].state).toBe('posted');
      expect(after.history.some((e: any) => e.kind === 'repost')).toBe(true);
      // Nothing else to repost now.
      expect((await repost(id)).reposted).toEqual([]);
    });

    it('the bot removed from the chat: recorded on the case, which goes on', async () => {
      const world = h.world;
      if (!world) return;
      const { id, hitl } = await sendCase('approval');
      world.removeBot();
      const c = await editAfterWorldChange(id, hitl.case_id);
      const gone = c.history.filter((e: any) => e.kind === 'message_gone');
      expect(gone).toHaveLength(1);
      expect(gone[0]).toMatchObject({ target: h.target, reason: 'forbidden' });
      expect(c.messages[0].error).toBeTruthy();
    });

    it('the channel archived: recorded on the case, which goes on', async () => {
      const world = h.world;
      if (!world?.archive) return;
      const { id, hitl } = await sendCase('approval');
      world.archive();
      const c = await editAfterWorldChange(id, hitl.case_id);
      expect(c.history.filter((e: any) => e.kind === 'message_gone')).toHaveLength(1);
      expect(c.messages[0].error).toMatch(/archived/);
    });

    it('the chat moved to a new id: recorded with the new target; a repost lands there', async () => {
      const world = h.world;
      if (!world?.migrate) return;
      const { id, hitl } = await sendCase('approval');
      const moved = world.migrate();
      const c = await editAfterWorldChange(id, hitl.case_id);
      const platform = h.target.slice(0, h.target.indexOf(':'));
      expect(c.messages[0].error).toContain(`${platform}:${moved}`);
      expect((await repost(id)).reposted).toEqual([h.target]);
      const refs = await eventually(
        async () => {
          const all = await h.messages(moved);
          return all.length ? all : null;
        },
        10_000,
        'the card in the new chat',
      );
      expect((await h.read(refs[0]!)).text).toMatch(/cancelled/i);
      const after = await relay.get(id);
      expect(
        after.history.some(
          (e: any) => e.kind === 'target_moved' && e.to === `${platform}:${moved}`,
        ),
      ).toBe(true);
    });

    it('no submit token or review token reaches the platform', async () => {
      const { ref, id, hitl } = await sendCase('approval');
      await tapUntilSubmitted(ref, 'approve', false);
      await relay.until(id, (c) => c.status === 'completed');
      const reviewToken = new URL(hitl.review_url).searchParams.get('token')!;
      const all = h.requests().join('\n');
      expect(all).not.toContain(hitl.submit_token);
      expect(all).not.toContain(reviewToken);
    });
  });
}
