/**
 * /openapi.json against the real app: every route of a relay with every platform on is documented,
 * every documented route exists, the examples validate against their schemas, and real answers of a
 * running relay validate too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  everyPlatformEnv,
  loadAdapters,
  PLATFORMS,
  platformRouteDocs,
} from '../../platforms/registry.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { hitlObjectSchema } from '../../src/protocol/hitl.ts';
import { createRelay } from '../../src/relay.ts';
import { intakeSchema } from '../../src/server/intake-schema.ts';
import { openApiDocument } from '../../src/server/openapi.ts';
import { toOpenApiPath } from '../../src/server/openapi-parts.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import { startDemo, startRelay } from '../helpers/relay-env.ts';

// ajv and ajv-formats are CommonJS with `exports.default`; require() gives their real shapes.
const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).default;
const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A relay with every platform configured for inbound HTTP (nothing is started or contacted). */
async function everyPlatform(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-openapi-'));
  dirs.push(dataDir);
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    ...(await everyPlatformEnv()),
    ...extra,
  };
  const config = readConfig(env);
  const adapters = await loadAdapters(env, config);
  expect(adapters.map((a) => a.platform)).toEqual(PLATFORMS.map((p) => p.name));
  const routeDocs = await platformRouteDocs();
  const relay = createRelay({
    config,
    adapters,
    routeDocs,
    log: createLogger({ level: 'silent' }),
  });
  return relay;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Ajv over the document's schemas (components.schemas as $defs, so strict mode stays on). */
function validatorFor(doc: any) {
  // strictRequired is off: IntakeRequest's oneOf names `response` / `hitl` declared beside it.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv);
  const defs = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', 'doc#/$defs/'),
  );
  ajv.addSchema({ $id: 'doc', $defs: defs });
  return (schema: any, value: unknown) => {
    const s = JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', 'doc#/$defs/'));
    const validate = ajv.compile(s);
    return validate(value) ? [] : (validate.errors ?? []);
  };
}

describe('/openapi.json', () => {
  it('documents intake bodies with the schemas that validate them: the document and the relay agree, body by body', async () => {
    const doc = openApiDocument({ config: readConfig({}), adapters: [] }) as any;
    const check = validatorFor(doc);
    const hitl = {
      spec_version: '0.8',
      case_id: 'rev_1',
      review_url: 'https://svc.example/r/rev_1?token=t',
      poll_url: 'https://svc.example/api/rev_1/status',
      type: 'approval',
      prompt: 'Deploy?',
      created_at: '2026-11-30T10:00:00Z',
      expires_at: '2026-12-01T10:00:00Z',
    };
    const bodies: Array<[string, unknown]> = [
      ['a bare hitl object', { target: 'web:lobby', hitl }],
      ['a 202 body', { target: 'web:lobby', response: { status: 'human_input_required', hitl } }],
      ['an unknown field', { target: 'web:lobby', hitl, colour: 'red' }],
      ['a short target', { target: 'w', hitl }],
      ['a bad notify_on', { target: 'web:lobby', hitl, notify_on: 'sometimes' }],
      ['a long label', { target: 'web:lobby', hitl, labels: { k: 'v'.repeat(257) } }],
      [
        'nine service headers',
        {
          target: 'web:lobby',
          hitl,
          service_auth: {
            headers: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x-h${i}`, 'v'])),
          },
        },
      ],
      [
        'a header with a newline',
        { target: 'web:lobby', hitl, service_auth: { headers: { 'x-h': 'a\nb' } } },
      ],
      ['an extra hitl field (kept)', { target: 'web:lobby', hitl: { ...hitl, x_vendor: 1 } }],
      ['a hitl without poll_url', { target: 'web:lobby', hitl: { ...hitl, poll_url: undefined } }],
      ['a hitl with a numeric prompt', { target: 'web:lobby', hitl: { ...hitl, prompt: 7 } }],
    ];
    for (const [what, body] of bodies) {
      const parsed = JSON.parse(JSON.stringify(body));
      const relaySays =
        intakeSchema.safeParse(parsed).success &&
        hitlObjectSchema.safeParse(parsed.hitl ?? parsed.response.hitl).success;
      const docSays = check(doc.components.schemas.IntakeRequest, parsed).length === 0;
      expect(docSays, what).toBe(relaySays);
    }
  });

  it('documents every route of the app, and only routes that exist', async () => {
    const relay = await everyPlatform();
    try {
      const res = await relay.app.request('/openapi.json');
      expect(res.status).toBe(200);
      const doc: any = await res.json();
      expect(doc.openapi).toBe('3.1.0');
      const routes = new Set(
        relay.app.routes
          .filter((r) => r.method !== 'ALL')
          .map((r) => `${r.method} ${toOpenApiPath(r.path)}`),
      );
      const documented = new Set(
        Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
          ([path, item]) =>
            Object.keys(item)
              .filter((m) => METHODS.includes(m))
              .map((m) => `${m.toUpperCase()} ${path}`),
        ),
      );
      expect([...routes].filter((r) => !documented.has(r)).sort()).toEqual([]);
      expect([...documented].filter((r) => !routes.has(r)).sort()).toEqual([]);
      expect(routes.size).toBeGreaterThan(15);
      // Every path parameter of a documented path is declared.
      for (const [path, item] of Object.entries(doc.paths as Record<string, any>))
        for (const m of METHODS.filter((x) => item[x])) {
          const declared = (item[m].parameters ?? [])
            .filter((p: any) => p.in === 'path')
            .map((p: any) => p.name);
          const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]);
          expect(declared.sort(), `${m} ${path}`).toEqual(inPath.sort());
        }
      const ids = Object.values(doc.paths as Record<string, any>).flatMap((item) =>
        METHODS.map((m) => item[m]?.operationId).filter(Boolean),
      );
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await relay.services.store.close();
    }
  });

  it('lists every status code a route answers (probed: no key, bad JSON, wrong type, too large)', async () => {
    const key = 'openapi-probe-key-0123456789';
    const relay = await everyPlatform({
      RELAY_API_KEY: key,
      HOST: '127.0.0.1',
      WEB_CHAT_TOKEN: 'openapi-web-chat-token-0123',
    });
    try {
      const doc: any = await (await relay.app.request('/openapi.json')).json();
      const auth = { authorization: `Bearer ${key}` };
      const big = `{"pad":"${'a'.repeat(1024 * 1024 + 10)}"}`;
      const missing: string[] = [];
      let probes = 0;
      for (const r of relay.app.routes.filter((x) => x.method !== 'ALL')) {
        const path = r.path.replace(/:room/g, 'lobby').replace(/:(\w+)/g, 'x');
        const variants: Array<{ query?: string; init: RequestInit }> =
          r.method === 'GET'
            ? [
                { init: {} },
                { init: { headers: auth } },
                { query: '?timeout=abc', init: { headers: auth } },
              ]
            : [
                { init: { method: 'POST' } },
                ...[
                  ['application/json', '{'],
                  ['application/json', 'null'],
                  ['application/json', '{}'],
                  ['text/plain', 'x'],
                  ['application/json', big],
                ].map(([type, body]) => ({
                  init: {
                    method: 'POST',
                    headers: {
                      ...auth,
                      'content-type': type!,
                      'content-length': String(Buffer.byteLength(body!)),
                    },
                    body,
                  },
                })),
              ];
        const item = doc.paths[toOpenApiPath(r.path)]?.[r.method.toLowerCase()];
        for (const v of variants) {
          const res = await relay.app.request(`${path}${v.query ?? ''}`, v.init);
          await res.arrayBuffer();
          probes++;
          // Every refusal of a webhook or API call is JSON (the sign-in form is a page).
          if (res.status >= 400 && r.method === 'POST' && r.path !== '/chat/signin')
            if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
              missing.push(`${r.method} ${r.path} -> ${res.status} is not JSON`);
          if (!item?.responses?.[String(res.status)])
            missing.push(`${r.method} ${r.path} -> ${res.status}`);
        }
      }
      expect(probes).toBeGreaterThan(60);
      expect([...new Set(missing)].sort()).toEqual([]);
    } finally {
      await relay.services.store.close();
    }
  });

  it('has examples that validate against their schemas', async () => {
    const relay = await everyPlatform();
    try {
      const doc: any = await (await relay.app.request('/openapi.json')).json();
      const check = validatorFor(doc);
      let n = 0;
      const visit = (node: any, where: string) => {
        if (!node || typeof node !== 'object') return;
        if (node.schema && node.examples)
          for (const [name, ex] of Object.entries(node.examples as Record<string, any>)) {
            n++;
            expect(check(node.schema, ex.value), `${where} example ${name}`).toEqual([]);
          }
        for (const [k, v] of Object.entries(node)) visit(v, `${where}/${k}`);
      };
      visit(doc.paths, 'paths');
      visit(doc.webhooks, 'webhooks');
      expect(n).toBeGreaterThanOrEqual(8);
      // A wrong example is caught: the check is not vacuous.
      const bad = { ...doc.components.schemas, x: 1 };
      expect(check({ $ref: '#/components/schemas/CaseView' }, bad).length).toBeGreaterThan(0);
    } finally {
      await relay.services.store.close();
    }
  });

  it('describes what a running relay really answers', async () => {
    const demo = await startDemo();
    const relay = await startRelay({ adapters: [createWebAdapter()] });
    try {
      const doc: any = await (await request(`${relay.url}/openapi.json`)).body.json();
      const check = validatorFor(doc);
      const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
      const response = await demo.create('approval', true);
      const intake = { target: 'web:openapi', response, labels: { run: '1' } };
      expect(check(schema('IntakeRequest'), intake)).toEqual([]);
      const sent = await relay.send('web:openapi', response, { labels: { run: '1' } });
      expect(check(schema('CaseView'), sent.body)).toEqual([]);
      const reply = await tapWhenPosted(relay.url, 'openapi', 'approve');
      expect(check(schema('TapReply'), reply)).toEqual([]);
      const done = await relay.until(sent.body.id, (c) => c.final);
      expect(check(schema('CaseView'), done)).toEqual([]);
      const list = await (await request(`${relay.url}/v1/cases`)).body.json();
      expect(check(schema('CaseList'), list)).toEqual([]);
      const refused = await relay.send('web:openapi', { ...response, status: 'done' });
      expect(refused.status).toBe(400);
      expect(check(schema('Error'), refused.body)).toEqual([]);
    } finally {
      await relay.stop();
      await demo.stop();
    }
  });
});
