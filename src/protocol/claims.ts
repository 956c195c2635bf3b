/**
 * What `submitted_by` is (spec v0.9 §7.5, §13.8): caller-reported origin metadata of a chat tap.
 * The relay writes down whom the chat platform named in a request it verified (or, on the web chat,
 * whom the browser declared); the service receives that as a claim and never as verified identity.
 * Every surface that shows `submitted_by` says so with these words; `responded_by` is the service's.
 */

/** The long form: OpenAPI, receipts, docs. */
export const SUBMITTED_BY_CLAIM =
  "a claim, not verified identity: who tapped, as the chat platform reported it to the relay (the service's own record is responded_by)";

/** The short form after a name (CLI, one-line outcomes): "Ann (reported by slack as U123)". */
export function reportedBy(s: { platform: string; platform_user_id: string }): string {
  return `reported by ${s.platform} as ${s.platform_user_id}`;
}
