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
  /** The words inside step flows and native forms. */
  steps: AdapterStepStrings;
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

/**
 * The words inside an ask's step flows and native forms (templates `adapter.asks.steps`): the
 * prompts of Telegram's one-question-at-a-time flow, the Submit buttons of forms and modals, the
 * ranking places, and the reasons a typed reply is refused.
 */
export interface AdapterStepStrings {
  yes: string;
  no: string;
  /** Keeps a step's current value ("Keep as it is"). */
  keep: string;
  /** Leaves an optional step out ("Skip"). */
  skip: string;
  /** Sends a form, modal or dialog ("Submit"). */
  submit: string;
  /** The title of a form's modal or dialog ("Answer"). */
  formTitle: string;
  /** The title of a modify approval's modal ("Edit and approve"). */
  editAnd(choice: string): string;
  /** Closes a modal without answering ("Cancel"). */
  cancel: string;
  submitRanking: string;
  submitText: string;
  submitArguments: string;
  /** The label of a modify approval's decision step ("Your decision"). */
  yourDecision: string;
  /** How to answer a step of each type. */
  how: { text: string; number: string; date: string; boolean: string; choice: string };
  /** A step's example value ("e.g. …"). */
  example(value: string): string;
  /** A step's current value ("Now: …"). */
  now(value: string): string;
  /** An optional step's hint. */
  optional: string;
  /** Why a typed reply is not a value of its step. */
  problems: { useButtons: string; number: string; date: string; empty: string };
  /** A form's refusals of a missing input. */
  fieldRequired(label: string): string;
  rankEvery: string;
  textRequired: string;
  /** The tool line of a tool call's arguments ("Tool: …"). */
  tool(name: string): string;
  /** The mark of an argument the person cannot change ("(read-only)"). */
  readOnly: string;
  /** A ranking place, 1-based ("1st place"). */
  place(n: number): string;
  /** The prompt for the next ranking place ("Choose the 2nd place."). */
  choosePlace(n: number): string;
  /** A multi-choice form's bounds ("Select at least 1, at most 2."). */
  selectRange(min: number, max: number | null): string;
  /** A ranking form's hint ("Order them, first = most preferred."). */
  orderHint: string;
  moveUp(label: string): string;
  moveDown(label: string): string;
}

/** English ordinals for the `{{ordinal}}` of a place (1st, 2nd, 3rd, 4th, 11th, 21st). */
export function englishOrdinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
}
