/**
 * The ask cards in docs/asks/ are the cards the web chat draws today (issue 36). This runs
 * `npm run screenshots` (scripts/ask-screenshots.ts) into a temporary folder: Chromium draws every
 * kind's open card, and every kind's final card plus a rejected approval at desktop and phone
 * width, each answered through the chat. Then: every final card states the answer in the person's
 * words at both widths (FINAL_ANSWERS, as the renderer tests of the other platforms do), approved
 * and rejected differ in words and badge, every image is a PNG of the width drawn, and each image's
 * hash (of the HTML and styles it was drawn from) equals the one docs/asks/screenshots.json keeps
 * beside the committed image, so a card that changed without new screenshots fails here.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINAL_SCENES, type Shot, WIDTHS } from '../../scripts/ask-screenshots.ts';
import { ALL_KINDS, type AskKind } from '../../src/asks/content.ts';
import { FINAL_ANSWERS } from './final-answers.ts';
import { KINDS } from './fixtures.ts';

const run = promisify(execFile);
const DOCS = 'docs/asks';
const out = mkdtempSync(join(tmpdir(), 'hitl-screenshots-'));
let drawn: Record<string, Shot>;

beforeAll(async () => {
  await run('npm', ['run', '--silent', 'screenshots', '--', '--out', out], { timeout: 110_000 });
  drawn = JSON.parse(readFileSync(join(out, 'screenshots.json'), 'utf8'));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A PNG's width, from its IHDR chunk; throws for anything that is not a PNG. */
function pngWidth(file: string): number {
  const b = readFileSync(file);
  if (b.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a')
    throw new Error(`${file}: not a PNG`);
  return b.readUInt32BE(16);
}

const finalFile = (scene: string, width: string) => `final/${scene}.${width}.png`;

describe('npm run screenshots', () => {
  it('draws every open card and every final card at both widths, each a PNG of its width', () => {
    const expected = [
      ...ALL_KINDS.map((k) => `${k}.png`),
      ...FINAL_SCENES.flatMap((s) => Object.keys(WIDTHS).map((w) => finalFile(s.name, w))),
    ];
    expect(Object.keys(drawn).sort()).toEqual(expected.sort());
    for (const scene of FINAL_SCENES) {
      const desktop = pngWidth(join(out, finalFile(scene.name, 'desktop')));
      const phone = pngWidth(join(out, finalFile(scene.name, 'phone')));
      // The card fills the page's column: at most the viewport, and narrower on the phone.
      expect(desktop, scene.name).toBeLessThanOrEqual(WIDTHS.desktop);
      expect(phone, scene.name).toBeLessThanOrEqual(WIDTHS.phone);
      expect(phone, scene.name).toBeGreaterThan(WIDTHS.phone * 0.8);
    }
  });

  it('every open card shows its prompt and the Details link', () => {
    for (const kind of ALL_KINDS) {
      const text = drawn[`${kind}.png`]!.text;
      expect(text, kind).toContain(KINDS[kind].content.prompt as string);
      expect(text, kind).toContain('Details');
    }
  });

  it.each(ALL_KINDS)('%s: the final card states the answer at desktop and phone width', (kind) => {
    for (const width of Object.keys(WIDTHS)) {
      const shot = drawn[finalFile(kind, width)]!;
      // innerText follows the layout; a phone wraps lines, so compare with whitespace folded.
      const text = shot.text.replace(/\s+/g, ' ');
      for (const s of FINAL_ANSWERS[kind as AskKind].shows)
        expect(text, `${kind} ${width}`).toContain(s);
      for (const s of FINAL_ANSWERS[kind as AskKind].not ?? []) expect(text).not.toContain(s);
      expect(text, `${kind} ${width}`).toMatch(/ by Ann Example at /);
    }
  });

  it('approved and rejected are told apart in words and by the badge', () => {
    for (const width of Object.keys(WIDTHS)) {
      const approved = drawn[finalFile('approval.binary', width)]!;
      const rejected = drawn[finalFile('approval.binary.rejected', width)]!;
      expect([approved.state, rejected.state]).toEqual(['approved', 'rejected']);
      expect(approved.text).toMatch(/^✅ Approved/);
      expect(approved.text).toContain('APPROVED');
      expect(rejected.text).toMatch(/^❌ Rejected/);
      expect(rejected.text).toContain('REJECTED');
      expect(rejected.text).toContain('Answer: Cancel');
      expect(approved.sha256).not.toBe(rejected.sha256);
    }
  });
});

describe('docs/asks/', () => {
  it('holds every image, drawn from the cards as they are drawn today', () => {
    const kept: Record<string, Shot> = JSON.parse(
      readFileSync(join(DOCS, 'screenshots.json'), 'utf8'),
    );
    const stale = Object.keys(drawn).filter((f) => kept[f]?.sha256 !== drawn[f]!.sha256);
    expect(stale, 'stale screenshots in docs/asks/: run `npm run screenshots`').toEqual([]);
    expect(Object.keys(kept).sort()).toEqual(Object.keys(drawn).sort());
    expect(Object.keys(kept).filter((f) => !existsSync(join(DOCS, f)))).toEqual([]);
  });
});
