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

/** The well-known path of the receipt signing key. */
export const RECEIPT_KEYS_PATH = '/.well-known/hitl-relay/receipt-keys.json';

/** Registers the receipt routes; `receipts()` is undefined until the relay has started. */
export function registerReceiptRoutes(
  app: Hono,
  store: Pick<Store, 'getCase' | 'listHistory'>,
  receipts: () => { issuer: ReceiptIssuer; signer: ReceiptSigner } | undefined,
): void {
  const notStarted = { error: 'not_ready', message: 'the relay is starting; try again' };
  app.get(RECEIPT_KEYS_PATH, (c) => {
    const r = receipts();
    return r ? c.json({ keys: [r.signer.publicJwk] }) : c.json(notStarted, 503);
  });
  app.get('/v1/cases/:id/receipt', async (c) => {
    const r = receipts();
    if (!r) return c.json(notStarted, 503);
    const id = c.req.param('id');
    const found = await store.getCase(id);
    if (!found) return c.json({ error: 'not_found', message: `no case ${id}` }, 404);
    const receipt = await r.issuer.receiptOf(id);
    if (!receipt)
      return c.json(
        {
          error: 'not_final',
          message: `case ${id} is ${found.status}; a receipt is issued when it ends`,
        },
        409,
      );
    return c.json(receipt);
  });
  app.get('/v1/cases/:id/receipt/history', async (c) => {
    const id = c.req.param('id');
    if (!(await store.getCase(id)))
      return c.json({ error: 'not_found', message: `no case ${id}` }, 404);
    return c.json({ entries: receiptHistory(await store.listHistory(id)) });
  });
}
