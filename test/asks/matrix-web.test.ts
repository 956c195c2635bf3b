/**
 * The matrix row for the web chat: each of the ten kinds end to end in a real browser (Debian's
 * Chromium via playwright-core). The message the chat serves carries the ask, the page draws the
 * kind's native HTML controls, the person fills them and presses the kind's button (the page posts
 * the typed answer as the chat does), a bad answer is shown beside the controls with nothing
 * recorded, and the typed answer comes back from /wait. Where the native controls cannot produce a
 * bad answer (buttons only, a ranking by arrows, read-only args disabled), the cell says so; the
 * JSON API refusals of every kind are in asks-web.test.ts.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import type { AskKind } from '../../src/asks/content.ts';
import { RelayClient } from '../../src/client/relay-client.ts';
import { tinyServer } from '../client/helpers.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { KINDS } from './fixtures.ts';

let relay: RelayHandle;
let browser: Browser;
let hook: Awaited<ReturnType<typeof tinyServer>>;
/** notify_url deliveries, as the agent's webhook received them. */
const notified: any[] = [];

beforeAll(async () => {
  hook = await tinyServer((_req, body, res) => {
    notified.push(JSON.parse(body.toString('utf8')));
    res.writeHead(200).end();
  });
  relay = await startRelay({ adapters: [createWebAdapter()] });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await hook?.close();
});

interface Cell {
  /** Native controls the kind draws (CSS selectors inside the ask form). */
  controls: string[];
  /** Fills the controls with a bad answer and submits it; null when the controls cannot. */
  bad: ((form: ReturnType<Page['locator']>) => Promise<void>) | null;
  /** The path the refusal names. */
  badPath?: string;
  good: (form: ReturnType<Page['locator']>) => Promise<void>;
}

const click = (form: ReturnType<Page['locator']>, text: string | RegExp) =>
  form.locator('button', { hasText: text }).first().click();

const CELLS: Record<AskKind, Cell> = {
  'approval.binary': {
    controls: ['button[data-choice="approve"]', 'button[data-choice="reject"]'],
    bad: null,
    good: (f) => f.locator('button[data-choice="approve"]').click(),
  },
  'approval.modify': {
    controls: ['input[type=number]', 'input[type=text]', 'select'],
    bad: async (f) => {
      await f.locator('select[name="v.reason"]').selectOption('');
      // A number input holds only numbers; an out-of-type value comes from the API (asks-web).
      await f.locator('input[name="v.amount"]').fill('');
      await f.locator('input[name="v.note"]').fill('x'.repeat(4001));
      await f.locator('button[data-choice="approve"]').click();
    },
    badPath: 'data.values.note',
    good: async (f) => {
      await f.locator('input[name="v.note"]').fill('');
      await f.locator('input[name="v.amount"]').fill('45');
      await f.locator('button[data-choice="approve"]').click();
    },
  },
  'decision.single': {
    controls: ['input[type=radio]'],
    bad: (f) => click(f, 'Submit'),
    badPath: 'data.selected',
    good: async (f) => {
      await f.locator('input[value="staging"]').check();
      await click(f, 'Submit');
    },
  },
  'decision.multi': {
    controls: ['input[type=checkbox]'],
    bad: async (f) => {
      for (const k of ['infra', 'backend', 'frontend'])
        await f.locator(`input[value="${k}"]`).check();
      await click(f, 'Submit');
    },
    badPath: 'data.selected',
    good: async (f) => {
      await f.locator('input[value="frontend"]').uncheck();
      await click(f, 'Submit');
    },
  },
  'decision.rank': {
    controls: ['ol li button[aria-label^="Move"]'],
    bad: null,
    good: async (f) => {
      for (let i = 0; i < 2; i++)
        await f
          .locator('li[data-key="push"] button[aria-label^="Move Push Notification up"]')
          .click();
      await click(f, 'Submit ranking');
    },
  },
  'context.freetext': {
    controls: ['textarea'],
    bad: (f) => click(f, 'Submit'),
    badPath: 'data.value',
    good: async (f) => {
      await f.locator('textarea').fill('A full refund.');
      await click(f, 'Submit');
    },
  },
  'context.form': {
    controls: [
      'input[type=text]',
      'input[type=number]',
      'input[type=checkbox]',
      'input[type=date]',
      'select',
    ],
    bad: async (f) => {
      await f.locator('select[name="f.team"]').selectOption('infra');
      await click(f, 'Submit');
    },
    badPath: 'data.values.ticket_id',
    good: async (f) => {
      await f.locator('input[name="f.ticket_id"]').fill('TKT-123');
      await f.locator('input[name="f.priority"]').fill('2');
      await f.locator('input[name="f.is_urgent"]').check();
      await f.locator('input[name="f.due"]').fill('2026-12-01');
      await click(f, 'Submit');
    },
  },
  'context.confirm': {
    controls: ['.statement', 'button'],
    bad: null,
    good: (f) => click(f, 'Confirm'),
  },
  'edit.content': {
    controls: ['textarea'],
    bad: async (f) => {
      await f.locator('textarea').fill('   ');
      await click(f, 'Submit text');
    },
    badPath: 'data.content',
    good: async (f) => {
      await f.locator('textarea').fill('Hi Jane,\n\nThank you!\n\nBest, Support');
      await click(f, 'Submit text');
    },
  },
  'edit.tool_args': {
    controls: ['input[name="a.table"][disabled]', 'input[type=number]', 'input[type=checkbox]'],
    bad: null,
    good: async (f) => {
      await f.locator('input[name="a.limit"]').fill('500');
      await click(f, 'Submit arguments');
    },
  },
};

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  expect(res.statusCode, text).toBeLessThan(300);
  return text ? JSON.parse(text) : null;
}

describe.each(Object.keys(CELLS) as AskKind[])('%s in the web chat', (kind) => {
  const cell = CELLS[kind];
  const fx = KINDS[kind];

  it('native controls, bad answer shown beside them with nothing recorded, typed answer', {
    timeout: 30_000,
  }, async () => {
    const room = `matrix-${kind.replace(/[^a-z]/g, '-')}`;
    // The agent asks with the TypeScript client (which waits for the answer) and a notify_url.
    let id = '';
    const outcome = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 }).ask(
      fx.content as any,
      {
        target: `web:${room}`,
        notifyUrl: `${hook.url}/hook`,
        timeoutMs: 30_000,
        onCreated: (created) => {
          id = created.id;
        },
      },
    );
    // The chat's message carries the ask.
    const m = await eventually(async () => {
      const messages = await call('GET', `/web/api/rooms/${room}/messages`);
      return id !== '' && messages.find((x: any) => x.case);
    });
    expect(m.ask).toMatchObject({ kind });

    const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
    try {
      await page.goto(`${relay.url}/chat?room=${room}`);
      const form = page.locator('.msg form.ask');
      await form.waitFor();
      expect(await form.getAttribute('data-kind')).toBe(kind);
      for (const selector of cell.controls)
        expect(await form.locator(selector).count(), `${kind}: ${selector}`).toBeGreaterThan(0);

      if (cell.bad) {
        await cell.bad(form);
        await form.locator('.errors', { hasText: cell.badPath! }).waitFor({ timeout: 10_000 });
        const now = await call('GET', `/v1/asks/${id}`);
        expect(now.status).toBe('pending');
        expect(now.case.history.some((h: any) => h.kind === 'submit')).toBe(false);
      }
      await cell.good(form);
      const done = await call('GET', `/v1/asks/${id}/wait?timeout=10`);
      expect(done).toMatchObject({ kind, status: 'completed', answer: fx.result });
      // The same typed answer reaches the client and the notify_url webhook.
      expect(await outcome).toMatchObject({ id, kind, status: 'completed', answer: fx.result });
      const sent = await eventually(async () => notified.find((n) => n.id === id && n.final));
      expect(sent).toMatchObject({ status: 'completed', result: { data: fx.result } });
      expect(done.case.submitted_by).toMatchObject({ platform: 'x-web' });
    } finally {
      await page.close();
    }
  });
});
