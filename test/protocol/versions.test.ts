/**
 * HITL Protocol versions (v0.9 §2: "unknown versions MUST NOT be silently interpreted as a
 * supported version"). 0.5 to 0.9 are read as their specs say, each from a body that validates
 * against that version's schema; "1.0", "0.10", "0.4" and garbage are not interpreted: the submit
 * credentials are dropped at intake, every platform renderer (Slack, Discord, Telegram, Teams, web,
 * WhatsApp, Google Chat) shows a link-only card (Details, no
 * button) with a visible note, and the case view and the log carry the warning. End to end against
 * the demo service, nothing is submitted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMessage as renderDiscord } from '../../platforms/discord/render.ts';
import { renderCard as renderGoogleChat } from '../../platforms/googlechat/render.ts';
import { renderCard as renderSlack } from '../../platforms/slack/render.ts';
import { renderTeamsCard } from '../../platforms/teams/render.ts';
import { renderCard as renderTelegram } from '../../platforms/telegram/render.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { renderWebMessage } from '../../platforms/web/render.ts';
import { renderCard as renderWhatsApp } from '../../platforms/whatsapp/render.ts';
import { renderCase } from '../../src/cases/render-case.ts';
import { parseHitl } from '../../src/protocol/hitl.ts';
import { KNOWN_SPEC_VERSIONS } from '../../src/protocol/types.ts';
import { loadStrings } from '../../src/render/templates.ts';
import { sampleCase } from '../contract/store-contract.ts';
import { PROTOCOL_DIR } from '../helpers/corpus-location.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;
const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;

/** The hitl-object schema of one schema folder of the corpus (schemas/ is v0.8, schemas/v0.9/). */
function hitlSchema(folder: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = join(PROTOCOL_DIR, 'schemas', folder);
  let id = '';
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.schema.json'))) {
    const schema = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    ajv.addSchema(schema);
    if (f === 'hitl-object.schema.json') id = schema.$id;
  }
  return ajv.getSchema(id)!;
}

const token = 'agt_submitsubmitsubmitsubmitsubmit1234';
const hitlOf = (spec_version: string) => ({
  spec_version,
  case_id: 'review_abc',
  review_url: 'https://svc.example/review/abc?token=reviewtokenreviewtokenreviewtoken1',
  poll_url: 'https://svc.example/reviews/abc/status',
  submit_url: 'https://svc.example/reviews/abc/respond',
  submit_token: token,
  inline_actions: ['approve', 'reject'],
  type: 'approval',
  prompt: 'Deploy?',
  created_at: '2026-02-20T10:00:00Z',
  expires_at: '2026-02-21T10:00:00Z',
});
const NOT_INTERPRETED =
  /not a HITL Protocol version hitl-relay knows \(0\.5-0\.9\): not interpreted/;
const UNKNOWN = ['1.0', '0.10', '0.4', 'draft-7', 'v0.9 final', '0.9-rc.1'];

describe('known versions', () => {
  it('VERSION-1 0.9 is known beside 0.5-0.8', () => {
    expect(KNOWN_SPEC_VERSIONS).toEqual(['0.5', '0.6', '0.7', '0.8', '0.9']);
  });

  it.each([
    ['0.9', 'v0.9'],
    ['0.8', ''],
    ['0.7', ''],
    ['0.6', ''],
    ['0.5', ''],
  ])(
    'VERSION-2 %s: a body valid against its schema is read with its inline submit',
    {
      tags: ['corpus'],
    },
    (version, folder) => {
      const body = hitlOf(version);
      // The corpus publishes schemas for 0.8 and 0.9; 0.5-0.7 kept the 0.8 wire fields (the specs'
      // changelogs), so their bodies are checked by the 0.8 schema with only the version differing.
      const schemaBody = folder ? body : { ...body, spec_version: '0.8' };
      const validate = hitlSchema(folder);
      expect(validate(schemaBody), JSON.stringify(validate.errors)).toBe(true);
      const parsed = parseHitl(body);
      expect(parsed.warnings).toEqual([]);
      expect(parsed.hitl).toMatchObject({ submit_token: token, submit_url: body.submit_url });
    },
  );
});

describe('a version the relay does not know', () => {
  it.each(UNKNOWN)(
    'VERSION-3 "%s" is not interpreted: no submit credentials are kept',
    (version) => {
      const parsed = parseHitl(hitlOf(version));
      expect(parsed.warnings).toEqual([expect.stringMatching(NOT_INTERPRETED)]);
      expect(parsed.hitl.submit_token).toBeUndefined();
      expect(parsed.hitl.submit_url).toBeUndefined();
    },
  );

  const s = loadStrings('en');
  const details = 'https://relay.example/r/k/sig';
  /** The card of an unknown-version case, even if a stored token survived from an older relay. */
  function unknownCard(version: string) {
    const c = sampleCase({ status: 'pending' });
    c.doc = { ...c.doc, hitl: { ...c.doc.hitl, ...hitlOf(version) } };
    return renderCase(c, { submit_token: token, review_url: hitlOf(version).review_url }, s, {
      detailsUrl: details,
    });
  }
  const renderers: Array<[string, (card: ReturnType<typeof unknownCard>) => unknown]> = [
    ['slack', (card) => renderSlack(card)],
    ['discord', (card) => renderDiscord(card)],
    ['telegram', (card) => renderTelegram(card)],
    ['teams', (card) => renderTeamsCard(card)],
    ['web', (card) => renderWebMessage('m1', card, null)],
    ['whatsapp', (card) => renderWhatsApp(card, 'Choose')],
    ['googlechat', (card) => renderGoogleChat(card)],
  ];

  it.each(renderers)(
    'VERSION-4 %s: "1.0" and garbage get a link-only card with a visible note',
    (_, render) => {
      for (const version of ['1.0', 'draft-7']) {
        const card = unknownCard(version);
        expect(card.actions).toEqual([]);
        expect(card.link).toEqual({ label: 'Details', url: details });
        const out = JSON.stringify(render(card));
        expect(out).not.toContain(`hitl:${card.key}:`);
        expect(out).toContain(details);
        expect(out).toContain('which hitl-relay does not know');
        expect(out).toContain(version);
      }
    },
  );
});

describe('an unknown version end to end', () => {
  let demo: DemoHandle;
  let relay: RelayHandle;
  beforeAll(async () => {
    demo = await startDemo();
    relay = await startRelay({ adapters: [createWebAdapter()], allow: {} });
  });
  afterAll(async () => {
    await relay?.stop();
    await demo?.stop();
  });

  it('VERSION-5 a "1.0" case: warning in the case view and the log, Details only, nothing submitted', async () => {
    const response = await demo.create('approval', true);
    response.hitl.spec_version = '1.0';
    const sent = await relay.send('web:versions', response);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.warnings).toEqual([expect.stringMatching(NOT_INTERPRETED)]);
    expect(logLines.some((l) => NOT_INTERPRETED.test(l) && l.includes(sent.body.id))).toBe(true);
    const msg = await eventually(async () => {
      const res = await request(`${relay.url}/web/api/rooms/versions/messages`);
      return ((await res.body.json()) as any[]).find((m) => m.case === sent.body.id);
    });
    expect(msg.actions ?? []).toEqual([]);
    expect(msg.text).toContain('which hitl-relay does not know');
    // A tap on an action the card never offered is refused; the service saw no submit.
    const tap = await request(
      `${relay.url}/web/api/rooms/versions/messages/${msg.id}/actions/approve`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
      },
    );
    expect(((await tap.body.json()) as any).outcome).not.toBe('submitted');
    expect((await demo.submissions()).filter((x) => x.case_id === response.hitl.case_id)).toEqual(
      [],
    );
  });
});
