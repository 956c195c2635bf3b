/** The one place where grammY's errors become PlatformError. */
import { GrammyError, HttpError } from 'grammy';
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

const PLATFORM = 'telegram';

/** True for Telegram's 400 "message is not modified": the edit had nothing to change, which is success. */
export function isNotModified(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    err.description.includes('message is not modified')
  );
}

/** True when Telegram refused a URL button's address (it does for some hosts it deems invalid). */
export function isButtonUrlInvalid(err: unknown): boolean {
  return err instanceof GrammyError && err.description.includes('BUTTON_URL_INVALID');
}

/**
 * True when Telegram could not read a keyboard button: what a Bot API server older than 10 says
 * of a `disabled` button (to it, a button with no kind it knows).
 */
export function isButtonUnparsable(err: unknown): boolean {
  return (
    err instanceof GrammyError &&
    err.error_code === 400 &&
    /can't parse inline keyboard button|BUTTON_TYPE_INVALID/.test(err.description)
  );
}

/** The new chat id when Telegram answers that a group became a supergroup (400 + migrate_to_chat_id). */
export function migratedTo(err: unknown): number | undefined {
  if (!(err instanceof GrammyError)) return undefined;
  const id = err.parameters?.migrate_to_chat_id;
  return typeof id === 'number' ? id : undefined;
}

/** Telegram says "Bad Request: ... not found" (400) for chats and messages that are gone. */
const NOT_FOUND =
  /chat not found|message to edit not found|message to be replied not found|MESSAGE_ID_INVALID|user not found/i;

function codeFor(err: GrammyError): PlatformErrorCode {
  const status = err.error_code;
  // The group became a supergroup: this chat id (and its messages) is gone for the bot.
  if (migratedTo(err) !== undefined) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 400 && NOT_FOUND.test(err.description)) return 'not_found';
  if (status === 404) return 'not_found';
  // 401 is a revoked token; 403 is "bot was blocked / kicked / not a member".
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 400) return 'bad_request';
  return 'remote';
}

/** Maps whatever a Bot API call threw to a PlatformError naming the call. */
export function toPlatformError(err: unknown, call: string): PlatformError {
  if (err instanceof PlatformError) return err;
  if (err instanceof GrammyError) {
    const retryAfter = err.parameters?.retry_after;
    return new PlatformError(
      PLATFORM,
      call,
      codeFor(err),
      scrub(
        `${err.error_code} ${err.description}${migratedTo(err) !== undefined ? ` (the chat is now telegram:${migratedTo(err)})` : ''}`,
      ),
      {
        status: err.error_code,
        cause: err,
        ...(typeof retryAfter === 'number' ? { retryAfterMs: retryAfter * 1000 } : {}),
      },
    );
  }
  if (err instanceof HttpError) {
    // grammY keeps the URL (which holds the token) out of this message unless sensitiveLogs is on.
    return new PlatformError(PLATFORM, call, 'network', scrub(err.message), { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new PlatformError(PLATFORM, call, 'network', scrub(message), { cause: err });
}
