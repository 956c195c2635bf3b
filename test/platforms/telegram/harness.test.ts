/** The harness itself, before the shared contract suite drives it with the real engine. */
import { describe, expect, it } from 'vitest';
import type { AdapterContext, Tap } from '../../../src/adapter.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { makeTelegramPollingHarness, makeTelegramWebhookHarness } from './harness.ts';
import { makeCard, memoryLogger, serveRoutes } from './helpers.ts';

for (const [mode, make] of [
  ['polling', makeTelegramPollingHarness],
  ['webhook', makeTelegramWebhookHarness],
] as const) {
  describe(`telegram harness (${mode})`, () => {
    it('posts, reads back, taps with a real update and returns the toast', async () => {
      const harness = await make();
      const relay = await serveRoutes(harness.adapter.routes);
      const taps: Tap[] = [];
      const ctx: AdapterContext = {
        kv: new MemoryKeyValue(),
        log: memoryLogger().log,
        onTap: async (tap) => {
          taps.push(tap);
          return { outcome: 'forbidden', text: 'You are not allowed to answer here.', card: null };
        },
      };
      try {
        await harness.adapter.start(ctx);
        const address = harness.target.slice('telegram:'.length);
        const ref = await harness.adapter.post(address, makeCard());
        expect(await harness.messages(address)).toEqual([ref]);
        expect(await harness.read(ref)).toEqual({
          text: expect.stringContaining('<b>Approval needed</b>'),
          actions: ['approve', 'reject'],
          link: 'https://service.example/review/case-123',
        });
        const { notice } = await harness.tap({
          ref,
          action: 'reject',
          user: harness.users.stranger,
          relayUrl: relay.url,
        });
        expect(notice).toBe('You are not allowed to answer here.');
        expect(taps).toEqual([
          expect.objectContaining({
            key: 'k7Qx2',
            action: 'reject',
            user: harness.users.stranger,
            ref,
          }),
        ]);
        // A stale client can still tap a button that an edit removed.
        await harness.adapter.update(ref, makeCard({ final: true }));
        expect((await harness.read(ref)).actions).toEqual([]);
        await harness.tap({
          ref,
          action: 'approve',
          user: harness.users.allowed,
          relayUrl: relay.url,
        });
        expect(taps[1]).toMatchObject({ action: 'approve', user: harness.users.allowed });
        expect(harness.requests().length).toBeGreaterThan(0);
      } finally {
        await relay.close();
        await harness.close();
      }
    });
  });
}
