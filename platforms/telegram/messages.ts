/** Sending and editing card messages, with the fallbacks real chats need. */
import type { Api } from 'grammy';
import type { Message } from 'grammy/types';
import type { AdapterAskStrings } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import {
  isButtonUnparsable,
  isButtonUrlInvalid,
  isNotModified,
  migratedTo,
  toPlatformError,
} from './errors.ts';
import {
  linkButton,
  renderCard,
  renderNotice,
  type TelegramMessage,
  withLinkAsText,
} from './render.ts';

/**
 * Runs `attempt` with the card's message, once more with the Details link as a text line when
 * Telegram refuses the link button (BUTTON_URL_INVALID, e.g. a review_url on a private or
 * loopback host), and without the decided card's disabled button when the Bot API server is
 * older than 10 and cannot read it: the case still arrives, with its link readable.
 */
async function withLinkFallback<T>(
  card: Card,
  attempt: (message: TelegramMessage) => Promise<T>,
  log: Logger | undefined,
  words: AdapterAskStrings | undefined,
): Promise<T> {
  const withDisabled = async (c: Card) => {
    try {
      return await attempt(renderCard(c, { words }));
    } catch (err) {
      if (!isButtonUnparsable(err) || !c.final || !c.outcome) throw err;
      log?.warn({ key: c.key }, 'telegram refused the disabled outcome button; sending without it');
      return attempt(renderCard(c, { disabledButtons: false, words }));
    }
  };
  try {
    return await withDisabled(card);
  } catch (err) {
    if (!isButtonUrlInvalid(err) || !card.link) throw err;
    log?.warn({ key: card.key }, 'telegram refused the Details button URL; sending it as text');
    return withDisabled(withLinkAsText(card));
  }
}

/** Posts a card; follows a group that became a supergroup. Throws PlatformError. */
export async function sendCard(
  api: Api,
  chatId: string,
  card: Card,
  replyToMessageId: number | null,
  log: Logger | undefined,
  words?: AdapterAskStrings,
): Promise<Message.TextMessage> {
  const send = (to: string) =>
    withLinkFallback(
      card,
      (message) => {
        return api.sendMessage(to, message.text, {
          parse_mode: message.parse_mode,
          reply_markup: message.reply_markup,
          link_preview_options: message.link_preview_options,
          ...(replyToMessageId !== null
            ? {
                reply_parameters: {
                  message_id: replyToMessageId,
                  allow_sending_without_reply: true,
                },
              }
            : {}),
        });
      },
      log,
      words,
    );
  try {
    return await send(chatId);
  } catch (err) {
    // A group upgraded to a supergroup gets a new id; Telegram names it, so the case still arrives.
    const moved = migratedTo(err);
    if (moved === undefined) throw toPlatformError(err, 'sendMessage');
    log?.warn(
      { from: `telegram:${chatId}`, to: `telegram:${moved}` },
      'telegram group became a supergroup; update the target to the new chat id',
    );
    try {
      return await send(String(moved));
    } catch (again) {
      throw toPlatformError(again, 'sendMessage');
    }
  }
}

/** Replaces a card's text and keyboard; "message is not modified" is success. Throws PlatformError. */
export async function editCard(
  api: Api,
  chatId: string,
  messageId: number,
  card: Card,
  log: Logger | undefined,
  words?: AdapterAskStrings,
): Promise<void> {
  try {
    await withLinkFallback(
      card,
      (message) => {
        return api.editMessageText(chatId, messageId, message.text, {
          parse_mode: message.parse_mode,
          reply_markup: message.reply_markup,
          link_preview_options: message.link_preview_options,
        });
      },
      log,
      words,
    );
  } catch (err) {
    if (isNotModified(err)) return;
    throw toPlatformError(err, 'editMessageText');
  }
}

/** Sends a plain reminder as a reply to the card, with the link as a button (or as text if refused). */
export async function sendNotice(
  api: Api,
  chatId: string,
  messageId: number,
  text: string,
  link: { label: string; url: string } | null,
  log: Logger | undefined,
): Promise<void> {
  const send = (body: string, withButton: boolean) => {
    const button = withButton ? linkButton(link) : null;
    return api.sendMessage(chatId, renderNotice(body), {
      reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
      link_preview_options: { is_disabled: true },
      ...(button ? { reply_markup: { inline_keyboard: [[button]] } } : {}),
    });
  };
  try {
    try {
      await send(text, true);
    } catch (err) {
      if (!isButtonUrlInvalid(err) || !link) throw err;
      log?.warn('telegram refused the reminder link button URL; sending it as text');
      await send(`${text}\n\n${link.label}: ${link.url}`, false);
    }
  } catch (err) {
    throw toPlatformError(err, 'sendMessage');
  }
}
