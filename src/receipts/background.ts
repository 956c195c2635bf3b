/**
 * Receipts of cases that just became final, issued in the background after the case's card edit:
 * signing, hashing and the receipt's store calls would otherwise run before the edit leaves. A
 * receipt not issued here (an error, a stop) is issued when it is asked for.
 */
import { bounded } from '../bounded.ts';
import type { Logger } from '../log.ts';
import { isTerminal } from '../protocol/types.ts';
import type { StoredCase } from '../store/types.ts';
import type { ReceiptIssuer } from './issuer.ts';

/** How long a receipt waits for its case's card edit before it is issued anyway. */
export const RECEIPT_AFTER_EDIT_MS = 5000;

/** Issues final cases' receipts after their card edits; `drain` waits for those under way. */
export class BackgroundReceipts {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly d: {
      issuer: ReceiptIssuer;
      /** Resolves once the card edits queued for the case so far are done. */
      edited: (id: string) => Promise<void>;
      log: Logger;
      afterEditMs?: number;
    },
  ) {}

  /** Issues the receipt of `c` when it is final (after its card edit, at most afterEditMs later). */
  issue(c: StoredCase): void {
    if (!isTerminal(c.status)) return;
    const issued = bounded(this.d.edited(c.id), this.d.afterEditMs ?? RECEIPT_AFTER_EDIT_MS)
      .then(() => this.d.issuer.receiptOf(c.id, c))
      .then(
        () => {},
        (err: Error) => {
          this.d.log.warn(
            { case: c.id, err: err.message },
            'receipt not issued; it is issued when asked for',
          );
        },
      );
    this.pending.add(issued);
    void issued.finally(() => this.pending.delete(issued));
  }

  /** Waits up to `ms` for the receipts under way; false when some were still being issued. */
  drain(ms: number): Promise<boolean> {
    return bounded(Promise.allSettled([...this.pending]), ms);
  }
}
