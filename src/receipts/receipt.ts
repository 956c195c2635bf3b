/**
 * Signed decision receipts: what a case was, who acted and how it ended, signed with Ed25519 over
 * the RFC 8785 canonical JSON of the receipt body. Pure: no store, no clock (callers pass both).
 * The audit history is committed to by a hash chain, so changing, dropping or re-ordering any
 * stored history row that a receipt covers is detectable later (verifyHistory).
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS (module.exports = fn) but its types declare an ES default export; under
// NodeNext the default import is that function at run time.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** The receipt format this code writes and reads. */
export const RECEIPT_FORMAT = 'hitl-relay-receipt/1';

/** One history row as a receipt covers it (times as ISO strings). */
export interface ReceiptHistoryEntry {
  at: string;
  kind: string;
  detail: Record<string, unknown>;
}

/** What a receipt says (the signed part). */
export interface ReceiptBody {
  format: typeof RECEIPT_FORMAT;
  issued_at: string;
  /** The relay instance that issued it. */
  instance: string;
  case: {
    id: string;
    case_id: string;
    service: string;
    target: string;
    type: string;
    prompt: string;
    status: string;
    status_at: string | null;
    /** Whether the service confirmed the final status (false: the relay's own conclusion). */
    confirmed: boolean;
  };
  /** SHA-256 of the canonical JSON of the hitl object as stored (no submit_token, no review_url). */
  content_sha256: string;
  /** SHA-256 of the canonical JSON of the final card every platform was sent. */
  card_sha256: string;
  /** The actions the card offered inline. */
  actions: string[];
  /** The people who acted through the relay and how their taps ended. */
  actors: Array<{
    at: string;
    platform: string;
    user_id: string;
    name: string | null;
    kind: string;
  }>;
  decision: {
    result: unknown;
    submitted_by: unknown;
    /** Present with a submitted_by: what it is (protocol/claims.ts), so no reader takes it for identity. */
    submitted_by_is?: string;
    responded_by: unknown;
    /** The votes counted under the approval policy (identity, account, action, time). */
    votes: unknown[];
  };
  /** The approval policy in force (null: the first valid tap decides). */
  policy: null | {
    name: string;
    version: string;
    required: number;
    /**
     * Whether the counted votes carry the decision (enough approvals, or an eligible person's
     * veto); false for one made where the relay counted nothing (a service's own page); null
     * without a decision.
     */
    met?: boolean | null;
  };
  /**
   * A held MCP tool call (the gateway's tool gate): what was asked about, and the SHA-256 (hex) of
   * the RFC 8785 canonical JSON of the arguments the gate sends for this decision, so the approver
   * named in `decision` is bound to exactly those arguments (null: not approved, nothing sent).
   */
  tool_call?: {
    upstream: string;
    tool: string;
    client: string | null;
    arguments_sha256: string | null;
  };
  history: {
    /** How many history rows (from the first) the chain covers. */
    count: number;
    /** The chain over those rows: h0 = sha256("hitl-relay history"), hN = sha256(hN-1 ‖ jcs(row N)). */
    chain_sha256: string;
    entries: ReceiptHistoryEntry[];
  };
}

/** A receipt: the body, the public key that signed it, and the signature. */
export interface Receipt {
  receipt: ReceiptBody;
  signature: {
    alg: 'Ed25519';
    /** SHA-256 fingerprint (base64url, 16 bytes) of the raw public key. */
    key_id: string;
    /** The raw 32-byte public key, base64url (compare key_id with the relay's published key). */
    public_key: string;
    /** Signature over jcs(receipt), base64url. */
    value: string;
  };
}

/** RFC 8785 canonical JSON. */
export function jcs(value: unknown): string {
  const s = canonicalize(value);
  if (s === undefined) throw new Error('value has no JSON form');
  return s;
}

/** SHA-256 of the canonical JSON of `value`, hex. */
export function sha256Of(value: unknown): string {
  return createHash('sha256').update(jcs(value)).digest('hex');
}

/** The hash chain over history rows (see ReceiptBody.history). */
export function historyChain(entries: readonly unknown[]): string {
  let h = createHash('sha256').update('hitl-relay history').digest();
  for (const e of entries) h = createHash('sha256').update(h).update(jcs(e)).digest();
  return h.toString('hex');
}

/** The raw 32-byte Ed25519 public key of a key object. */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
}

/**
 * The key id of a raw public key: the base64url of the first 16 bytes of its SHA-256, with a `k`
 * before it when that starts with '-' (1 key in 64), so a command line never reads it as an option.
 */
export function keyId(raw: Buffer): string {
  return canonicalKeyId(legacyKeyId(raw));
}

/** The key id as receipts signed before the `k` prefix carry it (it may start with '-'). */
export function legacyKeyId(raw: Buffer): string {
  return createHash('sha256').update(raw).digest().subarray(0, 16).toString('base64url');
}

/** A key id in its current form: an old id starting with '-' gets its `k`. */
export function canonicalKeyId(kid: string): string {
  return kid.startsWith('-') ? `k${kid}` : kid;
}

/** Whether two key ids name the same key (an old '-' id and its `k` form are the same). */
export function sameKeyId(a: string, b: string): boolean {
  return canonicalKeyId(a) === canonicalKeyId(b);
}

/** The public half of each signing key, derived once (an export per receipt cost ~0.04 ms). */
const publicParts = new WeakMap<KeyObject, { key_id: string; public_key: string }>();

function publicPartsOf(privateKey: KeyObject): { key_id: string; public_key: string } {
  let parts = publicParts.get(privateKey);
  if (!parts) {
    const raw = rawPublicKey(privateKey);
    parts = { key_id: keyId(raw), public_key: raw.toString('base64url') };
    publicParts.set(privateKey, parts);
  }
  return parts;
}

/** Signs a receipt body with an Ed25519 private key. */
export function signReceipt(body: ReceiptBody, privateKey: KeyObject): Receipt {
  return {
    receipt: body,
    signature: {
      alg: 'Ed25519',
      ...publicPartsOf(privateKey),
      value: sign(null, Buffer.from(jcs(body)), privateKey).toString('base64url'),
    },
  };
}

/** Why a receipt does not verify, or null when it does. */
export function receiptProblem(r: unknown, expectedKeyId?: string): string | null {
  const x = r as Partial<Receipt> | null;
  if (!x || typeof x !== 'object' || !x.receipt || !x.signature) return 'not a receipt';
  if (x.receipt.format !== RECEIPT_FORMAT) return `unknown format ${String(x.receipt.format)}`;
  const s = x.signature;
  if (s.alg !== 'Ed25519' || typeof s.public_key !== 'string' || typeof s.value !== 'string')
    return 'unsupported or missing signature';
  // Only canonical base64url: a changed padding bit must not leave the same bytes.
  const raw = Buffer.from(s.public_key, 'base64url');
  if (raw.toString('base64url') !== s.public_key || raw.length !== 32)
    return 'public key is not 32 bytes of base64url';
  const sig = Buffer.from(s.value, 'base64url');
  if (sig.toString('base64url') !== s.value || sig.length !== 64)
    return 'signature is not 64 bytes of base64url';
  // A receipt signed before the `k` prefix carries the old id: it still verifies.
  if (s.key_id !== keyId(raw) && s.key_id !== legacyKeyId(raw))
    return 'key_id does not match the public key';
  if (expectedKeyId && !sameKeyId(s.key_id, expectedKeyId))
    return `signed by key ${s.key_id}, expected ${expectedKeyId}`;
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: s.public_key },
    format: 'jwk',
  });
  let ok = false;
  try {
    ok = verify(null, Buffer.from(jcs(x.receipt)), key, sig);
  } catch {
    ok = false;
  }
  if (!ok) return 'signature does not match the receipt';
  const h = x.receipt.history;
  if (!h || !Array.isArray(h.entries) || h.entries.length !== h.count)
    return 'history entries do not match their count';
  if (historyChain(h.entries) !== h.chain_sha256) return 'history chain does not match its entries';
  return null;
}

/**
 * Why the stored history no longer matches what the receipt covered, or null when it does: the
 * first `count` stored rows must chain to the receipt's hash (later rows are not covered).
 */
export function historyProblem(r: Receipt, stored: readonly unknown[]): string | null {
  const { count, chain_sha256 } = r.receipt.history;
  if (stored.length < count)
    return `stored history has ${stored.length} rows, the receipt covers ${count}`;
  if (historyChain(stored.slice(0, count)) !== chain_sha256)
    return 'stored history differs from what the receipt covers';
  return null;
}
