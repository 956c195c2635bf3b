/**
 * The words of open asks' flows and buttons, from templates/<LOCALE>.json `adapter.asks`: part of
 * AdapterStrings (src/adapter.ts re-exports them), built by src/adapter-kit.ts adapterStrings().
 */

/** The ask flows' toasts, refusals and placeholders (templates `adapter.asks`). */
export interface AdapterAskStrings {
  /** The question's draft or form is gone: start again from the card. */
  closed: string;
  /** Skip on a required step. */
  required: string;
  /** A ranking option that is already placed. */
  alreadyPlaced: string;
  /** A typed answer cannot be taken in a channel (no replies to the bot there). */
  channelUseDetails: string;
  /** A typed step: the person answers in a reply. */
  answerBelow: string;
  /** The service refused the answer (its text). */
  notRecorded(text: string): string;
  /** The platform did not open the form. */
  formFailed: string;
  /** A form submitted after its ask closed. */
  closedUseDetails: string;
  /** Submitting a form failed inside the relay. */
  failedTryAgain: string;
  /** A single-choice menu's placeholder. */
  chooseOne: string;
  /** A multi-choice menu's placeholder with both bounds. */
  chooseRange(min: number, max: number): string;
  /** A multi-choice menu's placeholder with only a lower bound. */
  chooseAtLeast(min: number): string;
  /** One person's multi-select picks so far (`limits` like "1-2", `picks` the joined labels). */
  yourChoice(count: number, limits: string, picks: string): string;
  /** One person's ranking so far. */
  yourOrder(count: number, total: number, picks: string): string;
  /** Nothing picked yet. */
  noneYet: string;
  /** The labels of the buttons that open an ask's form, modal, dialog or flow. */
  buttons: AdapterAskButtons;
}

/**
 * The words on an open ask's own buttons (templates `adapter.asks.buttons`), so a LOCALE reaches
 * them as it reaches the cards. Platforms add their own decoration (Telegram's emoji) around them.
 */
export interface AdapterAskButtons {
  /** Opens a typed question ("Answer…"). */
  answer: string;
  /** Opens a form ("Fill in…"). */
  fillIn: string;
  /** Opens an approval's or a draft's values in a modal or dialog ("Edit…"). */
  edit: string;
  /** Opens an approval's modifiable values ("Edit values…"). */
  editValues: string;
  /** Opens a draft to edit ("Edit the draft…"). */
  editDraft: string;
  /** Sends a draft unchanged ("Send the draft as it is"). */
  sendDraft: string;
  /** Opens a tool call's editable arguments ("Edit arguments…"). */
  editArguments: string;
  /** Runs a tool call with its arguments unchanged ("Run with these arguments"). */
  runArguments: string;
  /** Starts a ranking ("Rank…"). */
  rank: string;
  /** Copies a short draft to the clipboard ("Copy the draft"). */
  copyDraft: string;
  /** Takes the last ranking place back ("Undo"). */
  undo: string;
}
