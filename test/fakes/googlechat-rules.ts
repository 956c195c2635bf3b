/**
 * The Chat API's rules for a written message, as the fake Google Chat enforces them
 * (developers.google.com/workspace/chat: create-messages, cards v2 reference, limits): a message of
 * at most 32,000 bytes with a text of at most 4,096 characters; cards v2 with at most 100 widgets a
 * card (Chat silently ignores the rest; the fake refuses, so a card that loses widgets is seen),
 * each widget exactly one known kind; a button has text or an icon and exactly one of
 * `onClick.action` (a function name, string parameters) or `onClick.openLink` (an http(s) URL);
 * selection inputs need a name and items; a private message names a `users/` viewer and has no
 * attachments. Answers are Google's error JSON (`{error: {code, message, status}}`).
 */

export interface ChatFault {
  code: number;
  status: string;
  message: string;
}

const bad = (message: string): ChatFault => ({ code: 400, status: 'INVALID_ARGUMENT', message });

export const MESSAGE_MAX_BYTES = 32_000;
export const TEXT_MAX = 4_096;
export const CARD_WIDGETS_MAX = 100;

const WIDGETS = new Set([
  'textParagraph',
  'decoratedText',
  'buttonList',
  'image',
  'divider',
  'textInput',
  'selectionInput',
  'dateTimePicker',
  'grid',
  'columns',
  'chipList',
]);
const SELECTION_TYPES = new Set([
  'CHECK_BOX',
  'RADIO_BUTTON',
  'SWITCH',
  'DROPDOWN',
  'MULTI_SELECT',
]);

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkButton(b: unknown, where: string): ChatFault | null {
  if (!isObject(b)) return bad(`${where}: a button must be an object`);
  if (typeof b.text !== 'string' && !b.icon) return bad(`${where}: a button needs text or an icon`);
  const on = b.onClick;
  if (!isObject(on)) return bad(`${where}.onClick is required`);
  const kinds = ['action', 'openLink', 'openDynamicLinkAction', 'card', 'overflowMenu'].filter(
    (k) => k in on,
  );
  if (kinds.length !== 1)
    return bad(`${where}.onClick must set exactly one of action, openLink, ...`);
  if (on.openLink) {
    if (typeof on.openLink.url !== 'string' || !/^https?:\/\//.test(on.openLink.url))
      return bad(`${where}.onClick.openLink.url must be an http(s) URL`);
  }
  if (on.action) {
    if (typeof on.action.function !== 'string' || !on.action.function)
      return bad(`${where}.onClick.action.function is required`);
    const i = on.action.interaction;
    if (i !== undefined && i !== 'OPEN_DIALOG' && i !== 'INTERACTION_UNSPECIFIED')
      return bad(`${where}.onClick.action.interaction must be OPEN_DIALOG`);
    for (const p of on.action.parameters ?? [])
      if (!isObject(p) || typeof p.key !== 'string' || typeof p.value !== 'string')
        return bad(`${where}.onClick.action.parameters: each needs a string key and value`);
  }
  return null;
}

function checkWidget(w: unknown, where: string): ChatFault | null {
  if (!isObject(w)) return bad(`${where}: a widget must be an object`);
  const kinds = Object.keys(w).filter((k) => WIDGETS.has(k));
  if (
    kinds.length !== 1 ||
    Object.keys(w).some((k) => !WIDGETS.has(k) && k !== 'horizontalAlignment')
  )
    return bad(`${where}: a widget must be exactly one known kind (${Object.keys(w).join(', ')})`);
  const kind = kinds[0] as string;
  const v = w[kind];
  if (kind === 'buttonList') {
    const buttons = v?.buttons;
    if (!Array.isArray(buttons) || buttons.length === 0)
      return bad(`${where}.buttonList.buttons is empty`);
    for (const [i, b] of buttons.entries()) {
      const f = checkButton(b, `${where}.buttonList.buttons[${i}]`);
      if (f) return f;
    }
  }
  if (kind === 'textParagraph' && typeof v?.text !== 'string')
    return bad(`${where}.textParagraph.text is required`);
  if (kind === 'textInput' && (typeof v?.name !== 'string' || !v.name))
    return bad(`${where}.textInput.name is required`);
  if (kind === 'dateTimePicker' && (typeof v?.name !== 'string' || !v.name))
    return bad(`${where}.dateTimePicker.name is required`);
  if (kind === 'selectionInput') {
    if (typeof v?.name !== 'string' || !v.name)
      return bad(`${where}.selectionInput.name is required`);
    if (!SELECTION_TYPES.has(v.type))
      return bad(`${where}.selectionInput.type is not a selection type`);
    if (!Array.isArray(v.items) || v.items.length === 0)
      return bad(`${where}.selectionInput.items is empty`);
  }
  return null;
}

/** What is wrong with one card, or null. */
function checkCard(c: unknown, where: string): ChatFault | null {
  if (!isObject(c) || !isObject(c.card)) return bad(`${where}.card is required`);
  const sections = c.card.sections;
  if (!Array.isArray(sections) || sections.length === 0)
    return bad(`${where}.card.sections is empty`);
  let count = 0;
  for (const [i, s] of sections.entries()) {
    if (!isObject(s) || !Array.isArray(s.widgets))
      return bad(`${where}.card.sections[${i}].widgets is required`);
    for (const [j, w] of s.widgets.entries()) {
      count++;
      const f = checkWidget(w, `${where}.card.sections[${i}].widgets[${j}]`);
      if (f) return f;
    }
  }
  if (count > CARD_WIDGETS_MAX)
    return bad(`${where}: ${count} widgets; a card holds at most ${CARD_WIDGETS_MAX}`);
  return null;
}

/** What is wrong with a message body the app writes, or null. */
export function checkMessage(body: unknown): ChatFault | null {
  if (!isObject(body)) return bad('Invalid JSON payload received.');
  const size = Buffer.byteLength(JSON.stringify(body), 'utf8');
  if (size > MESSAGE_MAX_BYTES)
    return bad(`Message too large: ${size} bytes; the maximum is ${MESSAGE_MAX_BYTES}`);
  if (body.text !== undefined && typeof body.text !== 'string') return bad('text must be a string');
  if (typeof body.text === 'string' && [...body.text].length > TEXT_MAX)
    return bad(`text is longer than ${TEXT_MAX} characters`);
  const cards = body.cardsV2 ?? [];
  if (!Array.isArray(cards)) return bad('cardsV2 must be a list');
  if (!body.text && cards.length === 0) return bad('Message cannot be empty.');
  if (cards.length > 1 && cards.some((c: Json) => !c?.cardId))
    return bad('cardsV2: cardId is required when a message has several cards');
  for (const [i, c] of cards.entries()) {
    const f = checkCard(c, `cardsV2[${i}]`);
    if (f) return f;
  }
  const viewer = body.privateMessageViewer;
  if (viewer !== undefined) {
    if (!isObject(viewer) || typeof viewer.name !== 'string' || !/^users\/\w+$/.test(viewer.name))
      return bad('privateMessageViewer.name must be users/{user}');
    if (body.attachment) return bad('private messages cannot have attachments');
  }
  return null;
}
