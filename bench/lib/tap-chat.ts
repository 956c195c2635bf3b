/**
 * The Slack, Discord and Teams rows of benchmark 1 share this shape: the real adapter against its
 * fake (test/fakes/), a bare route of the same platform interaction (bench/lib/bare-chat.ts), and
 * one tap that reports when the submit reached the service, when the platform had its answer and
 * when the message showed the outcome.
 */
import type { PlatformAdapter } from '../../src/adapter.ts';
import type { BareChat } from './bare-chat.ts';
import type { Marks } from './marks.ts';

/** Milliseconds from sending the tap. */
export interface TapSample {
  submit: number;
  edit: number;
  /** The HTTP answer to the platform's delivery (Slack's ack, Discord's interaction response, Teams' invoke response). */
  reply: number;
}

/** One platform's part of the tap benchmark. */
export interface ChatTapBench {
  name: 'slack' | 'discord' | 'teams';
  adapter: PlatformAdapter;
  /** The relay's target for its case number `i`. */
  target(i: number): string;
  /** After the relay started: whatever the platform does before a card can be posted (Teams: the install). */
  attach(relayUrl: string): Promise<void>;
  /** Posts the bare side's card for service case `id` and remembers where to submit. */
  addBare(id: string, hitl: Record<string, string>): Promise<void>;
  /** After intake: finds the relay's card of every case at the fake. */
  indexRelay(): void;
  /** Delivers one tap on "approve" of case `id` to `url` (the relay's or the bare server's). */
  tap(side: 'relay' | 'bare', id: string, url: string): Promise<TapSample>;
  close(): Promise<void>;
}

/** What every platform part needs. */
export interface ChatTapDeps {
  marks: Marks;
  bare: BareChat;
}

/** The service case id in a card's prompt ("Deploy build <id> to production?"). */
export function caseIdIn(text: string): string | null {
  return /build (\S+) to/.exec(text)?.[1] ?? null;
}

/** Waits for the submit and edit marks of a tap started at `t0` (already waiting since before it). */
export async function sampleOf(
  t0: number,
  reply: number,
  submitted: Promise<number>,
  edited: Promise<number>,
): Promise<TapSample> {
  const [s, e] = await Promise.all([submitted, edited]);
  return { submit: s - t0, edit: e - t0, reply: reply - t0 };
}
