/** WhatsApp for the shared adapter contract suite: the real adapter against the fake Graph API. */
import { randomBytes } from 'node:crypto';
import {
  createWhatsappAdapter,
  type WhatsAppAdapter,
  type WhatsappAdapterOptions,
} from '../../../platforms/whatsapp/index.ts';
import { parsePayload } from '../../../platforms/whatsapp/parse.ts';
import type { MessageRef } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import {
  type FakeGraphOptions,
  FakeWhatsAppGraph,
  type SentMessage,
} from '../../fakes/whatsapp-graph.ts';

export const WEBHOOK_PATH = '/whatsapp/webhook';
export const ALLOWED = { id: '4915112345678', name: 'Ann Example' };
export const STRANGER = { id: '4917699887766', name: 'Mallory' };

/** The text a person sees of a sent message (body, or a template's variables). */
export function shownText(m: SentMessage): string {
  const b = m.body;
  if (b.type === 'text') return b.text.body;
  if (b.type === 'interactive') return b.interactive.body.text;
  const params =
    (b.template?.components ?? []).find((c: any) => c.type === 'body')?.parameters ?? [];
  return params.map((p: any) => p.text).join('\n');
}

/** Every reply id a person can tap on a sent message (buttons, list rows, quick replies). */
export function replyIds(
  m: SentMessage,
): Array<{ id: string; via: 'button' | 'list' | 'template' }> {
  const b = m.body;
  if (b.type === 'template')
    return (b.template.components ?? [])
      .filter((c: any) => c.sub_type === 'quick_reply')
      .map((c: any) => ({ id: c.parameters[0].payload, via: 'template' as const }));
  if (b.type !== 'interactive') return [];
  if (b.interactive.type === 'button')
    return b.interactive.action.buttons.map((x: any) => ({
      id: x.reply.id,
      via: 'button' as const,
    }));
  if (b.interactive.type === 'list')
    return b.interactive.action.sections.flatMap((s: any) =>
      s.rows.map((r: any) => ({ id: r.id, via: 'list' as const })),
    );
  return [];
}

/** A sent message as the contract reads it. */
export function seen(m: SentMessage): SeenMessage {
  const text = shownText(m);
  const cta =
    m.body.interactive?.type === 'cta_url' ? m.body.interactive.action.parameters.url : null;
  const inBody = /https?:\/\/\S+\/r\/\S+/.exec(text)?.[0] ?? null;
  return {
    text,
    actions: replyIds(m).flatMap((r) => parsePayload(r.id)?.action ?? []),
    link: cta ?? inBody,
  };
}

/** A card is a message that starts a thread: no quoted context, and not a plain text answer. */
export function isCard(m: SentMessage): boolean {
  return !m.body.context && m.body.type !== 'text';
}

export interface WhatsAppHarness extends AdapterHarness {
  fake: FakeWhatsAppGraph;
  adapter: WhatsAppAdapter;
}

/** The harness, with options for the adapter and the fake (templates, clocks) for other tests. */
export async function makeWhatsAppHarness(
  o: {
    fake?: FakeGraphOptions;
    adapter?: Partial<WhatsappAdapterOptions>;
    openWindow?: boolean;
  } = {},
): Promise<WhatsAppHarness> {
  // A pair interval of 20 ms stands for WhatsApp's 6 s, so the suite never waits for real.
  const fake = await FakeWhatsAppGraph.start({ pairIntervalMs: 20, ...o.fake });
  const adapter = createWhatsappAdapter({
    accessToken: fake.token,
    appSecret: fake.appSecret,
    verifyToken: randomBytes(12).toString('hex'),
    templates: {},
    graphUrl: fake.apiRoot,
    graphVersion: 'v23.0',
    webhookPath: WEBHOOK_PATH,
    pace: { pairIntervalMs: 25 },
    ...o.adapter,
  });
  const address = `${fake.phoneId}:${ALLOWED.id}`;
  let relay = '';
  const stored = (ref: MessageRef) => {
    const m = fake.message(ref.id);
    if (!m) throw new Error(`the fake holds no message ${ref.id}`);
    return m;
  };
  return {
    fake,
    adapter,
    target: `whatsapp:${address}`,
    users: { allowed: ALLOWED, stranger: STRANGER },
    nativeConfirm: false,
    edits: false,
    async attach(relayUrl) {
      relay = relayUrl;
      if (o.openWindow === false) return;
      // The person asks for the chat's target first, which opens their 24-hour window.
      const body = fake.webhookBody([
        { kind: 'text', from: ALLOWED.id, name: ALLOWED.name, text: '/hitl_id' },
      ]);
      const res = await fake.deliver(`${relayUrl}${WEBHOOK_PATH}`, body);
      if (res.status !== 200) throw new Error(`the relay answered the webhook with ${res.status}`);
    },
    async read(ref) {
      return seen(stored(ref));
    },
    async messages(addr) {
      const to = addr.slice(addr.indexOf(':') + 1);
      return fake
        .messagesTo(to)
        .filter(isCard)
        .map((m) => ({ platform: 'whatsapp', address: addr, id: m.id }));
    },
    async replies(ref) {
      return fake.sent.filter((m) => m.body.context?.message_id === ref.id).map(seen);
    },
    async tap({ ref, action, user, relayUrl }) {
      const card = stored(ref);
      const reply = replyIds(card).find((r) => parsePayload(r.id)?.action === action);
      if (!reply) throw new Error(`message ${ref.id} never had a "${action}" button`);
      const before = fake.sent.length;
      const body = fake.webhookBody([
        {
          kind: 'reply',
          from: user.id,
          name: user.name ?? 'Someone',
          contextId: ref.id,
          id: reply.id,
          via: reply.via,
        },
      ]);
      const res = await fake.deliver(`${relayUrl || relay}${WEBHOOK_PATH}`, body);
      if (res.status !== 200) throw new Error(`the relay answered the webhook with ${res.status}`);
      const answers = fake.sent
        .slice(before)
        .filter((m) => m.to === user.id && m.body.context?.message_id === ref.id);
      return { notice: answers.length ? shownText(answers[0]!) : null };
    },
    requests: () => fake.requests(),
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

export const makeWhatsAppContractHarness: MakeHarness = () => makeWhatsAppHarness();
