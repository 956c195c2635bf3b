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

/** The texts of a bulk decision in a chat's `/pending` list. */
export interface AdapterBulkStrings {
  /** The button of one common action ("Approve all (3)"). */
  all(label: string, count: number): string;
  /** The confirm step's first line: `count` cases get `label`. */
  confirmHeader(label: string, count: number): string;
  /** The line before the cases left out. */
  leftOut: string;
  /** A case left out that is not in this person's list (its prompt is not told). */
  unlisted: string;
  /** One case left out, with why. */
  skipped(prompt: string, reason: string): string;
  confirm: string;
  cancel: string;
  /** The results' first line. */
  resultsHeader(label: string, count: number): string;
  /** One case's result (`result`: confirmed, unconfirmed, refused) with the relay's text. */
  result(prompt: string, result: 'confirmed' | 'unconfirmed' | 'refused', text: string): string;
  /** Nothing named may be decided that way now. */
  nothing: string;
  /** The confirmation is used, expired or someone else's. */
  expired: string;
  /** Why a named case is left out of a bulk decision (templates `adapter.pending.bulk.reasons`). */
  reasons: AdapterBulkReasons;
}

/** The reasons the bulk path itself gives (the relay's list gives the others in its items). */
export interface AdapterBulkReasons {
  /** The case is not in this person's list (decided, or not theirs to decide). */
  unlisted: string;
  /** The case has no card in the chat. */
  noCard: string;
  /** The case's card has no button of `action`. */
  noAction(action: string): string;
}

/** What a `/pending` line says of a case (a PendingItem of src/adapter.ts has it all). */
export interface PendingItemWords {
  prompt: string;
  from: string;
  age: string;
  expires_in: string;
  tally: string | null;
}

/** `/pending`'s texts (templates `adapter.pending`). */
export interface AdapterPendingStrings {
  /** Nothing this person may decide is open here (`mine`: nothing names them). */
  empty(mine: boolean): string;
  /** The list's first line: how many on this page, and whether more follow. */
  header(count: number, more: boolean, mine: boolean): string;
  /** One case in a line (the caller cuts it to the platform's limits). */
  item(i: PendingItemWords): string;
  /** The button for the next page. */
  more: string;
  /** The label of a link to a case's card. */
  card: string;
  /** The relay could not list the cases. */
  unavailable: string;
  /** The list is sent privately and the person must open the private chat first (`link` to it). */
  privateFirst(link: string): string;
  /** Said where `/pending` was asked when the list went to the person's private chat. */
  sentPrivately: string;
  /** The private chat cannot be opened (the person has not added the app `app` for themselves). */
  privateUnreachable(app: string): string;
  /** The label of a case's Details link (platforms without links to a card). */
  details: string;
  /** Bulk decisions from the list (templates `adapter.pending.bulk`). */
  bulk: AdapterBulkStrings;
}
