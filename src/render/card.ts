/** The platform-neutral view of a case. All text is plain text; each adapter escapes it for its own markup. */
import type { AskContent, AskKind } from '../asks/content.ts';

/** How a button looks: approve/confirm primary, reject/abort danger, the rest secondary. */
export type ActionStyle = 'primary' | 'danger' | 'secondary';

/** One inline button. */
export interface CardAction {
  /** The protocol action name ("approve", "confirm", ...). */
  action: string;
  label: string;
  style: ActionStyle;
  /** The button payload: `hitl:<key>:<action>`. Never carries a token. */
  payload: string;
  /** Present for actions that cannot be undone: a native confirm dialog where the platform has one. */
  confirm?: { title: string; text: string; yes: string; no: string };
}

/** A link button (Details -> review_url). */
export interface CardLink {
  label: string;
  url: string;
}

/**
 * A link the person opens themselves (an MCP URL elicitation's sign-in or consent page), drawn as
 * a link button labelled with its host ("Opens example.com"), the full URL on the card too. The
 * relay never opens or fetches it; a platform must not preview it either.
 */
export interface CardOpenLink extends CardLink {
  /** The URL's host, as the label states it (bold where the platform has bold). */
  host: string;
}

/**
 * An ask's content for native widgets (selects, inputs, modals), present while the case can be
 * answered in the chat. An adapter that cannot draw a kind keeps the Details link (the review page).
 * Answers go back as a Tap with `data`; docs/asks/README.md lists which platform draws which kind.
 */
export interface CardAsk {
  /** "approval.binary", "decision.multi", ... */
  kind: AskKind;
  content: AskContent;
}

/**
 * How a case ended, told apart at a glance: each platform gives it a colour or style where it has
 * one (Slack attachment colour, Discord embed colour, Teams container style, the web chat's badge),
 * and `label` says it in words everywhere.
 */
export type CardOutcomeKind =
  | 'approved'
  | 'rejected'
  | 'answered'
  | 'expired'
  | 'cancelled'
  | 'ended_by_policy';

/** The outcome of a final card: its kind and its words ("✅ Approved"). */
export interface CardOutcome {
  kind: CardOutcomeKind;
  label: string;
}

/**
 * One typed field of an answer (a form's field, an argument, a modified value) as label and value.
 * `line` is the same field as it stands in the card's text ("Label: value": in `lines` on a final
 * card, in the ask's facts on an open one), so a platform that draws the fields as a table (Slack's
 * table block) leaves that line out of its text.
 */
export interface CardField {
  label: string;
  value: string;
  line: string;
}

/** Label / value rows under a header ("Field", "Value" in the card's language). */
export interface CardTable {
  header: [string, string];
  rows: CardField[];
}

/** A case as a chat message. */
export interface Card {
  /** The relay's case id (not a secret; shown by the web chat API). */
  caseId: string;
  /** The short case key used in button payloads. */
  key: string;
  /** e.g. "Approval needed". */
  title: string;
  /** The service's prompt. */
  prompt: string;
  /** Context lines (key facts), already shortened. */
  lines: string[];
  /** A short warning shown beside irreversible actions, or null. */
  hint: string | null;
  actions: CardAction[];
  link: CardLink | null;
  /** On an open card: a link the person opens themselves (URL elicitation), beside Details. */
  openLink?: CardOpenLink;
  /** The status line ("Waiting for a decision", "Approved by Ann at 10:15 UTC", ...). */
  status: string;
  /** True when the case reached completed, expired or cancelled: no actions remain. */
  final: boolean;
  /** The case's state (pending, opened, in_progress, completed, expired, cancelled), for a badge. */
  state?: string;
  /** Present on a final card: how the case ended (the title starts with its label too). */
  outcome?: CardOutcome;
  /**
   * The review type (approval, confirmation, selection, input, escalation, custom), for platforms
   * that pick a message per type (WhatsApp's approved templates outside its 24-hour window).
   */
  type?: string;
  /**
   * An ask's typed fields as a table, for a platform that has one: on a final card the answer's
   * fields, on an open one the values being decided (current values, a tool's arguments).
   */
  table?: CardTable;
  /** Present for an open ask (the relay's own, or another relay's): draw its widgets natively. */
  ask?: CardAsk;
}
