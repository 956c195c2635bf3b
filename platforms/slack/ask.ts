/**
 * Asks in Slack messages: single and multi decisions as a static / multi_static select, a ranking
 * as one select per place, each with a Submit button whose block_actions payload carries the
 * selects' `state.values`. Other kinds keep the Details button (the review page). Pure.
 */
import type { types } from '@slack/bolt';
import type { AdapterStrings } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { Card, CardAction } from '../../src/render/card.ts';
import { isModalKind, modalView, openButton } from './ask-modal.ts';

/** action_id prefix of the ask selects: `hitl-ask:<key>:one|many|rank:<place>`. */
export const SLACK_ASK_ACTION_PREFIX = 'hitl-ask:';
/** Options in one select (Slack's limit). */
export const SLACK_SELECT_MAX_OPTIONS = 100;
/** action_id prefix of an approval's own choice buttons: `hitl-choice:<key>:<choice key>`. */
export const SLACK_CHOICE_ACTION_PREFIX = 'hitl-choice:';
/** Option text and description (plain_text) and value. */
const OPTION_TEXT_MAX = 75;
const OPTION_VALUE_MAX = 150;
/** Places of a ranking that fit one actions block (25 elements, one for Submit). */
const RANK_MAX = 24;

type Json = Record<string, unknown>;

/** render.ts's escaping and cutting, handed in (render.ts imports this module). */
type FitText = (raw: string, max: number) => string;

type Listed = {
  key: string;
  label: string;
  description?: string | undefined;
  irreversible?: boolean;
  impact_hint?: string | undefined;
};

/** Select options: the label, and under it the description and impact hint (⚠️ when irreversible). */
function options(list: Listed[], fitText: FitText): types.PlainTextOption[] {
  return list.map((o) => {
    const note = [o.irreversible ? '⚠️ cannot be undone' : '', o.impact_hint, o.description]
      .filter(Boolean)
      .join(' · ');
    return {
      text: { type: 'plain_text', text: fitText(o.label, OPTION_TEXT_MAX), emoji: true },
      value: o.key,
      ...(note
        ? { description: { type: 'plain_text', text: fitText(note, OPTION_TEXT_MAX), emoji: true } }
        : {}),
    };
  });
}

/**
 * An approval whose choice keys are not approve / reject (answered with `submit` and the choice
 * as `decision`): one button per choice with its own label, a confirm dialog on irreversible ones.
 * The choice key rides in the action_id; the value is the case's ordinary payload.
 */
export function choiceBlock(
  card: Card,
  button: (action: CardAction) => types.Button,
): types.ActionsBlock | null {
  const c = card.ask?.content;
  if (!c || card.final || c.type !== 'approval') return null;
  if (c.choices.every((x) => x.key === 'approve' || x.key === 'reject')) return null;
  // `submit` needs data, so it is never among the card's plain buttons: the choice buttons carry
  // it themselves, as the ask blocks' Submit does (with the choice as the answer's `decision`).
  const payload = `hitl:${card.key}:submit`;
  const elements = c.choices.map((x, i): types.Button => {
    const action: CardAction = {
      action: 'submit',
      label: x.label,
      style: 'secondary',
      payload,
      ...(x.irreversible
        ? {
            confirm: {
              title: 'Are you sure?',
              text: `${x.label}: this cannot be undone.${x.impact_hint ? ` ${x.impact_hint}` : ''}`,
              yes: `Yes, ${x.label}`,
              no: 'Not now',
            },
          }
        : {}),
    };
    // Submit would look primary on every choice: the first is primary, irreversible ones danger.
    const { style: _submitLook, ...b } = button(action);
    const look = x.irreversible ? 'danger' : i === 0 ? 'primary' : undefined;
    return {
      ...b,
      ...(look ? { style: look } : {}),
      action_id: `${SLACK_CHOICE_ACTION_PREFIX}${card.key}:${x.key}`,
    };
  });
  return { type: 'actions', block_id: `hitl-choice-${card.key}`, elements };
}

/** The decision of a choice button's action_id for case `key`, or undefined. */
export function choiceDecision(actionId: string, key: string): string | undefined {
  const prefix = `${SLACK_CHOICE_ACTION_PREFIX}${key}:`;
  return actionId.startsWith(prefix) ? actionId.slice(prefix.length) || undefined : undefined;
}

function fits(list: Array<{ key: string }>): boolean {
  return (
    list.length <= SLACK_SELECT_MAX_OPTIONS && list.every((o) => o.key.length <= OPTION_VALUE_MAX)
  );
}

function submitButton(payload: string, label: string): types.Button {
  const text = { type: 'plain_text' as const, text: label, emoji: true };
  return { type: 'button', text, action_id: payload, value: payload, style: 'primary' };
}

/** The actions block for the card's ask, or null when Slack cannot draw it natively. */
export function askBlock(
  card: Card,
  fitText: FitText,
  strings?: AdapterStrings,
): types.ActionsBlock | null {
  const ask = card.ask;
  if (!ask || card.final) return null;
  const words = stringsOf(strings ? { strings } : null).asks;
  if (isModalKind(ask.content))
    return modalView(card, fitText, '', words.steps)
      ? {
          type: 'actions',
          block_id: `hitl-ask-${card.key}`,
          elements: [openButton(card, words.buttons)],
        }
      : null;
  if (ask.content.type !== 'decision') return null;
  const c = ask.content;
  if (!fits(c.options)) return null;
  const id = (tail: string) => `${SLACK_ASK_ACTION_PREFIX}${card.key}:${tail}`;
  const placeholder = (text: string) => ({ type: 'plain_text' as const, text, emoji: true });
  const elements: Array<types.StaticSelect | types.MultiStaticSelect | types.Button> = [];
  let action = 'select';
  if (c.sub_type === 'single') {
    elements.push({
      type: 'static_select',
      action_id: id('one'),
      placeholder: placeholder(words.chooseOne),
      options: options(c.options, fitText),
    });
  } else if (c.sub_type === 'multi') {
    elements.push({
      type: 'multi_static_select',
      action_id: id('many'),
      placeholder: placeholder(
        c.max_select !== null
          ? words.chooseRange(c.min_select, c.max_select)
          : words.chooseAtLeast(c.min_select),
      ),
      options: options(c.options, fitText),
      ...(c.max_select !== null ? { max_selected_items: c.max_select } : {}),
    });
  } else {
    if (c.options.length > RANK_MAX) return null;
    action = 'submit';
    for (let i = 0; i < c.options.length; i++)
      elements.push({
        type: 'static_select',
        action_id: id(`rank:${i}`),
        placeholder: placeholder(words.steps.place(i + 1)),
        options: options(c.options, fitText),
      });
  }
  elements.push(submitButton(`hitl:${card.key}:${action}`, words.steps.submit));
  return { type: 'actions', block_id: `hitl-ask-${card.key}`, elements };
}

/**
 * The typed answer data in a block_actions payload's `state.values` for case `key`: the selects'
 * current values; undefined when the message has no ask selects.
 */
export function askData(state: unknown, key: string): Record<string, unknown> | undefined {
  const values = (state as { values?: unknown } | undefined)?.values;
  if (!values || typeof values !== 'object') return undefined;
  const prefix = `${SLACK_ASK_ACTION_PREFIX}${key}:`;
  let data: Record<string, unknown> | undefined;
  const ranking: Array<string | undefined> = [];
  for (const block of Object.values(values as Record<string, unknown>)) {
    if (!block || typeof block !== 'object') continue;
    for (const [actionId, raw] of Object.entries(block as Record<string, Json>)) {
      if (!actionId.startsWith(prefix) || !raw || typeof raw !== 'object') continue;
      const tail = actionId.slice(prefix.length);
      const one = (raw.selected_option as { value?: unknown } | null | undefined)?.value;
      const many = Array.isArray(raw.selected_options)
        ? (raw.selected_options as Array<{ value?: unknown }>).map((o) => o?.value)
        : [];
      if (tail === 'one') data = typeof one === 'string' ? { selected: one } : {};
      else if (tail === 'many')
        data = { selected: many.filter((v): v is string => typeof v === 'string') };
      else if (/^rank:\d{1,2}$/.test(tail)) {
        ranking[Number(tail.slice(5))] = typeof one === 'string' ? one : undefined;
        data = {};
      }
    }
  }
  if (data && ranking.length) data = { ranking: ranking.filter((v) => v !== undefined) };
  return data;
}
