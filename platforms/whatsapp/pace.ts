/**
 * WhatsApp's send pace: the shared scheduler (src/pace.ts) with the Cloud API's limits (see
 * /work/shared/PLATFORMS.md): about one message every 6 s from a business number to one person
 * (the pair rate, error 131056) and 80 messages a second per number. A lane is one
 * "<phone number id>:<wa_id>" pair; sends count from the platform's answer (`fromAnswer`), so a
 * slow request never lets two messages to one person arrive closer than the pair rate.
 */
import { type PaceRules, SendPace } from '../../src/pace.ts';

/** The rates; tests and the bench pass smaller values so nothing waits for real. */
export interface WhatsAppPaceOptions {
  /** Least time between two messages to one person. */
  pairIntervalMs: number;
  /** Most messages within throughputWindowMs over every person. */
  throughputLimit: number;
  throughputWindowMs: number;
}

/** The Cloud API's published defaults (pair rate; throughput of a standard number). */
export const WHATSAPP_DEFAULT_PACE: WhatsAppPaceOptions = {
  pairIntervalMs: 6000,
  throughputLimit: 80,
  throughputWindowMs: 1000,
};

/** The pace rules for the Cloud API's limits. */
export function whatsappPaceRules(options: Partial<WhatsAppPaceOptions> = {}): PaceRules {
  const o = { ...WHATSAPP_DEFAULT_PACE, ...options };
  return {
    lane: [{ limit: 1, windowMs: o.pairIntervalMs }],
    global: [{ limit: o.throughputLimit, windowMs: o.throughputWindowMs }],
    fromAnswer: true,
  };
}

/** The lane of one business number and one person. */
export function pairLane(phoneId: string, waId: string): string {
  return `${phoneId}:${waId}`;
}

/** Hands out send slots per pair. */
export class WhatsAppSendPace extends SendPace {
  readonly options: WhatsAppPaceOptions;
  constructor(options: Partial<WhatsAppPaceOptions> = {}, now: () => number = Date.now) {
    super(whatsappPaceRules(options), now, 'whatsapp send pace');
    this.options = { ...WHATSAPP_DEFAULT_PACE, ...options };
  }
}
