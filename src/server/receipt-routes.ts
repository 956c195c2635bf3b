/**
 * Receipts over HTTP: GET /v1/cases/:id/receipt (the signed receipt of a final case; the API key
 * applies as on every /v1/cases route), GET /v1/cases/:id/receipt/history (the stored history in
 * receipt form, so a verifier can check it against a receipt it holds), and the public signing key
 * at /.well-known/hitl-relay/receipt-keys.json (a JWK set).
 */
import type { Hono } from 'hono';
import { type ReceiptIssuer, receiptHistory } from '../receipts/issuer.ts';
import type { ReceiptSigner } from '../receipts/keys.ts';
import type { Store } from '../store/store.ts';
import { ApiError } from './api-error.ts';

/** The well-known path of the receipt signing key. */
export const RECEIPT_KEYS_PATH = '/.well-known/hitl-relay/receipt-keys.json';

/** Registers the receipt routes; `receipts()` is undefined until the relay has started. */
export function registerReceiptRoutes(
  app: Hono,
  store: Pick<Store, 'getCase' | 'listHistory'>,
  receipts: () => { issuer: ReceiptIssuer; signer: ReceiptSigner } | undefined,
): void {
  const notStarted = new ApiError(503, 'not_ready', 'the relay is starting; try again');
  const noCase = (id: string) => new ApiError(404, 'not_found', `no case ${id}`);
  app.get(RECEIPT_KEYS_PATH, (c) => {
    const r = receipts();
    if (!r) throw notStarted;
    return c.json({ keys: [r.signer.publicJwk] });
  });
  app.get('/v1/cases/:id/receipt', async (c) => {
    const r = receipts();
    if (!r) throw notStarted;
    const id = c.req.param('id');
    const found = await store.getCase(id);
    if (!found) throw noCase(id);
    const receipt = await r.issuer.receiptOf(id);
    if (!receipt)
      throw new ApiError(
        409,
        'not_final',
        `case ${id} is ${found.status}; a receipt is issued when it ends`,
      );
    return c.json(receipt);
  });
  app.get('/v1/cases/:id/receipt/history', async (c) => {
    const id = c.req.param('id');
    if (!(await store.getCase(id))) throw noCase(id);
    return c.json({ entries: receiptHistory(await store.listHistory(id)) });
  });
}
