/** Slack interaction payloads -> neutral taps. Pure: no I/O. */
import type { AdapterStrings, MessageRef, Tap } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { askData, choiceDecision } from './ask.ts';
import { SLACK_LINK_ACTION_PREFIX } from './render.ts';

/** The button payload format shared by every platform: `hitl:<key>:<action>`. */
const PAYLOAD = /^hitl:([^:]+):([^:]+)$/;

/** Splits a button payload into case key and action, or null when it is not ours. */
export function parsePayload(payload: string): { key: string; action: string } | null {
  const match = PAYLOAD.exec(payload);
  if (!match) return null;
  return { key: match[1]!, action: match[2]! };
}

/** A MessageRef for a message in a channel; the id keeps both parts chat.update needs. */
export function messageRef(channel: string, ts: string): MessageRef {
  return { platform: 'slack', address: channel, id: `${channel}:${ts}` };
}

/** Channel id and message ts from a MessageRef made by messageRef(); null when it is not one. */
export function splitRef(ref: MessageRef): { channel: string; ts: string } | null {
  if (ref.platform !== 'slack') return null;
  const at = ref.id.indexOf(':');
  if (at <= 0 || at === ref.id.length - 1) return null;
  return { channel: ref.id.slice(0, at), ts: ref.id.slice(at + 1) };
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What a block_actions payload asks of us. */
export type BlockActionParse =
  /** A case button: hand the tap to the relay; `channel` is where an ephemeral answer goes. */
  | { kind: 'tap'; tap: Tap; channel: string | null }
  /** The Details URL button (Slack reports URL taps too): acknowledge, nothing else. */
  | { kind: 'link' }
  /** Not a button of ours. */
  | { kind: 'ignore' };

/** Whether the button `actionId` in the message's blocks carries a confirm dialog. */
function hasConfirm(message: Json | undefined, actionId: string): boolean {
  const blocks = message?.blocks;
  if (!Array.isArray(blocks)) return false;
  for (const block of blocks) {
    const elements = obj(block)?.elements;
    if (!Array.isArray(elements)) continue;
    for (const element of elements) {
      const el = obj(element);
      if (el?.action_id === actionId) return obj(el.confirm) !== undefined;
    }
  }
  return false;
}

/**
 * Reads a `block_actions` payload (the JSON in the form field `payload=`). The first action is the
 * tapped button. A button that carried a `confirm` object was confirmed in Slack's own dialog
 * before Slack sent the payload, so the tap arrives `confirmed`.
 */
export function parseBlockActions(body: unknown): BlockActionParse {
  const payload = obj(body);
  if (payload?.type !== 'block_actions') return { kind: 'ignore' };
  const actions = payload.actions;
  const action = Array.isArray(actions) ? obj(actions[0]) : undefined;
  const actionId = str(action?.action_id);
  if (!action || !actionId) return { kind: 'ignore' };
  if (actionId.startsWith(SLACK_LINK_ACTION_PREFIX) || str(action.url)) return { kind: 'link' };
  const value = str(action.value);
  const parsed = value ? parsePayload(value) : null;
  if (!parsed) return { kind: 'ignore' };

  const user = obj(payload.user);
  const userId = str(user?.id);
  if (!userId) return { kind: 'ignore' };
  const name = str(user?.name) ?? str(user?.username);

  const container = obj(payload.container);
  const message = obj(payload.message);
  const channel = str(obj(payload.channel)?.id) ?? str(container?.channel_id) ?? null;
  const ts = str(container?.message_ts) ?? str(message?.ts);

  const tap: Tap = {
    platform: 'slack',
    key: parsed.key,
    action: parsed.action,
    user: name ? { id: userId, name } : { id: userId },
    ref: channel && ts ? messageRef(channel, ts) : null,
  };
  if (hasConfirm(message, actionId)) tap.confirmed = true;
  // An approval's own choice button: the choice is the decision.
  const decision = choiceDecision(actionId, parsed.key);
  // A Submit of an ask: its selects' current values are the answer.
  const data = decision ? { decision } : askData(payload.state, parsed.key);
  if (data) tap.data = data;
  return { kind: 'tap', tap, channel };
}

/** A slash command request (form fields), reduced to what `/hitl` needs. */
export interface SlashCommand {
  command: string;
  text: string;
  channelId: string;
  userId: string;
}

/** Reads a slash command's form fields; null when a required field is missing. */
export function parseSlashCommand(body: unknown): SlashCommand | null {
  const form = obj(body);
  const command = str(form?.command);
  const channelId = str(form?.channel_id);
  const userId = str(form?.user_id);
  if (!command || !channelId || !userId) return null;
  return { command, text: typeof form?.text === 'string' ? form.text : '', channelId, userId };
}

/** The ephemeral answer to `/hitl`: the target string a person copies into the agent's settings. */
export function targetAnswer(channelId: string, strings?: AdapterStrings): string {
  return stringsOf(strings ? { strings } : null).target(`\`slack:${channelId}\``);
}
