/** The review page in a real browser (Chromium via playwright-core): CSP, progress script, forms. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCase, type DemoServer, poll, startDemoServer } from '../demo/helpers.ts';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

// No skipping: CI installs Debian's chromium (.ci/run); without it this suite fails and says why.
describe('review page in Chromium', () => {
  if (!CHROMIUM)
    throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  let server: DemoServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startDemoServer();
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('reports progress while typing and submits the input form', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const page = await browser.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto(hitl.review_url);
    expect((await poll(hitl.poll_url)).json!.status).toBe('opened');
    await page.fill('#f_full_name', 'Kim Lee');
    await expect
      .poll(async () => (await poll(hitl.poll_url)).json!, { timeout: 10_000 })
      .toMatchObject({ status: 'in_progress', progress: { completed_fields: 1, total_fields: 5 } });
    await page.fill('#f_salary_expectation', '101000');
    expect(await page.getAttribute('#f_salary_expectation', 'type')).toBe('password');
    await page.selectOption('#f_work_authorization', 'needs_sponsorship');
    await page.check('#f_willing_to_relocate');
    await page.click('button[value="submit"]');
    await page.locator('h1', { hasText: 'Thank you' }).waitFor({ timeout: 10_000 });
    const done = (await poll(hitl.poll_url)).json!;
    expect(done.status).toBe('completed');
    expect(done.result.data).toEqual({
      full_name: 'Kim Lee',
      salary_expectation: 101000,
      work_authorization: 'needs_sponsorship',
      willing_to_relocate: true,
    });
    expect(cspErrors).toEqual([]);
    await page.close();
  });

  it('requests changes on an approval and follows the link to the next round', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const page = await browser.newPage();
    await page.goto(hitl.review_url);
    await page.fill('#feedback', 'Canary first');
    await page.click('button[value="edit"]');
    await page.click('text=Open the next round');
    await page.getByText('Feedback from the previous round').waitFor({ timeout: 10_000 });
    const first = (await poll(hitl.poll_url)).json!;
    expect(first.result.action).toBe('edit');
    expect(page.url()).toContain(`/review/${first.next_case_id}?token=`);
    await page.close();
  });
});
