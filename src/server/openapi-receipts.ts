/** The receipt routes in the OpenAPI document (see receipt-routes.ts). */
import { AUTH_NOTE, caseIdParam, error, type PathItem, secured } from './openapi-parts.ts';
import { RECEIPT_KEYS_PATH } from './receipt-routes.ts';

const object = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});

/** Paths of the receipt routes. */
export function receiptPaths(): Record<string, PathItem> {
  const caseId = caseIdParam();
  return {
    '/v1/cases/{id}/receipt': {
      get: {
        operationId: 'getReceipt',
        tags: ['receipts'],
        summary: 'The signed decision receipt of a final case',
        description: `Issued once when the case ends and never changed; verify it with \`hitl-relay verify\` (docs/four-eyes.md, Decision receipts).${AUTH_NOTE}`,
        security: secured,
        parameters: [caseId],
        responses: {
          '200': object('The receipt: `{receipt, signature}`.'),
          '401': error('Missing or wrong API key.'),
          '404': error('No such case.'),
          '409': error('The case is not final yet.'),
          '503': error('The relay is starting.'),
        },
      },
    },
    '/v1/cases/{id}/receipt/history': {
      get: {
        operationId: 'getReceiptHistory',
        tags: ['receipts'],
        summary: "The case's stored history in receipt form, to check against a receipt",
        description: `\`{entries: [{at, kind, detail}]}\`, oldest first.${AUTH_NOTE}`,
        security: secured,
        parameters: [caseId],
        responses: {
          '200': object('The stored history.'),
          '401': error('Missing or wrong API key.'),
          '404': error('No such case.'),
        },
      },
    },
    [RECEIPT_KEYS_PATH]: {
      get: {
        operationId: 'getReceiptKeys',
        tags: ['receipts'],
        summary: 'The public key that signs receipts (a JWK set, Ed25519)',
        responses: {
          '200': object('`{keys: [{kty, crv, x, kid, alg, use}]}`.'),
          '503': error('The relay is starting.'),
        },
      },
    },
  };
}
