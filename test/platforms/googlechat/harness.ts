/** Google Chat for the shared adapter contract suite: the real adapter against the fake Google Chat. */

import { readServiceAccountKey } from '../../../platforms/googlechat/config.ts';
import {
  createGooglechatAdapter,
  type GooglechatAdapter,
  type GooglechatAdapterOptions,
} from '../../../platforms/googlechat/index.ts';
import { parsePayload } from '../../../platforms/googlechat/parse.ts';
import type { MessageRef } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import {
  type FakeChatOptions,
  FakeGoogleChat,
  type StoredMessage,
} from '../../fakes/googlechat-api.ts';

export const EVENTS_PATH = '/googlechat/events';
export const SPACE = 'spaces/AAAAreviews1';
export const ALLOWED = { id: 'users/104857600000000000001', name: 'Ann Example' };
export const STRANGER = { id: 'users/104857600000000000666', name: 'Mallory' };

const plainText = (t: string) =>
  t
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

type Json = Record<string, any>;

/** Every widget of a stored message's cards, in order. */
export function widgetsOf(m: StoredMessage): Json[] {
  return (m.body.cardsV2 ?? []).flatMap((c: Json) =>
    (c.card.sections ?? []).flatMap((s: Json) => s.widgets ?? []),
  );
}

/** Every button of a stored message's cards. */
export function buttonsOf(m: StoredMessage): Json[] {
  return widgetsOf(m).flatMap((w) => w.buttonList?.buttons ?? []);
}

/** A button's parameters as a map. */
export function paramsOf(button: Json): Record<string, string> {
  return Object.fromEntries(
    (button.onClick?.action?.parameters ?? []).map((p: Json) => [p.key, p.value]),
  );
}

/** A stored message as the contract reads it. */
export function seen(m: StoredMessage): SeenMessage {
  const header = (m.body.cardsV2 ?? []).map((c: Json) => c.card.header?.title ?? '');
  const paragraphs = widgetsOf(m).flatMap((w) => (w.textParagraph ? [w.textParagraph.text] : []));
  const buttons = buttonsOf(m);
  return {
    text: plainText([m.body.text ?? '', ...header, ...paragraphs].filter(Boolean).join('\n')),
    actions: buttons.flatMap((b) => parsePayload(paramsOf(b).p)?.action ?? []),
    link: buttons.find((b) => b.onClick?.openLink)?.onClick.openLink.url ?? null,
  };
}

export interface GooglechatHarness extends AdapterHarness {
  fake: FakeGoogleChat;
  adapter: GooglechatAdapter;
  /** Clicks the button for `action` with form inputs; returns the delivery. */
  click(args: {
    ref: MessageRef;
    action: string;
    user: { id: string; name?: string };
    formInputs?: Json;
    button?: (b: Json) => boolean;
  }): ReturnType<FakeGoogleChat['deliver']>;
  relayUrl(): string;
  /**
   * Clicks the card's "Answer…" button as Chat does (only a button whose interaction is
   * OPEN_DIALOG opens a dialog): a REQUEST_DIALOG event; returns the delivery and the dialog shown.
   */
  openDialog(args: { ref: MessageRef; user: { id: string; name?: string } }): Promise<{
    delivery: Awaited<ReturnType<FakeGoogleChat['deliver']>>;
    dialog: Json | null;
  }>;
  /** Clicks `action` in an open dialog with form inputs: a SUBMIT_DIALOG event; returns what Chat did. */
  submitDialog(args: {
    ref: MessageRef;
    dialog: Json;
    action: string;
    user: { id: string; name?: string };
    formInputs: Json;
    button?: (b: Json) => boolean;
  }): Promise<FakeGoogleChat['dialogs'][number] | undefined>;
}

/** The harness, with options for the adapter and the fake for other tests. */
export async function makeGooglechatHarness(
  o: { fake?: FakeChatOptions; adapter?: Partial<GooglechatAdapterOptions> } = {},
): Promise<GooglechatHarness> {
  const fake = await FakeGoogleChat.start(o.fake);
  fake.addSpace(SPACE);
  const adapter = createGooglechatAdapter({
    key: readServiceAccountKey(fake.keyJson),
    audience: fake.projectNumber,
    apiUrl: fake.apiRoot,
    tokenUrl: fake.tokenUrl,
    certsUrl: fake.certsUrl,
    path: EVENTS_PATH,
    // Ten writes a second per space stand for Chat's one, so the suite never waits long.
    pace: { spaceIntervalMs: 5 },
    backoffMs: 20,
    ...o.adapter,
  });
  let relay = '';
  const stored = (ref: MessageRef) => {
    const m = fake.message(ref.id);
    if (!m) throw new Error(`the fake holds no message ${ref.id}`);
    return m;
  };
  const click: GooglechatHarness['click'] = async ({ ref, action, user, formInputs, button }) => {
    const card = stored(ref);
    const b = buttonsOf(card).find(
      (x) => parsePayload(paramsOf(x).p)?.action === action && (!button || button(x)),
    );
    if (!b) throw new Error(`message ${ref.id} has no "${action}" button`);
    const event = fake.event('CARD_CLICKED', {
      space: card.space,
      user: { id: user.id, name: user.name ?? 'Someone' },
      message: card,
      parameters: paramsOf(b),
      ...(formInputs ? { formInputs } : {}),
    });
    return fake.deliver(`${relay}${EVENTS_PATH}`, event);
  };
  const person = (user: { id: string; name?: string }) => ({
    id: user.id,
    name: user.name ?? 'Someone',
  });
  const openDialog: GooglechatHarness['openDialog'] = async ({ ref, user }) => {
    const card = stored(ref);
    const b = buttonsOf(card).find((x) => x.onClick?.action?.interaction === 'OPEN_DIALOG');
    if (!b) throw new Error(`message ${ref.id} has no button that opens a dialog`);
    const before = fake.dialogs.length;
    const event = fake.event('CARD_CLICKED', {
      space: card.space,
      user: person(user),
      message: card,
      parameters: paramsOf(b),
      dialog: 'REQUEST_DIALOG',
    });
    const delivery = await fake.deliver(`${relay}${EVENTS_PATH}`, event);
    const outcome = fake.dialogs[before];
    return { delivery, dialog: outcome && 'shown' in outcome ? outcome.shown : null };
  };
  const submitDialog: GooglechatHarness['submitDialog'] = async (a) => {
    const card = stored(a.ref);
    const buttons = (a.dialog.sections ?? []).flatMap((x: Json) =>
      (x.widgets ?? []).flatMap((w: Json) => w.buttonList?.buttons ?? []),
    );
    const b = buttons.find(
      (x: Json) => parsePayload(paramsOf(x).p)?.action === a.action && (!a.button || a.button(x)),
    );
    if (!b) throw new Error(`the dialog has no "${a.action}" button`);
    const before = fake.dialogs.length;
    const event = fake.event('CARD_CLICKED', {
      space: card.space,
      user: person(a.user),
      message: card,
      parameters: paramsOf(b),
      formInputs: a.formInputs,
      dialog: 'SUBMIT_DIALOG',
    });
    const res = await fake.deliver(`${relay}${EVENTS_PATH}`, event);
    if (res.status !== 200) throw new Error(`the relay answered the submit with ${res.status}`);
    return fake.dialogs[before];
  };
  return {
    fake,
    adapter,
    openDialog,
    submitDialog,
    target: `googlechat:${SPACE}`,
    users: { allowed: ALLOWED, stranger: STRANGER },
    nativeConfirm: false,
    relayUrl: () => relay,
    click,
    world: {
      deleteMessage: (ref) => fake.deleteMessage(ref.id),
      removeBot: () => fake.removeApp(SPACE),
    },
    async attach(relayUrl) {
      relay = relayUrl;
      const added = fake.event('ADDED_TO_SPACE', { space: SPACE, user: ALLOWED });
      const res = await fake.deliver(`${relayUrl}${EVENTS_PATH}`, added);
      if (res.status !== 200)
        throw new Error(`the relay answered ADDED_TO_SPACE with ${res.status}`);
    },
    async read(ref) {
      return seen(stored(ref));
    },
    async messages(address) {
      return fake.messages
        .filter(
          (m) =>
            m.space === address &&
            m.via === 'api' &&
            m.body.cardsV2?.length &&
            !m.body.privateMessageViewer,
        )
        .map((m) => ({ platform: 'googlechat', address, id: m.name }));
    },
    async tap({ ref, action, user, relayUrl }) {
      if (relayUrl) relay = relayUrl;
      const res = await click({ ref, action, user });
      if (res.status !== 200) throw new Error(`the relay answered the click with ${res.status}`);
      const mine = res.made?.body.privateMessageViewer?.name === user.id ? res.made : null;
      return { notice: mine ? (mine.body.text ?? '') : null, answerMs: res.ms };
    },
    requests: () => fake.requests(),
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

export const makeGooglechatContractHarness: MakeHarness = () => makeGooglechatHarness();
