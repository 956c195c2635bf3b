/**
 * The relay as a HITL service of its own: the HITL service (store, tokens, poll with ETag, SSE,
 * respond, review pages) configured with the asks profile, mounted at /asks. Each case carries its
 * ask content in `context.ask`, so any HITL-aware agent (another relay too) can render it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { Dispatcher } from 'undici';
import { checkAnswer } from '../asks/answer.ts';
import { askContentOf } from '../asks/content.ts';
import { withoutSensitive } from '../asks/sensitive.ts';
import { toolCallAnswerIssues, toolCallOf } from '../asks/tool-call.ts';
import type { Health } from '../health.ts';
import {
  type CallbackOutcome,
  createHitlService,
  type HitlService,
  type ServiceProfile,
  type ServiceStore,
} from '../hitl-service/index.ts';
import { sealedAnswers } from '../hitl-service/sealed-store.ts';
import { deferredStore, SqliteServiceStore } from '../hitl-service/service-store.ts';
import { openPostgresServiceStore } from '../hitl-service/service-store-postgres.ts';
import type { ReviewCase } from '../hitl-service/types.ts';
import type { Logger } from '../log.ts';
import { createTextSealer } from '../store/sealer.ts';
import { askFormAnswer, askReviewHtml } from './page.ts';

/** Where the asks service is mounted on the relay. */
export const ASKS_MOUNT_PATH = '/asks';

const broken = [{ path: 'context.ask', message: 'the case carries no valid ask content' }];

/** The profile: answers checked per kind, the review page's native controls per kind. */
export const askProfile: ServiceProfile = {
  // The relay's own asks speak the newest version (issue 31): bodies valid against schemas/v0.9.
  specVersion: '0.9',
  checkAnswer(kase: ReviewCase, action, data) {
    const content = askContentOf(kase.context);
    if (!content) return { ok: false, details: broken };
    const r = checkAnswer(content, action, data);
    if (!r.ok) return { ok: false, details: r.issues };
    // A held tool call (the MCP gateway's gate): read-only arguments stay, edits fit the tool.
    const call = toolCallOf(kase.context);
    const issues = call ? toolCallAnswerIssues(call, r.data) : [];
    return issues.length ? { ok: false, details: issues } : { ok: true, data: r.data };
  },
  formAnswer(kase, params) {
    const content = askContentOf(kase.context);
    const answer = content ? askFormAnswer(content, params) : { action: '', data: {} };
    const raw = params.responded_by_name;
    const name = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    // The page has no sign-in: the name is what the person typed, else who they are by the link.
    return { ...answer, responded_by: { name: name ? name.slice(0, 128) : 'Review page' } };
  },
  publicAnswer(kase, data) {
    const content = askContentOf(kase.context);
    return content ? withoutSensitive(content, data) : data;
  },
  // The answers are the ask's secrets: only the asking agent and the relay read them.
  privateReads: true,
  reviewHtml(kase, editable) {
    const content = askContentOf(kase.context);
    return content ? askReviewHtml(content, editable) : '';
  },
};

/**
 * Creates the asks service and routes /asks/* to it: on PostgreSQL (`databaseUrl`, shared by every
 * replica) or in SQLite in `dataDir` (one process); either way kept across restarts.
 */
export function mountAsks(
  app: Hono,
  o: {
    dataDir: string;
    log: Logger;
    databaseUrl?: string;
    health?: Health;
    retentionMs?: number;
    /** RELAY_SECRET_KEY: answers are sealed at rest under it (plain without one). */
    secretKey?: string;
    /** hitl_callback_url deliveries: signing secret, connections, and how each ended. */
    callbacks?: {
      secret?: string | undefined;
      dispatcher: Dispatcher;
      onOutcome: (outcome: CallbackOutcome) => void;
    };
  },
): HitlService {
  const log = o.log.child({ component: 'asks' });
  const store = o.databaseUrl
    ? postgresStore(o.databaseUrl, log, o.health)
    : sqliteStore(o.dataDir, o.health);
  const service = createHitlService({
    store: o.secretKey
      ? sealedAnswers(store, createTextSealer(o.secretKey, 'ask-answers v1'))
      : store,
    mountPath: ASKS_MOUNT_PATH,
    log,
    profile: askProfile,
    // Final asks and respond requests go after RETENTION_DAYS, like the relay's own cases.
    ...(o.retentionMs && { retentionMs: o.retentionMs }),
    ...(o.callbacks && {
      ...(o.callbacks.secret && { callbackSecret: o.callbacks.secret }),
      callbackDispatcher: o.callbacks.dispatcher,
      onCallback: o.callbacks.onOutcome,
    }),
  });
  app.route(ASKS_MOUNT_PATH, service.app);
  if (o.databaseUrl && o.health) {
    // Up once its tables are there and other replicas' changes are heard.
    const { health } = o;
    health.set('asks', 'starting', 'opening the asks service tables in DATABASE_URL');
    void service.ready().then(() => health.set('asks', 'up'));
  }
  return service;
}

/** The SQLite store in `dataDir`; /readyz says when its file is deleted or replaced under us. */
function sqliteStore(dataDir: string, health?: Health): ServiceStore {
  mkdirSync(dataDir, { recursive: true });
  const store = new SqliteServiceStore(join(dataDir, 'asks.sqlite'));
  // SQLite would go on writing the asks to the lost inode, and they would be gone at a restart.
  health?.probe('asks', store.fileProblem);
  return store;
}

/** The PostgreSQL store, opened in the background; a failure to open is logged and shown on /readyz. */
function postgresStore(url: string, log: Logger, health?: Health): ServiceStore {
  const onError = (err: Error) =>
    log.warn({ part: 'asks', err: err.message }, 'asks service: database connection error');
  return deferredStore(async () => {
    try {
      return await openPostgresServiceStore(url, { onError });
    } catch (err) {
      const reason = `asks service cannot open DATABASE_URL: ${(err as Error).message}`;
      log.error({ part: 'asks' }, reason);
      health?.set('asks', 'down', reason);
      throw err;
    }
  });
}
