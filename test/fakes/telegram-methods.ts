/** The fake Bot API's methods, with Telegram's rules and error wording. */
import { isDeepStrictEqual } from 'node:util';
import type {
  InlineKeyboardButton,
  InlineKeyboardMarkup,
  Message,
  MessageEntity,
  Update,
} from 'grammy/types';
import type { MethodResult } from './telegram-api.ts';
import { parseTelegramHtml, TelegramParseError } from './telegram-html.ts';
import { FakeTelegramState } from './telegram-state.ts';

type Params = Record<string, unknown>;

const ok = (result: unknown, description?: string): MethodResult =>
  description ? { ok: true, result, description } : { ok: true, result };
const bad = (description: string, code = 400): MethodResult => ({
  ok: false,
  error_code: code,
  description,
});

/**
 * Bot API 10 button fields: `style` one of danger / success / primary, `disabled` a DisabledButton
 * (an empty object), `icon_custom_emoji_id` a string.
 */
function buttonStyleProblem(button: Record<string, unknown>): string | null {
  const { style, disabled, icon_custom_emoji_id: icon } = button;
  if (style !== undefined && !['danger', 'success', 'primary'].includes(style as string))
    return 'Bad Request: BUTTON_STYLE_INVALID';
  if (
    disabled !== undefined &&
    (typeof disabled !== 'object' || disabled === null || Object.keys(disabled).length > 0)
  )
    return 'Bad Request: field "disabled" must be a DisabledButton object';
  if (icon !== undefined && (typeof icon !== 'string' || icon === ''))
    return 'Bad Request: BUTTON_ICON_INVALID';
  return null;
}

/** The rules Telegram applies to inline keyboards, with its error wording. */
function checkKeyboard(
  markup: unknown,
  refuseUrl: (url: string) => boolean,
  botApi10 = true,
): string | null {
  if (markup === undefined) return null;
  // ForceReply (sendMessage only): the reply field opens for the person; no buttons.
  const force = markup as { force_reply?: unknown; input_field_placeholder?: unknown };
  if (force.force_reply !== undefined) {
    if (force.force_reply !== true) return 'Bad Request: force_reply must be true';
    const p = force.input_field_placeholder;
    if (p !== undefined && (typeof p !== 'string' || p.length < 1 || p.length > 64))
      return 'Bad Request: input field placeholder must be 1-64 characters';
    return null;
  }
  const rows = (markup as InlineKeyboardMarkup).inline_keyboard;
  if (!Array.isArray(rows))
    return 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array';
  for (const row of rows) {
    for (const button of row as Array<
      Partial<InlineKeyboardButton.CallbackButton & InlineKeyboardButton.UrlButton>
    >) {
      if (typeof button.text !== 'string' || button.text === '')
        return 'Bad Request: BUTTON_TEXT_INVALID';
      const styled = buttonStyleProblem(button);
      if (styled) return styled;
      const known = ['callback_data', 'url', 'copy_text', ...(botApi10 ? ['disabled'] : [])];
      const kinds = known.filter((k) => k in button);
      const copy = (button as { copy_text?: { text?: unknown } }).copy_text;
      if (
        copy !== undefined &&
        (typeof copy.text !== 'string' || copy.text.length < 1 || copy.text.length > 256)
      )
        return 'Bad Request: copy_text must be 1-256 characters';
      if (kinds.length !== 1)
        return "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard";
      if (button.callback_data !== undefined) {
        const bytes = Buffer.byteLength(button.callback_data, 'utf8');
        if (bytes < 1 || bytes > 64) return 'Bad Request: BUTTON_DATA_INVALID';
      }
      if (
        button.url !== undefined &&
        (!/^(https?|tg):\/\/\S+$/.test(button.url) || refuseUrl(button.url))
      )
        return 'Bad Request: BUTTON_URL_INVALID';
    }
  }
  return null;
}

function markupOrNone(markup: unknown): InlineKeyboardMarkup | undefined {
  const rows = (markup as InlineKeyboardMarkup | undefined)?.inline_keyboard;
  return rows && rows.length > 0 ? { inline_keyboard: rows } : undefined;
}

/** State and method semantics of the fake. */
/** Method semantics on top of the fake's state. */
export class FakeTelegramMethods extends FakeTelegramState {
  /** Long-polls: answers at once when updates wait, else when one arrives or `timeout` passes. */
  async getUpdates(params: Params, closed: Promise<void>): Promise<MethodResult> {
    if (this.webhook) {
      return bad(
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        409,
      );
    }
    const offset = Number(params.offset ?? 0);
    if (offset > 0) {
      while (this.pending.length > 0 && (this.pending[0] as Update).update_id < offset)
        this.pending.shift();
    }
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    if (this.pending.length === 0 && timeout > 0) {
      let wake = () => {};
      const arrived = new Promise<void>((resolve) => {
        wake = resolve;
      });
      this.pollWaiters.add(wake);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        arrived,
        closed,
        new Promise<void>((r) => {
          timer = setTimeout(r, timeout * 1000);
        }),
      ]);
      clearTimeout(timer);
      this.pollWaiters.delete(wake);
    }
    return ok(structuredClone(this.pending.slice(0, limit)));
  }

  /** Every other method. */
  call(method: string, p: Params): MethodResult {
    switch (method) {
      case 'getMe':
        return ok(this.botInfo);
      case 'setWebhook':
        return this.setWebhook(p);
      case 'deleteWebhook':
        if (p.drop_pending_updates) this.pending.length = 0;
        if (!this.webhook) return ok(true, 'Webhook is already deleted');
        this.webhook = null;
        return ok(true, 'Webhook was deleted');
      case 'getWebhookInfo':
        return ok({ has_custom_certificate: false, ...this.webhookInfo() });
      case 'sendMessage':
        return this.sendMessage(p);
      case 'editMessageText':
        return this.edit(p, true);
      case 'editMessageReplyMarkup':
        return this.edit(p, false);
      case 'answerCallbackQuery':
        return this.answerCallbackQuery(p);
      default:
        return bad('Not Found', 404);
    }
  }

  private setWebhook(p: Params): MethodResult {
    const url = String(p.url ?? '');
    if (url === '') {
      this.webhook = null;
      return ok(true, 'Webhook was deleted');
    }
    if (!url.startsWith('https://'))
      return bad('Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    const secret = p.secret_token === undefined ? undefined : String(p.secret_token);
    if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
      return bad('Bad Request: bad webhook: secret token contains unallowed characters');
    }
    if (p.drop_pending_updates) this.pending.length = 0;
    this.webhook = {
      url,
      ...(secret ? { secret_token: secret } : {}),
      ...(Array.isArray(p.allowed_updates)
        ? { allowed_updates: p.allowed_updates as string[] }
        : {}),
    };
    return ok(true, 'Webhook was set');
  }

  /** Text + entities per parse_mode, or Telegram's error. */
  private parseText(p: Params): { text: string; entities: MessageEntity[] } | MethodResult {
    if (typeof p.text !== 'string' || p.text.trim() === '')
      return bad('Bad Request: message text is empty');
    let parsed = { text: p.text, entities: [] as MessageEntity[] };
    if (p.parse_mode === 'HTML') {
      try {
        parsed = parseTelegramHtml(p.text);
      } catch (err) {
        if (err instanceof TelegramParseError) return bad(err.message);
        throw err;
      }
    }
    if (parsed.text.trim() === '') return bad('Bad Request: message text is empty');
    if (parsed.text.length > 4096) return bad('Bad Request: message is too long');
    return parsed;
  }

  private chatId(p: Params): number | null {
    const id = Number(p.chat_id);
    return Number.isSafeInteger(id) && id !== 0 ? id : null;
  }

  /** 403 for a chat the bot was kicked from, 400 + migrate_to_chat_id for an upgraded group. */
  private chatGone(chatId: number): MethodResult | null {
    if (this.kicked.has(chatId)) {
      return {
        ok: false,
        error_code: 403,
        description: 'Forbidden: bot was kicked from the group chat',
      };
    }
    const movedTo = this.migrated.get(chatId);
    if (movedTo === undefined) return null;
    return {
      ok: false,
      error_code: 400,
      description: 'Bad Request: group chat was upgraded to a supergroup chat',
      parameters: { migrate_to_chat_id: movedTo },
    };
  }

  private sendMessage(p: Params): MethodResult {
    const chatId = this.chatId(p);
    if (chatId === null) return bad('Bad Request: chat not found');
    if (this.kicked.has(chatId)) return this.chatGone(chatId)!;
    const movedTo = this.migrated.get(chatId);
    if (movedTo !== undefined) {
      return {
        ok: false,
        error_code: 400,
        description: 'Bad Request: group chat was upgraded to a supergroup chat',
        parameters: { migrate_to_chat_id: movedTo },
      };
    }
    const parsed = this.parseText(p);
    if ('ok' in parsed) return parsed;
    const keyboardError = checkKeyboard(
      p.reply_markup,
      (url) => this.refusedUrls?.test(url) ?? false,
      this.botApi10,
    );
    if (keyboardError) return bad(keyboardError);
    if (p.ephemeral_message_parameters !== undefined) return this.sendEphemeral(chatId, p);
    const replyParams = p.reply_parameters as
      | { message_id?: number; allow_sending_without_reply?: boolean }
      | undefined;
    const replyId = replyParams?.message_id ?? (p.reply_to_message_id as number | undefined);
    const replyTo = replyId === undefined ? undefined : this.message(chatId, replyId);
    if (replyId !== undefined && !replyTo && !replyParams?.allow_sending_without_reply) {
      return bad('Bad Request: message to be replied not found');
    }
    const markup = markupOrNone(p.reply_markup);
    const message = {
      message_id: this.nextMessageId(chatId),
      from: {
        id: this.botInfo.id,
        is_bot: true,
        first_name: this.botInfo.first_name,
        username: this.botInfo.username,
      },
      chat: this.chatOf(chatId),
      date: Math.floor(Date.now() / 1000),
      text: parsed.text,
      ...(parsed.entities.length ? { entities: parsed.entities } : {}),
      ...(markup ? { reply_markup: markup } : {}),
      ...(replyTo ? { reply_to_message: structuredClone(replyTo.message) } : {}),
    } as Message.TextMessage;
    const list = this.chats.get(chatId) ?? [];
    list.push({ message, sent: p.text as string, everCallbackData: callbackData(markup) });
    this.chats.set(chatId, list);
    return ok(structuredClone(message));
  }

  private edit(p: Params, withText: boolean): MethodResult {
    const chatId = this.chatId(p);
    const gone = chatId === null ? null : this.chatGone(chatId);
    if (gone) return gone;
    const stored = chatId === null ? undefined : this.message(chatId, Number(p.message_id));
    if (!stored) return bad('Bad Request: message to edit not found');
    const keyboardError = checkKeyboard(
      p.reply_markup,
      (url) => this.refusedUrls?.test(url) ?? false,
      this.botApi10,
    );
    if (keyboardError) return bad(keyboardError);
    const markup = markupOrNone(p.reply_markup);
    const current = stored.message;
    let text = current.text;
    let entities = current.entities ?? [];
    if (withText) {
      const parsed = this.parseText(p);
      if ('ok' in parsed) return parsed;
      ({ text, entities } = parsed);
    }
    if (
      text === current.text &&
      isDeepStrictEqual(entities, current.entities ?? []) &&
      isDeepStrictEqual(markup, current.reply_markup)
    ) {
      return bad(
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    const next = {
      ...current,
      text,
      edit_date: Math.floor(Date.now() / 1000),
    } as Message.TextMessage;
    if (entities.length) next.entities = entities;
    else delete next.entities;
    if (markup) next.reply_markup = markup;
    else delete next.reply_markup;
    stored.message = next;
    if (withText) stored.sent = p.text as string;
    for (const data of callbackData(markup))
      if (!stored.everCallbackData.includes(data)) stored.everCallbackData.push(data);
    return ok(structuredClone(next));
  }

  /**
   * Bot API 10 ephemeral message: one person in a group sees it. `receiver_user_id` an integer,
   * a group or supergroup chat, `callback_query_id` (if any) a query of this bot.
   */
  private sendEphemeral(chatId: number, p: Params): MethodResult {
    const e = p.ephemeral_message_parameters as Record<string, unknown>;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e.receiver_user_id))
      return bad('Bad Request: receiver_user_id must be an Integer');
    const chat = this.chatOf(chatId);
    if (chat.type !== 'group' && chat.type !== 'supergroup')
      return bad('Bad Request: ephemeral messages can be sent only to groups');
    const query = e.callback_query_id;
    if (query !== undefined && !this.openQueries.has(String(query)))
      return bad('Bad Request: query ID is invalid');
    this.ephemerals.push({
      chat_id: chatId,
      receiver_user_id: e.receiver_user_id as number,
      ...(query !== undefined ? { callback_query_id: String(query) } : {}),
      text: p.text as string,
    });
    return ok({ message_id: 0, date: 0, chat, text: p.text });
  }

  private answerCallbackQuery(p: Params): MethodResult {
    const id = String(p.callback_query_id ?? '');
    if (this.openQueries.get(id) !== false) {
      return bad(
        'Bad Request: query is too old and response timeout expired or query ID is invalid',
      );
    }
    if (typeof p.text === 'string' && p.text.length > 200)
      return bad('Bad Request: MESSAGE_TOO_LONG');
    this.openQueries.set(id, true);
    this.answered.push({
      callback_query_id: id,
      ...(typeof p.text === 'string' ? { text: p.text } : {}),
      ...(p.show_alert ? { show_alert: true } : {}),
    });
    for (const wake of [...this.answerWaiters]) wake();
    return ok(true);
  }
}

function callbackData(markup: InlineKeyboardMarkup | undefined): string[] {
  return (markup?.inline_keyboard ?? [])
    .flat()
    .flatMap((b) =>
      'callback_data' in b && typeof b.callback_data === 'string' ? [b.callback_data] : [],
    );
}
