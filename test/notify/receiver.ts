/** A notify_url receiver for tests: down (503) for the first attempts of each delivery, then up. */
import type { ServerResponse } from 'node:http';
import { verifyNotifySignature } from '../../src/client/index.ts';
import { tinyServer } from '../client/helpers.ts';

/** One request the receiver got. */
export interface Received {
  delivery: string;
  event: string;
  attempt: number;
  signed: boolean;
  body: any;
  answered: number | 'held';
}

/** The receiver: the first `failFirst` attempts of every delivery get 503; `hold` leaves an attempt unanswered. */
export async function startReceiver(o: {
  secret: string;
  failFirst: number;
  hold?: (r: Received, nth: number) => boolean;
  /** While true, every attempt gets 503 (the receiver is down whatever the count). */
  down?: () => boolean;
}) {
  const got: Received[] = [];
  const held: ServerResponse[] = [];
  const server = await tinyServer((req, raw, res) => {
    const h = (k: string) => String(req.headers[k] ?? '');
    const r: Received = {
      delivery: h('x-hitl-relay-delivery'),
      event: h('x-hitl-relay-event'),
      attempt: Number(h('x-hitl-relay-attempt')),
      signed: verifyNotifySignature(raw, h('x-hitl-relay-signature'), o.secret).ok,
      body: JSON.parse(raw.toString('utf8')),
      answered: 0,
    };
    const nth = got.filter((x) => x.delivery === r.delivery).length + 1;
    got.push(r);
    if (o.hold?.(r, nth)) {
      r.answered = 'held';
      held.push(res);
      return;
    }
    r.answered = nth <= o.failFirst || o.down?.() ? 503 : 200;
    res.writeHead(r.answered, { 'content-type': 'text/plain' }).end(String(r.answered));
  });
  return {
    url: `${server.url}/hooks/hitl`,
    got,
    /** Successful (2xx) deliveries, de-duplicated by delivery id. */
    delivered(): Received[] {
      const seen = new Map<string, Received>();
      for (const r of got) if (r.answered === 200 && !seen.has(r.delivery)) seen.set(r.delivery, r);
      return [...seen.values()];
    },
    close: () => server.close(),
  };
}
