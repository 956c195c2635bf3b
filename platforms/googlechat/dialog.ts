/**
 * Google Chat dialogs for asks that need typing (a text, a number, a date, a choice among many
 * options): the card carries an "Answer…" button whose `onClick.action.interaction` is
 * `OPEN_DIALOG`; Chat then sends a CARD_CLICKED event with `dialogEventType: REQUEST_DIALOG`, the
 * app answers `actionResponse {type: DIALOG, dialogAction: {dialog: {body: <card>}}}` with the
 * ask's input widgets and its submit buttons, and the submit comes back as `SUBMIT_DIALOG` with the
 * inputs in `common.formInputs`, answered by `dialogAction.actionStatus` (OK closes the dialog; an
 * error code keeps it open with the message). Dialogs need the synchronous answer, which an HTTP
 * Chat app gives (developers.google.com/workspace/chat/dialogs). Pure: no I/O.
 */
import type { AdapterAskButtons } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import type { AskParts } from './ask.ts';

type Json = Record<string, unknown>;

/** The parameter of the "Answer…" button: the card key whose ask the dialog draws. */
export const DIALOG_KEY_PARAM = 'o';

/** Widgets that mean typing or a long list: a dialog holds them better than the card. */
function typing(w: Json): boolean {
  if ('textInput' in w || 'dateTimePicker' in w) return true;
  const s = w.selectionInput as { type?: string } | undefined;
  return s?.type === 'DROPDOWN' || s?.type === 'MULTI_SELECT';
}

/** True when the ask's widgets go in a dialog (any typed input, or a choice among many options). */
export function needsDialog(parts: AskParts): boolean {
  return parts.widgets.some(typing);
}

/** The card's "Answer…" ("Edit…" for an approval) button that asks Chat to open the dialog. */
export function openDialogButton(
  key: string,
  approval: boolean,
  fn: string,
  words: AdapterAskButtons = stringsOf(null).asks.buttons,
): Json {
  return {
    text: approval ? words.edit : words.answer,
    type: 'FILLED',
    onClick: {
      action: {
        function: fn,
        interaction: 'OPEN_DIALOG',
        parameters: [{ key: DIALOG_KEY_PARAM, value: key }],
      },
    },
  };
}

/** The synchronous answer that opens a dialog with `body` (a cards v2 card). */
export function dialogAnswer(body: Json): Json {
  return { actionResponse: { type: 'DIALOG', dialogAction: { dialog: { body } } } };
}

/**
 * The answer to a dialog's submit: OK closes it (with a message, when there is one); an error code
 * (INVALID_ARGUMENT for an answer the ask refuses, FAILED_PRECONDITION for "submit again to
 * confirm") keeps it open and shows the message.
 */
export function dialogStatus(
  statusCode: 'OK' | 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION',
  message?: string,
): Json {
  return {
    actionResponse: {
      type: 'DIALOG',
      dialogAction: {
        actionStatus: { statusCode, ...(message ? { userFacingMessage: message } : {}) },
      },
    },
  };
}
