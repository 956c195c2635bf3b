/**
 * Google Chat dialogs for asks that need typing (issue 34): the card's "Answer…" button opens a
 * dialog (interaction OPEN_DIALOG), REQUEST_DIALOG is answered with `actionResponse.type DIALOG`
 * holding the ask's widgets and submit buttons, a cancel or an unknown card closes it, and the fake
 * Chat refuses dialog answers Chat would refuse. The whole answer path per kind is in
 * test/asks/matrix-googlechat.test.ts.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsDialog, openDialogButton } from '../../../platforms/googlechat/dialog.ts';
import { dialogCard, renderCard } from '../../../platforms/googlechat/render.ts';
import { kindOf, parseAskContent } from '../../../src/asks/content.ts';
import type { Card } from '../../../src/render/card.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { applyDialogAnswer } from '../../fakes/googlechat-dialog.ts';
import { checkMessage } from '../../fakes/googlechat-rules.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  ALLOWED,
  buttonsOf,
  EVENTS_PATH,
  type GooglechatHarness,
  makeGooglechatHarness,
  paramsOf,
  SPACE,
  STRANGER,
  widgetsOf,
} from './harness.ts';

type Json = Record<string, any>;

function askCard(content: unknown): Card {
  const parsed = parseAskContent(content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return {
    caseId: 'case-1',
    key: 'k7Qa9',
    title: 'Input needed',
    prompt: 'Tell us',
    lines: [],
    hint: null,
    actions: [],
    link: { label: 'Details', url: 'https://service.example/review/1' },
    status: 'Waiting for an answer',
    final: false,
    ask: { kind: kindOf(parsed.content), content: parsed.content },
  };
}

const inputs = (widgets: Json[]) =>
  widgets.filter((w) => w.textInput || w.selectionInput || w.dateTimePicker);

describe('Google Chat dialog cards', () => {
  it('DIALOG-1 a typed ask: the card has an Answer… button opening a dialog, no inputs; the dialog has them', () => {
    const card = askCard(KINDS['context.form'].content);
    const m = renderCard(card) as Json;
    expect(checkMessage(m)).toBeNull();
    const widgets = m.cardsV2[0].card.sections.flatMap((s: Json) => s.widgets);
    expect(inputs(widgets)).toEqual([]);
    const open = widgets
      .flatMap((w: Json) => w.buttonList?.buttons ?? [])
      .find((b: Json) => b.onClick.action);
    expect(open).toEqual(openDialogButton('k7Qa9', false, 'hitl'));
    expect(open.onClick.action.interaction).toBe('OPEN_DIALOG');
    const body = dialogCard(card) as Json;
    expect(inputs(body.sections[0].widgets)).toHaveLength(5);
    const submit = body.sections[1].widgets[0].buttonList.buttons[0];
    expect(paramsOf(submit)).toEqual({ p: 'hitl:k7Qa9:submit', k: 'context.form' });
    expect(checkMessage({ cardsV2: [{ cardId: 'd', card: body }] })).toBeNull();
  });

  it('DIALOG-2 a few options or a plain confirm stay on the card; many options go to a dialog', () => {
    for (const kind of [
      'decision.single',
      'decision.multi',
      'context.confirm',
      'approval.binary',
    ]) {
      const card = askCard(KINDS[kind as keyof typeof KINDS].content);
      expect(dialogCard(card), kind).toBeNull();
    }
    const many = {
      ...KINDS['decision.single'].content,
      options: Array.from({ length: 8 }, (_, i) => ({ key: `o${i}`, label: `Option ${i}` })),
    };
    const body = dialogCard(askCard(many)) as Json;
    expect(body.sections[0].widgets[0].selectionInput.type).toBe('DROPDOWN');
    expect(
      needsDialog({ widgets: [{ selectionInput: { type: 'RADIO_BUTTON' } }], buttons: [] }),
    ).toBe(false);
  });

  it('DIALOG-3 the fake refuses what Chat refuses: a dialog for a plain click, a bad body, a bad status', () => {
    const request = { isDialogEvent: true, dialogEventType: 'REQUEST_DIALOG' };
    const dialog = (body: unknown) => ({
      actionResponse: { type: 'DIALOG', dialogAction: { dialog: { body } } },
    });
    const status = (s: unknown) => ({
      actionResponse: { type: 'DIALOG', dialogAction: { actionStatus: s } },
    });
    expect(() => applyDialogAnswer({}, dialog({ sections: [{ widgets: [] }] }))).toThrow(
      /not a dialog event/,
    );
    expect(() => applyDialogAnswer(request, dialog({ sections: [] }))).toThrow(/sections is empty/);
    expect(() =>
      applyDialogAnswer(request, dialog({ sections: [{ widgets: [{ nope: {} }] }] })),
    ).toThrow(/known kind/);
    // A request may be answered with a status instead (the app says why no dialog opens).
    expect(
      applyDialogAnswer(request, status({ statusCode: 'OK', userFacingMessage: 'no' })),
    ).toEqual({
      status: 'OK',
      message: 'no',
      open: false,
    });
    const submit = { isDialogEvent: true, dialogEventType: 'SUBMIT_DIALOG' };
    expect(() => applyDialogAnswer(submit, status({ statusCode: 'FINE' }))).toThrow(
      /google.rpc code/,
    );
    expect(
      applyDialogAnswer(submit, status({ statusCode: 'INVALID_ARGUMENT', userFacingMessage: 'x' })),
    ).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'x',
      open: true,
    });
    expect(
      checkMessage({
        cardsV2: [
          {
            cardId: 'c',
            card: {
              sections: [
                {
                  widgets: [
                    {
                      buttonList: {
                        buttons: [
                          {
                            text: 'a',
                            onClick: { action: { function: 'f', interaction: 'POPUP' } },
                          },
                        ],
                      },
                    },
                  ],
                },
              ],
            },
          },
        ],
      })?.message,
    ).toMatch(/OPEN_DIALOG/);
  });
});

describe('Google Chat dialog events against the relay', () => {
  let h: GooglechatHarness;
  let relay: RelayHandle;
  beforeAll(async () => {
    h = await makeGooglechatHarness();
    relay = await startRelay({
      adapters: [h.adapter],
      allow: { [`googlechat:${SPACE}`]: [ALLOWED.id] },
    });
    await h.attach!(relay.url);
  });
  afterAll(async () => {
    await relay?.stop();
    await h?.close();
  });

  async function ask(content: unknown) {
    const before = (await h.messages(SPACE)).length;
    const res = await request(`${relay.url}/v1/asks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: `googlechat:${SPACE}`, content }),
    });
    const body = (await res.body.json()) as Json;
    const refs = await eventually(async () => {
      const all = await h.messages(SPACE);
      return all.length > before ? all : null;
    });
    return { id: body.relay.id as string, ref: refs.at(-1)! };
  }

  it('DIALOG-4 a cancel closes the dialog and records nothing; an unknown card says it cannot be answered', async () => {
    const { id, ref } = await ask(KINDS['context.freetext'].content);
    const opened = await h.openDialog({ ref, user: ALLOWED });
    expect(opened.dialog).not.toBeNull();
    const card = h.fake.message(ref.id)!;
    const cancel = h.fake.event('CARD_CLICKED', {
      space: SPACE,
      user: ALLOWED,
      message: card,
      parameters: { p: 'hitl:x:submit', k: 'context.freetext' },
      dialog: 'CANCEL_DIALOG',
    });
    const res = await h.fake.deliver(`${h.relayUrl()}${EVENTS_PATH}`, cancel);
    expect(res.answer?.actionResponse?.dialogAction?.actionStatus).toEqual({ statusCode: 'OK' });
    const view = (await (await request(`${relay.url}/v1/asks/${id}`)).body.json()) as Json;
    expect(view.status).toBe('pending');
    expect(view.case.history.some((e: Json) => e.kind === 'submit')).toBe(false);
    const unknown = h.fake.event('CARD_CLICKED', {
      space: SPACE,
      user: ALLOWED,
      message: card,
      parameters: { o: 'no-such-key' },
      dialog: 'REQUEST_DIALOG',
    });
    const before = h.fake.dialogs.length;
    await h.fake.deliver(`${h.relayUrl()}${EVENTS_PATH}`, unknown);
    expect(h.fake.dialogs[before]).toMatchObject({
      status: 'OK',
      message: expect.stringMatching(/no longer|Details/),
    });
    // The card itself never carried an input widget.
    expect(inputs(widgetsOf(card))).toEqual([]);
    expect(buttonsOf(card).some((b) => b.onClick.action?.interaction === 'OPEN_DIALOG')).toBe(true);
  });

  it('DIALOG-5 who may answer is checked before the dialog opens: a stranger gets the reason, no dialog', async () => {
    const { id, ref } = await ask(KINDS['context.form'].content);
    const refused = await h.openDialog({ ref, user: STRANGER });
    expect(refused.dialog).toBeNull();
    expect(
      refused.delivery.answer?.actionResponse?.dialogAction?.actionStatus?.userFacingMessage,
    ).toMatch(/not allowed|allow/i);
    const allowed = await h.openDialog({ ref, user: ALLOWED });
    expect(allowed.dialog).not.toBeNull();
    const view = (await (await request(`${relay.url}/v1/asks/${id}`)).body.json()) as Json;
    expect(view.status).toBe('pending');
  });
});
