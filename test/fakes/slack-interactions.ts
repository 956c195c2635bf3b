/**
 * What Slack sends to an app's Request URL, built and signed as Slack does: `block_actions`
 * payloads (form field `payload=<JSON>`) and slash command forms, with `X-Slack-Signature` =
 * `v0=` + hex HMAC-SHA256(signing secret, `v0:<timestamp>:<body>`).
 */
import { createHmac } from 'node:crypto';
import type { FakeSlack, FakeSlackMessage } from './slack-api.ts';

let triggers = 0;
/** A trigger_id as Slack makes them: unique per interaction, the same in every retry of it. */
function nextTriggerId(teamId: string): string {
  triggers += 1;
  return `${Math.floor(Date.now() / 1000)}.${teamId}.${triggers}${Math.random().toString(16).slice(2, 10)}`;
}

/** Headers of a signed Slack request. `timestampSec` defaults to now. */
export function signSlackRequest(
  signingSecret: string,
  body: string,
  timestampSec: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac('sha256', signingSecret)
    .update(`v0:${timestampSec}:${body}`)
    .digest('hex');
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(timestampSec),
    'x-slack-signature': `v0=${signature}`,
  };
}

/** The form body of an interaction: `payload=<url-encoded JSON>`. */
export function interactionForm(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** The button with `actionId` in a message, with its block's id. */
export function findButton(
  message: FakeSlackMessage,
  match: (button: Record<string, unknown>) => boolean,
): { button: Record<string, unknown>; blockId: string } | null {
  for (const block of message.blocks) {
    if (block.type !== 'actions' || !Array.isArray(block.elements)) continue;
    for (const el of block.elements as Record<string, unknown>[]) {
      if (match(el)) return { button: el, blockId: String(block.block_id) };
    }
  }
  return null;
}

/** A `block_actions` payload for a tap on `button` of `message`, shaped as Slack's reference shows. */
export function blockActionsPayload(args: {
  fake: FakeSlack;
  message: FakeSlackMessage;
  button: Record<string, unknown>;
  blockId: string;
  user: { id: string; name?: string };
}): Record<string, unknown> {
  const { fake, message, button, user } = args;
  const now = Date.now() / 1000;
  const handle = (user.name ?? user.id).toLowerCase().replace(/\s+/g, '.');
  const action: Record<string, unknown> = {
    type: 'button',
    block_id: args.blockId,
    action_id: button.action_id,
    text: button.text,
    action_ts: now.toFixed(6),
  };
  if (button.value !== undefined) action.value = button.value;
  if (button.style !== undefined) action.style = button.style;
  return {
    type: 'block_actions',
    user: { id: user.id, username: handle, name: handle, team_id: fake.teamId },
    api_app_id: 'A0FAKEAPP',
    token: 'legacyVerificationToken0',
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
    },
    trigger_id: nextTriggerId(fake.teamId),
    team: { id: fake.teamId, domain: 'fake' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: 'hitl' },
    message: fake.asSlack(message),
    state: { values: {} },
    // Never called by the adapter; points at the fake so that nothing could leave this machine.
    response_url: `${fake.apiUrl.replace(/api\/$/, '')}actions/T0FAKE/1/fake`,
    actions: [action],
  };
}

/** A slash command's form fields, as Slack posts them. */
export function slashCommandForm(args: {
  fake: FakeSlack;
  command: string;
  text: string;
  channelId: string;
  userId: string;
}): string {
  return new URLSearchParams({
    token: 'legacyVerificationToken0',
    team_id: args.fake.teamId,
    team_domain: 'fake',
    channel_id: args.channelId,
    channel_name: 'hitl',
    user_id: args.userId,
    user_name: 'someone',
    command: args.command,
    text: args.text,
    api_app_id: 'A0FAKEAPP',
    is_enterprise_install: 'false',
    response_url: `${args.fake.apiUrl.replace(/api\/$/, '')}commands/T0FAKE/1/fake`,
    trigger_id: nextTriggerId(args.fake.teamId),
  }).toString();
}
