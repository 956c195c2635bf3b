/**
 * Answers sealed at rest in the relay's own store (issue 32 item 5): a Store around another that
 * seals what a person answered before it is written and opens it when read. Two places hold an
 * answer: a case's `doc.result.data`, and the body of a notify_url delivery (the case view at the
 * event, result included). The rest of a row (status, action, who, when) stays readable, so a copy
 * of the database shows that a case was answered and with which action, never the answer.
 *
 * Rows written before a key was set (or by an older version) are plain: they read as they are,
 * and a case is sealed by its next write. `sealStoredAnswers` seals the plain cases at start-up.
 * Either dialect: this wraps the Store interface, so SQLite and PostgreSQL rows are sealed alike.
 */
import type { TextSealer } from './sealer.ts';
import type { NotifyDelivery, Store } from './store.ts';
import type { StoredCase } from './types.ts';

/** How a sealed answer is kept in place of the plain one (the asks service's form, too). */
interface Sealed {
  $sealed: string;
}

const isSealed = (v: unknown): v is Sealed =>
  !!v && typeof v === 'object' && typeof (v as Sealed).$sealed === 'string';

/** A sealed delivery body starts with this; a plain one is JSON (it starts with `{`). */
const SEALED_BODY = 'sealed:';

/** The purpose the answers' key is derived for (createTextSealer). */
export const ANSWER_SEAL_PURPOSE = 'case-answers v1';

/** Seals and opens the answers of cases and deliveries with `sealer`. */
function answerSeals(sealer: TextSealer) {
  const sealCase = (c: StoredCase): StoredCase => {
    const r = c.doc.result;
    if (!r || r.data === undefined || isSealed(r.data)) return c;
    const data: Sealed = { $sealed: sealer.seal(JSON.stringify(r.data)) };
    return { ...c, doc: { ...c.doc, result: { ...r, data: data as never } } };
  };
  const openCase = (c: StoredCase): StoredCase => {
    const r = c.doc.result;
    if (!r || !isSealed(r.data)) return c;
    const data = JSON.parse(sealer.open(r.data.$sealed));
    return { ...c, doc: { ...c.doc, result: { ...r, data } } };
  };
  const sealDelivery = (d: NotifyDelivery): NotifyDelivery =>
    d.body.startsWith(SEALED_BODY) ? d : { ...d, body: SEALED_BODY + sealer.seal(d.body) };
  // The body is signed when it is sent: it opens to the very bytes frozen at the event.
  const openDelivery = (d: NotifyDelivery): NotifyDelivery =>
    d.body.startsWith(SEALED_BODY)
      ? { ...d, body: sealer.open(d.body.slice(SEALED_BODY.length)) }
      : d;
  return { sealCase, openCase, sealDelivery, openDelivery };
}

/** The store, with answers sealed by `sealer`. */
export function sealedAnswerStore(inner: Store, sealer: TextSealer): Store {
  const s = answerSeals(sealer);
  const maybe = (c: StoredCase | undefined) => c && s.openCase(c);
  return {
    ...inner,
    async createCase(c, intents) {
      const r = await inner.createCase(s.sealCase(c), intents);
      // The case written is the caller's own (opened); another intake's is read and opened.
      return { created: r.created, case: r.created ? c : s.openCase(r.case) };
    },
    getCase: async (id) => maybe(await inner.getCase(id)),
    getCaseByKey: async (key) => maybe(await inner.getCaseByKey(key)),
    findCase: async (origin, caseId) => maybe(await inner.findCase(origin, caseId)),
    listCases: async (q) => (await inner.listCases(q)).map(s.openCase),
    orphanCases: async (before, limit) => (await inner.orphanCases(before, limit)).map(s.openCase),
    leaseDue: async (...args) => (await inner.leaseDue(...args)).map(s.openCase),
    updateCase: (c, expected, outbox, step) =>
      inner.updateCase(s.sealCase(c), expected, outbox?.map(s.sealDelivery), step),
    enqueueDelivery: (d) => inner.enqueueDelivery(s.sealDelivery(d)),
    leaseDeliveries: async (...args) => (await inner.leaseDeliveries(...args)).map(s.openDelivery),
    listDeliveries: async (caseId) => (await inner.listDeliveries(caseId)).map(s.openDelivery),
  };
}

/**
 * Seals the answers that cases written before RELAY_SECRET_KEY still hold in plain text (a
 * start-up pass, `pageSize` cases a read): each is rewritten at its own version, so nothing else
 * about it changes and a concurrent change simply wins (it seals the answer itself). Returns how
 * many were sealed. Old notify delivery bodies stay as they are until retention deletes them.
 */
export async function sealStoredAnswers(
  sealed: Store,
  inner: Store,
  pageSize = 200,
): Promise<number> {
  let count = 0;
  for (let offset = 0; ; offset += pageSize) {
    const page = await inner.listCases({ limit: pageSize, offset });
    for (const c of page) {
      if (c.doc.result?.data === undefined || isSealed(c.doc.result.data)) continue;
      if (await sealed.updateCase(c, c.version)) count++;
    }
    if (page.length < pageSize) return count;
  }
}
