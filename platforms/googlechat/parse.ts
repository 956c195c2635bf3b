/**
 * Google Chat interaction events (developers.google.com/workspace/chat/api/reference/rest/v1/Event)
 * -> neutral events: a button click (`CARD_CLICKED`, with the form inputs of the card), a message
 * to the app (`MESSAGE`: the target command), the app added to a space. Pure: no I/O.
 */
import type { MessageRef, Tap, TapUser } from '../../src/adapter.ts';
import { askTapData } from './ask.ts';

const PLATFORM = 'googlechat';

/** A space's resource name: the address part of a target. */
export const SPACE = /^spaces\/[A-Za-z0-9_-]{1,128}$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Chat's dialog events: asked to open one, its submit, its cancel. */
export type DialogEventType = 'REQUEST_DIALOG' | 'SUBMIT_DIALOG' | 'CANCEL_DIALOG';
const DIALOG_EVENTS = new Set<string>(['REQUEST_DIALOG', 'SUBMIT_DIALOG', 'CANCEL_DIALOG']);

/** What one event is, for the adapter. */
export type ChatEvent =
  | {
      kind: 'click';
      tap: Tap | null;
      user: TapUser;
      space: string;
      at: number;
      /** A dialog event (REQUEST_DIALOG, SUBMIT_DIALOG, CANCEL_DIALOG), else null. */
      dialog: DialogEventType | null;
      /** The card key an "Answer…" button asks a dialog for (its `o` parameter). */
      open: string | null;
    }
  | {
      kind: 'message';
      text: string;
      user: TapUser;
      space: string;
      thread: string | null;
      at: number;
    }
  | { kind: 'added'; user: TapUser; space: string; at: number }
  | { kind: 'other'; type: string };

/** The person who acted: `users/{id}` and their display name. */
function userOf(event: Json): TapUser | null {
  const u = isObject(event.user) ? event.user : null;
  const id = u ? str(u.name) : null;
  if (!id?.startsWith('users/')) return null;
  const name = u ? str(u.displayName) : null;
  return name ? { id, name: name.slice(0, 128) } : { id };
}

/** A button's parameters: `common.parameters` (a map), else the legacy `action.parameters` list. */
function paramsOf(event: Json): Record<string, string> {
  const common = isObject(event.common) ? event.common : {};
  if (isObject(common.parameters))
    return Object.fromEntries(
      Object.entries(common.parameters).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    );
  const action = isObject(event.action) ? event.action : {};
  const list = Array.isArray(action.parameters) ? action.parameters : [];
  return Object.fromEntries(
    list.flatMap((p) =>
      isObject(p) && str(p.key) && typeof p.value === 'string' ? [[p.key, p.value]] : [],
    ),
  );
}

/** Splits `hitl:<key>:<action>`; null for anything else. */
export function parsePayload(
  data: string | null | undefined,
): { key: string; action: string } | null {
  if (!data?.startsWith('hitl:')) return null;
  const rest = data.slice('hitl:'.length);
  const cut = rest.lastIndexOf(':');
  if (cut <= 0 || cut === rest.length - 1) return null;
  return { key: rest.slice(0, cut), action: rest.slice(cut + 1) };
}

/** The ref of a message in `space`. */
export function messageRef(space: string, name: string): MessageRef {
  return { platform: PLATFORM, address: space, id: name };
}

/** The tap a click stands for; null when the button is not hitl-relay's. */
function tapOf(event: Json, user: TapUser, space: string): Tap | null {
  const params = paramsOf(event);
  const payload = parsePayload(params.p);
  if (!payload) return null;
  const m = isObject(event.message) ? str(event.message.name) : null;
  const common = isObject(event.common) ? event.common : {};
  const data = askTapData(params, common.formInputs);
  return {
    platform: PLATFORM,
    key: payload.key,
    action: payload.action,
    user,
    ref: m ? messageRef(space, m) : null,
    ...(data ? { data } : {}),
  };
}

/** One event; `other` for anything the adapter does not act on (or that is not Chat's shape). */
export function parseEvent(body: unknown): ChatEvent {
  if (!isObject(body)) return { kind: 'other', type: 'not an object' };
  const type = str(body.type) ?? '';
  const user = userOf(body);
  const space = isObject(body.space) ? str(body.space.name) : null;
  if (!user || !space || !SPACE.test(space)) return { kind: 'other', type };
  const at = Date.parse(str(body.eventTime) ?? '') || 0;
  if (type === 'CARD_CLICKED') {
    const d = str(body.dialogEventType);
    const dialog =
      body.isDialogEvent === true && d && DIALOG_EVENTS.has(d) ? (d as DialogEventType) : null;
    const open = paramsOf(body).o ?? null;
    return { kind: 'click', tap: tapOf(body, user, space), user, space, at, dialog, open };
  }
  if (type === 'ADDED_TO_SPACE') return { kind: 'added', user, space, at };
  if (type === 'MESSAGE') {
    const m = isObject(body.message) ? body.message : {};
    const text = (str(m.argumentText) ?? str(m.text) ?? '').trim();
    const thread = isObject(m.thread) ? str(m.thread.name) : null;
    return { kind: 'message', text, user, space, thread, at };
  }
  return { kind: 'other', type };
}

/** The target string a person gives the agent for this space. */
export function targetFor(space: string): string {
  return `${PLATFORM}:${space}`;
}
