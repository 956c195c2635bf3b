/**
 * Draws the ask cards of docs/asks/ in the web chat (Debian's Chromium via playwright-core): each
 * kind's open card, and each kind's final card (plus a rejected approval) at desktop and phone
 * width, answered through the chat as a person would. Writes the PNGs and `screenshots.json`: per
 * image the text the card shows and a SHA-256 of what the browser drew it from (the card's HTML
 * with ids and URLs taken out, and the page's styles). A card that looks different has another
 * hash, so test/asks/card-screenshots.test.ts, which runs this script, fails when docs/asks/ holds
 * images of cards that are no longer drawn that way.
 *   npm run screenshots               (writes docs/asks/)
 *   npm run screenshots -- --out DIR  (writes DIR instead)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { createWebAdapter } from '../platforms/web/index.ts';
import { ALL_KINDS } from '../src/asks/content.ts';
import { readConfig } from '../src/config/config.ts';
import { createLogger } from '../src/log.ts';
import { createRelay } from '../src/relay.ts';
import { KINDS } from '../test/asks/fixtures.ts';

/** Widths of the final cards: a desktop browser and a phone. */
export const WIDTHS = { desktop: 1024, phone: 390 } as const;

/** One image: what it shows and the hash of what it was drawn from. */
export interface Shot {
  kind: string;
  /** open, or the outcome of the final card (approved, rejected, answered). */
  state: string;
  width: keyof typeof WIDTHS;
  /** The card's text as the browser lays it out (innerText). */
  text: string;
  sha256: string;
}

/** The scenes: every kind answered with its fixture's answer, and an approval rejected. */
export const FINAL_SCENES: Array<{
  name: string;
  kind: string;
  action: string;
  data: Record<string, unknown>;
}> = [
  ...ALL_KINDS.map((kind) => ({ name: kind, kind, ...KINDS[kind].answer })),
  {
    name: 'approval.binary.rejected',
    kind: 'approval.binary',
    action: 'reject',
    data: { decision: 'reject' },
  },
];

/** The person who answers in every scene (the card names them). */
const PERSON = { id: 'u-ann', name: 'Ann Example' };

async function json(url: string, method: 'GET' | 'POST', body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * The card's HTML with what differs between runs taken out (message and case ids, URLs with the
 * relay's port and signatures, the times it states), and the page's styles: a hash of it changes
 * when the card would look different, and only then.
 */
async function cardSource(page: Page): Promise<string> {
  return page
    .evaluate(() => {
      const card = document.querySelector('.msg')!.cloneNode(true) as HTMLElement;
      for (const e of [card, ...card.querySelectorAll('*')]) {
        for (const a of ['data-id', 'data-case']) e.removeAttribute(a);
        if (e.hasAttribute('href')) e.setAttribute('href', 'URL');
        if (e.id) e.id = 'ID';
        if (e.hasAttribute('for')) e.setAttribute('for', 'ID');
        if (e.hasAttribute('name')) e.setAttribute('name', 'NAME');
      }
      const style = [...document.querySelectorAll('style')].map((s) => s.textContent).join('\n');
      return `${style}\n${card.outerHTML}`;
    })
    .then((html) => html.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, 'TIME'));
}

/** Opens the room at `width` and saves its (only) card; returns its text and hash. */
async function shoot(
  page: Page,
  url: string,
  file: string,
  width: number,
): Promise<{ text: string; sha256: string }> {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(url);
  const card = page.locator('.msg').first();
  await card.waitFor();
  await card.screenshot({ path: file, animations: 'disabled' });
  const sha256 = createHash('sha256')
    .update(await cardSource(page))
    .digest('hex');
  // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out is what a person reads
  return { text: await card.innerText(), sha256 };
}

/** Waits until the room's card is final (the tap's settle runs after its answer). */
async function finalMessage(base: string, room: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const [m] = await json(`${base}/web/api/rooms/${room}/messages`, 'GET');
    if (m?.final) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the card in room ${room} never became final`);
}

/** Draws every scene into `outDir`; returns the shots (also written to outDir/screenshots.json). */
export async function drawAskCards(outDir: string): Promise<Record<string, Shot>> {
  mkdirSync(outDir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-shots-'));
  writeFileSync(join(dataDir, 'relay-config.json'), '{}');
  const relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      RELAY_CONFIG: join(dataDir, 'relay-config.json'),
      DEMO: '0',
    }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
  });
  await relay.start();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const shots: Record<string, Shot> = {};
  try {
    const page = await browser.newPage();
    // The same person in every scene: the page keeps its id and name in localStorage.
    await page.addInitScript((p) => {
      localStorage.setItem('hitl.uid', p.id);
      localStorage.setItem('hitl.uname', p.name);
    }, PERSON);
    const ask = (room: string, kind: string) =>
      json(`${relay.url}/v1/asks`, 'POST', {
        target: `web:${room}`,
        content: KINDS[kind as keyof typeof KINDS].content,
      });
    for (const kind of ALL_KINDS) {
      const room = `open-${kind.replace(/[^a-z]/g, '-')}`;
      await ask(room, kind);
      const file = `${kind}.png`;
      const shot = await shoot(page, `${relay.url}/chat?room=${room}`, join(outDir, file), 760);
      shots[file] = { kind, state: 'open', width: 'desktop', ...shot };
    }
    for (const scene of FINAL_SCENES) {
      const room = `final-${scene.name.replace(/[^a-z]/g, '-')}`;
      await ask(room, scene.kind);
      const [m] = await json(`${relay.url}/web/api/rooms/${room}/messages`, 'GET');
      await json(
        `${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/${scene.action}`,
        'POST',
        {
          user: PERSON,
          data: scene.data,
          confirmed: true,
        },
      );
      const final = await finalMessage(relay.url, room);
      for (const [width, px] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, number]>) {
        const file = `final/${scene.name}.${width}.png`;
        mkdirSync(join(outDir, 'final'), { recursive: true });
        const shot = await shoot(page, `${relay.url}/chat?room=${room}`, join(outDir, file), px);
        shots[file] = { kind: scene.kind, state: final.outcome?.kind ?? 'final', width, ...shot };
      }
    }
  } finally {
    await browser.close();
    await relay.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  writeFileSync(join(outDir, 'screenshots.json'), `${JSON.stringify(shots, null, 2)}\n`);
  return shots;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--out');
  const out = resolve(at > 0 ? process.argv[at + 1]! : 'docs/asks');
  const shots = await drawAskCards(out);
  console.log(`${Object.keys(shots).length} screenshots in ${out}`);
}
