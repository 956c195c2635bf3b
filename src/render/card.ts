/** The platform-neutral view of a case. All text is plain text; each adapter escapes it for its own markup. */

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
  /** The status line ("Waiting for a decision", "Approved by Ann at 10:15 UTC", ...). */
  status: string;
  /** True when the case reached completed, expired or cancelled: no actions remain. */
  final: boolean;
  /** The case's state (pending, opened, in_progress, completed, expired, cancelled), for a badge. */
  state?: string;
}
