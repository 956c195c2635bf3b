/** A case's card as it stands, and its signed Details link. */
import { isTerminal } from '../protocol/types.ts';
import type { Card } from '../render/card.ts';
import type { Strings } from '../render/templates.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { CaseSecrets, StoredCase } from '../store/types.ts';
import { linkSignature } from './ids.ts';
import { renderCase } from './render-case.ts';
import { earlierRounds } from './rounds.ts';

/** Stands for a submit token that exists but stays sealed (rendering only asks whether it exists). */
const TOKEN_SEALED = '(sealed)';

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
    return (await earlierRounds(this.d.store, c)).length + 1;
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

  /**
   * What a card needs of the case's secrets: whether a submit token exists (the buttons) and, with
   * no Details link, the review URL. The case's inline_submit flag says the first (the token is
   * only wiped when the case ends), so the sealed secrets are opened only for an older case
   * without the flag or before the Details link is set; the stand-in never leaves rendering.
   */
  private secretsFor(c: StoredCase, detailsUrl: string | undefined): CaseSecrets {
    const flag = c.doc.inline_submit;
    if (flag === undefined || !detailsUrl) return this.d.sealer.open(c.secrets);
    return {
      submit_token: flag && !isTerminal(c.status) ? TOKEN_SEALED : null,
      review_url: detailsUrl,
    };
  }

  /** The card of a case as it stands. */
  async cardOf(c: StoredCase): Promise<Card> {
    const detailsUrl = this.detailsUrl(c);
    return renderCase(c, this.secretsFor(c, detailsUrl), this.d.strings, {
      round: await this.roundOf(c),
      ...(detailsUrl ? { detailsUrl } : {}),
      identityOf: (a) => this.d.identityOfAccount(a),
    });
  }
}
