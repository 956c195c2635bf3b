/** A case's card as it stands, and its signed Details link. */
import type { Card } from '../render/card.ts';
import { renderCase } from '../render/render-case.ts';
import type { Strings } from '../render/templates.ts';
import { linkSignature } from './ids.ts';
import type { Sealer } from './sealer.ts';
import type { Store } from './store.ts';
import type { StoredCase } from './types.ts';

/** What rendering reads: earlier rounds, the sealed secrets, the texts and who is who. */
export interface CardRendererDeps {
  store: Pick<Store, 'getCase'>;
  sealer: Pick<Sealer, 'open'>;
  strings: Strings;
  identityOfAccount(who: string): string;
}

/** Renders cards and signs Details links. */
export class CardRenderer {
  private linkBase: string | undefined;
  private linkKey: string | undefined;

  constructor(private readonly d: CardRendererDeps) {}

  /** The round of a case in a multi-round chain (1 for a lone case). */
  async roundOf(c: StoredCase): Promise<number> {
    let round = 1;
    let prev = c.doc.previous_id;
    while (prev && round < 50) {
      round++;
      prev = (await this.d.store.getCase(prev))?.doc.previous_id;
    }
    return round;
  }

  /**
   * The Details link of a case: a relay URL that redirects to review_url, so the review token never
   * reaches a chat platform, a card or a log line. The signature makes the link unguessable.
   */
  detailsUrl(c: StoredCase): string | undefined {
    if (!this.linkBase || !this.linkKey) return undefined;
    return `${this.linkBase}/r/${c.key}/${linkSignature(this.linkKey, c.key)}`;
  }

  /** Sets where Details links point and the key that signs them (at start-up). */
  setLinks(base: string, key: string): void {
    this.linkBase = base.replace(/\/$/, '');
    this.linkKey = key;
  }

  /** The card of a case as it stands. */
  async cardOf(c: StoredCase): Promise<Card> {
    const detailsUrl = this.detailsUrl(c);
    return renderCase(c, this.d.sealer.open(c.secrets), this.d.strings, {
      round: await this.roundOf(c),
      ...(detailsUrl ? { detailsUrl } : {}),
      identityOf: (a) => this.d.identityOfAccount(a),
    });
  }
}
