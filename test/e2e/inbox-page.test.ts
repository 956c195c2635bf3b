/**
 * Issue 35, the web inbox in a real browser (Debian's Chromium via playwright-core), at desktop and
 * phone width: a person's cases from two rooms in one list, a new case appears without a reload
 * (the long poll), and an Approve pressed in the inbox edits the card in its room.
 */
import { mkdirSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let browser: Browser;
const ARTEFACTS = 'test-results/inbox';

beforeAll(async () => {
  service = await startFastService();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    allow: { 'web:ib-ops': ['ann'], 'web:ib-dev': ['ann'], 'web:ib-other': ['bob'] },
  });
  for (const t of ['web:ib-ops', 'web:ib-other', 'web:ib-dev'])
    expect((await relay.send(t, service.create(`ib-${t.slice(7)}`))).status).toBe(201);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  mkdirSync(ARTEFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await service?.stop();
});

for (const [name, viewport] of [
  ['desktop', { width: 1200, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  it(`INBOX-BROWSER-1 ${name}: both rooms listed, a new case arrives live, Approve edits the card`, async () => {
    const page = await browser.newPage({ viewport });
    await page.addInitScript(() => localStorage.setItem('hitl.uid', 'ann'));
    await page.goto(`${relay.url}/inbox`);
    const rows = page.locator('.row');
    await rows.nth(1).waitFor();
    expect(await rows.evaluateAll((r) => r.map((e) => (e as HTMLElement).dataset.room))).toEqual([
      'ib-dev',
      'ib-ops',
    ]);
    const sent = await relay.send('web:ib-ops', service.create(`ib-live-${name}`));
    await page.locator('.row .prompt', { hasText: `ib-live-${name}` }).waitFor();
    await page.screenshot({ path: `${ARTEFACTS}/${name}.png`, fullPage: true });
    const row = page.locator('.row', { hasText: `ib-live-${name}` });
    await row.locator('button[data-action="approve"]').click();
    await relay.until(sent.body.id, (c) => c.final);
    await row.waitFor({ state: 'detached' });
    const room = (await (
      await request(`${relay.url}/web/api/rooms/ib-ops/messages`)
    ).body.json()) as any[];
    expect(room.find((m) => m.case === sent.body.id)).toMatchObject({ final: true });
    await page.close();
  });
}

it('INBOX-BROWSER-2 bulk: select two rows, the confirm step names both, only Confirm submits them', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.addInitScript(() => localStorage.setItem('hitl.uid', 'ann'));
  await page.goto(`${relay.url}/inbox`);
  const rows = page.locator('.row');
  await rows.nth(1).waitFor();
  expect(await rows.count()).toBe(2);
  for (const room of ['ib-dev', 'ib-ops'])
    await page.locator(`.row[data-room="${room}"] input.pick`).check();
  await page.locator('#bulk button[data-bulk="approve"]').click();
  const confirm = page.locator('#confirm');
  await confirm.locator('#bulk-confirm').waitFor();
  const before = service.submits;
  expect(await confirm.textContent()).toContain('2 cases');
  for (const name of ['ib-ops', 'ib-dev'])
    expect(await confirm.textContent()).toContain(`Deploy build ib-${name.slice(3)}`);
  await page.screenshot({ path: `${ARTEFACTS}/bulk-confirm.png`, fullPage: true });
  expect(service.submits).toBe(before); // the preview sent nothing
  await confirm.locator('#bulk-confirm').click();
  await confirm.locator('li.result-confirmed').nth(1).waitFor();
  expect(service.submits).toBe(before + 2);
  await page.locator('#empty').waitFor({ state: 'visible' });
  await page.close();
});
