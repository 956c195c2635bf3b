/**
 * Chat's rules for an app's answer to a dialog event, as the fake Google Chat enforces them
 * (developers.google.com/workspace/chat/dialogs): `actionResponse.type: DIALOG` only answers a
 * dialog event (`isDialogEvent`, `dialogEventType`); a dialog is `dialogAction.dialog.body`, a
 * cards v2 card under the same card rules as a message (never the answer to a cancel); otherwise `dialogAction.actionStatus` ({statusCode: a google.rpc code name,
 * userFacingMessage?}): OK closes the dialog, another code keeps it open and shows the message.
 */
import { checkMessage } from './googlechat-rules.ts';

type Json = Record<string, any>;

/** google.rpc.Code names an actionStatus may carry. */
const CODES = new Set([
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
]);

/** What Chat does with a DIALOG answer: the dialog shown, or the status it closed / kept it with. */
export type DialogOutcome =
  | { shown: Json }
  | { status: string; message: string | null; open: boolean };

/** The outcome of a DIALOG answer to `event`; throws the way Chat refuses a bad one. */
export function applyDialogAnswer(event: Json, answer: Json): DialogOutcome {
  const refuse = (why: string) => {
    throw new Error(`Chat would refuse the app's dialog answer: ${why}`);
  };
  if (event.isDialogEvent !== true || typeof event.dialogEventType !== 'string')
    refuse('a DIALOG answer to an event that is not a dialog event');
  const action = answer.actionResponse?.dialogAction;
  if (!action || typeof action !== 'object') return refuse('dialogAction is required');
  if (action.dialog !== undefined) {
    if (event.dialogEventType === 'CANCEL_DIALOG') refuse('a dialog cannot answer its cancel');
    const broken = checkMessage({ cardsV2: [{ cardId: 'dialog', card: action.dialog.body }] });
    if (broken) refuse(`dialog.body: ${broken.message}`);
    return { shown: action.dialog.body };
  }
  const status = action.actionStatus;
  if (!status || !CODES.has(status.statusCode))
    return refuse('actionStatus.statusCode must be a google.rpc code');
  if (status.userFacingMessage !== undefined && typeof status.userFacingMessage !== 'string')
    refuse('actionStatus.userFacingMessage must be a string');
  return {
    status: status.statusCode,
    message: status.userFacingMessage ?? null,
    open: status.statusCode !== 'OK' && event.dialogEventType === 'SUBMIT_DIALOG',
  };
}
