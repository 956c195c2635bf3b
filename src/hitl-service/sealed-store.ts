/**
 * Answers sealed at rest: a ServiceStore around another that seals what a person answered (the
 * `data` of a case's result, of the events that carry it, and the bodies of respond requests)
 * with a TextSealer (RELAY_SECRET_KEY) before they are written, and opens them when read. A copy
 * of the database alone shows that a case was answered and with which action, never the answer.
 */
import type { TextSealer } from '../store/sealer.ts';
import type { NewEvent, ServiceStore, StoredReview } from './service-store.ts';
import type { ReviewCase, StoredEvent, Submission } from './types.ts';

/** How a sealed value is kept in place of the plain one. */
interface Sealed {
  $sealed: string;
}

const isSealed = (v: unknown): v is Sealed =>
  !!v && typeof v === 'object' && typeof (v as Sealed).$sealed === 'string';

/** The store, with answers sealed by `sealer`. */
export function sealedAnswers(inner: ServiceStore, sealer: TextSealer): ServiceStore {
  const seal = (v: unknown): Sealed => ({ $sealed: sealer.seal(JSON.stringify(v)) });
  const open = (v: unknown): unknown => (isSealed(v) ? JSON.parse(sealer.open(v.$sealed)) : v);
  const sealResult = <T extends { result?: unknown }>(x: T): T => {
    const r = x.result as { action?: unknown; data?: unknown } | undefined;
    if (!r || typeof r !== 'object' || r.data === undefined || isSealed(r.data)) return x;
    return { ...x, result: { ...r, data: seal(r.data) } };
  };
  const openResult = <T extends { result?: unknown }>(x: T): T => {
    const r = x.result as { data?: unknown } | undefined;
    return r && typeof r === 'object' && isSealed(r.data)
      ? { ...x, result: { ...r, data: open(r.data) } }
      : x;
  };
  const openStored = (s: StoredReview | undefined) =>
    s && { ...s, kase: openResult(s.kase) as ReviewCase };
  const openEvent = (e: StoredEvent): StoredEvent => ({ ...e, data: openResult(e.data) });
  const store: ServiceStore = {
    insert: (kase, reviewHash, submitHash) =>
      inner.insert(sealResult(kase), reviewHash, submitHash),
    get: async (caseId) => openStored(await inner.get(caseId)),
    stateOf: (caseId) => inner.stateOf(caseId),
    async commit(kase, version, events) {
      const sealed: NewEvent[] = events.map((e) => ({ ...e, data: sealResult(e.data) }));
      const written = await inner.commit(sealResult(kase), version, sealed);
      return written ? written.map(openEvent) : null;
    },
    dueCases: (nowMs) => inner.dueCases(nowMs),
    nextDue: () => inner.nextDue(),
    lastSeq: (caseId) => inner.lastSeq(caseId),
    eventsAfter: async (caseId, seq) => (await inner.eventsAfter(caseId, seq)).map(openEvent),
    addSubmission: (s) => inner.addSubmission({ ...s, body: seal(s.body) }),
    submissions: async () =>
      (await inner.submissions()).map((s): Submission => ({ ...s, body: open(s.body) })),
    purgeClosed: (beforeMs, limit) => inner.purgeClosed(beforeMs, limit),
    purgeSubmissions: (beforeMs, limit) => inner.purgeSubmissions(beforeMs, limit),
    close: () => inner.close(),
  };
  if (inner.listen) store.listen = inner.listen.bind(inner);
  return store;
}
