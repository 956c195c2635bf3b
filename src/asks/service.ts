/**
 * The relay as a HITL service of its own: the demo engine (store, tokens, poll with ETag, SSE,
 * respond, review pages) configured with the asks profile, mounted at /asks. Each case carries its
 * ask content in `context.ask`, so any HITL-aware agent (another relay too) can render it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { createDemoService, type DemoService, type ServiceProfile } from '../demo/index.ts';
import type { DemoCase } from '../demo/types.ts';
import type { Logger } from '../log.ts';
import { checkAnswer } from './answer.ts';
import { askContentOf } from './content.ts';
import { askFormAnswer, askReviewHtml } from './page.ts';

/** Where the asks service is mounted on the relay. */
export const ASKS_MOUNT_PATH = '/asks';

const broken = [{ path: 'context.ask', message: 'the case carries no valid ask content' }];

/** The profile: answers checked per kind, the review page's native controls per kind. */
export const askProfile: ServiceProfile = {
  checkAnswer(kase: DemoCase, action, data) {
    const content = askContentOf(kase.context);
    if (!content) return { ok: false, details: broken };
    const r = checkAnswer(content, action, data);
    return r.ok ? { ok: true, data: r.data } : { ok: false, details: r.issues };
  },
  formAnswer(kase, params) {
    const content = askContentOf(kase.context);
    const answer = content ? askFormAnswer(content, params) : { action: '', data: {} };
    const raw = params.responded_by_name;
    const name = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    // The page has no sign-in: the name is what the person typed, else who they are by the link.
    return { ...answer, responded_by: { name: name ? name.slice(0, 128) : 'Review page' } };
  },
  reviewHtml(kase, editable) {
    const content = askContentOf(kase.context);
    return content ? askReviewHtml(content, editable) : '';
  },
};

/** Creates the asks service (SQLite in `dataDir`, kept across restarts) and routes /asks/* to it. */
export function mountAsks(app: Hono, o: { dataDir: string; log: Logger }): DemoService {
  mkdirSync(o.dataDir, { recursive: true });
  const service = createDemoService({
    dbPath: join(o.dataDir, 'asks.sqlite'),
    mountPath: ASKS_MOUNT_PATH,
    log: o.log.child({ component: 'asks' }),
    profile: askProfile,
  });
  app.route(ASKS_MOUNT_PATH, service.app);
  return service;
}
