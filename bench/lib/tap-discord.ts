/**
 * Discord's part of benchmark 1: the real adapter in HTTP interactions mode against the fake REST
 * API. A tap is a signed MESSAGE_COMPONENT interaction POSTed to /discord/interactions (as the
 * Discord tests build it); the HTTP answer is the interaction response, which the benchmark applies
 * at the fake as Discord would. The message shows the outcome once a PATCH of it arrives (the
 * relay edits the card when the outcome is confirmed) or, for the bare route, once its
 * UPDATE_MESSAGE answer is applied: it checks the Ed25519 signature, submits and answers with the
 * edited message.
 */
import { createPublicKey, verify } from 'node:crypto';
import { request } from 'undici';
import { createDiscordAdapter, DISCORD_INTERACTIONS_PATH } from '../../platforms/discord/index.ts';
import { type FakeDiscordMessage, startFakeDiscord } from '../../test/fakes/discord-api.ts';
import {
  componentInteraction,
  makeSigningKeys,
  signInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_TOKEN,
} from '../../test/platforms/discord/harness.ts';
import type { BareChatCase } from './bare-chat.ts';
import { type ChatTapBench, type ChatTapDeps, caseIdIn, sampleOf } from './tap-chat.ts';

// The adapter holds each channel to Discord's 5 messages per 5 s from the first send on, so the
// relay's cards are spread over channels of 5 (the cost of a tap is the same in any channel).
const PER_CHANNEL = 5;
const relayChannel = (i: number) =>
  String(1_200_000_000_000_010_000n + BigInt(Math.floor(i / PER_CHANNEL)));
const BARE_CHANNEL = '1200000000000000102';
const USER = { id: '2100000000000000001', name: 'Ann' };
const UPDATE_MESSAGE = 7;

/** Starts the fake and the adapter (not started: the relay starts it). */
export async function discordTapBench({ marks, bare }: ChatTapDeps): Promise<ChatTapBench> {
  const fake = await startFakeDiscord({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
  });
  // Not a limit: the hook sees every call as it arrives, which is when the edit landed.
  fake.setLimiter((method, route) => {
    const m = /^\/channels\/\d+\/messages\/(\d+)$/.exec(route);
    if (method === 'PATCH' && m) marks.mark(`edit:discord:${m[1]}`);
    return { headers: {} };
  });
  const { publicKeyHex, privateKey } = makeSigningKeys();
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') },
    format: 'jwk',
  });
  const adapter = createDiscordAdapter({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
    publicKey: publicKeyHex,
    apiUrl: fake.apiUrl,
    mode: 'http',
  });
  const messages = new Map<string, FakeDiscordMessage>(); // service case id -> card
  const relayChannels = new Set<string>();
  const cases = new Map<string, BareChatCase>();

  bare.route({
    path: DISCORD_INTERACTIONS_PATH,
    async handle(raw, headers) {
      const ts = String(headers['x-signature-timestamp'] ?? '');
      const sig = Buffer.from(String(headers['x-signature-ed25519'] ?? ''), 'hex');
      if (!verify(null, Buffer.from(ts + raw), publicKey, sig)) return { status: 401 };
      const i = JSON.parse(raw);
      const [, id = '', action = ''] = String(i.data?.custom_id ?? '').split(':');
      const c = cases.get(id);
      if (!c) return { status: 200, body: { type: 6 } };
      const done = await bare.submit(c, action, 'discord', i.member.user.id);
      const content = done ? `${c.text}\n\nApproved by ${i.member.user.global_name}` : c.text;
      return { status: 200, body: { type: UPDATE_MESSAGE, data: { content, components: [] } } };
    },
  });

  return {
    name: 'discord',
    adapter,
    target(i) {
      relayChannels.add(relayChannel(i));
      return `discord:${relayChannel(i)}`;
    },
    attach: async () => {},
    async addBare(id, hitl) {
      cases.set(id, { submitUrl: hitl.submit_url!, token: hitl.submit_token!, text: hitl.prompt! });
      const sent = await bare.send(
        'POST',
        `${fake.apiUrl}/v10/channels/${BARE_CHANNEL}/messages`,
        {
          content: hitl.prompt,
          components: [
            {
              type: 1,
              components: [
                { type: 2, style: 1, label: 'Approve', custom_id: `hitl:${id}:approve` },
              ],
            },
          ],
        },
        { authorization: `Bot ${TEST_DISCORD_TOKEN}` },
      );
      messages.set(id, fake.message(BARE_CHANNEL, JSON.parse(sent.text).id)!);
    },
    indexRelay() {
      for (const channel of relayChannels) {
        for (const m of fake.messages(channel)) {
          const id = caseIdIn(m.content);
          if (id && !m.message_reference) messages.set(id, m);
        }
      }
    },
    async tap(side, id, url) {
      const message = messages.get(id)!;
      const customId = message.components
        .flatMap((row) => row.components)
        .map((b) => b.custom_id)
        .find((c) => c?.endsWith(':approve'));
      if (!customId) throw new Error(`discord card of ${id} has no approve button`);
      const interaction = componentInteraction({ message, customId, user: USER });
      const token = interaction.token as string;
      fake.registerInteraction({
        id: interaction.id as string,
        token,
        channelId: message.channel_id,
        messageId: message.id,
      });
      const body = JSON.stringify(interaction);
      const headers = signInteraction(privateKey, body);
      const submitted = marks.wait(`submit:${id}`);
      const edited = marks.wait(`edit:discord:${message.id}`);
      const t0 = performance.now();
      const res = await request(`${url}${DISCORD_INTERACTIONS_PATH}`, {
        method: 'POST',
        headers,
        body,
      });
      const answer = await res.body.json();
      const reply = performance.now();
      if (res.statusCode !== 200)
        throw new Error(`discord tap on ${id} answered ${res.statusCode}`);
      const applied = fake.applyInteractionResponse(interaction.id as string, token, answer);
      if (applied.status >= 300) throw new Error(`fake Discord refused ${JSON.stringify(answer)}`);
      // The bare route's edit is its answer: the message shows it once Discord applied it.
      if (side === 'bare') marks.mark(`edit:discord:${message.id}`);
      return sampleOf(t0, reply, submitted, edited);
    },
    close: () => fake.close(),
  };
}
