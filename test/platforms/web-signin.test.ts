/** The web chat's sign-in (WEB_CHAT_TOKEN): the form, the session cookie, Bearer for scripts; nothing without one. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const TOKEN = 'web-chat-token-0123456789';
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter({ token: TOKEN, demo: false })] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

const signIn = (token: string, room = 'ops', next?: string) =>
  fetch(`${relay.url}/chat/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, room, ...(next !== undefined ? { next } : {}) }).toString(),
  });

it('answers nothing but the sign-in form without a session, and lets a signed-in person tap', async () => {
  const sent = await relay.send('web:ops', await demo.create('approval', true));
  const page = await fetch(`${relay.url}/chat?room=ops`);
  expect(page.status).toBe(401);
  const form = await page.text();
  expect(form).toContain('action="/chat/signin"');
  expect(form).not.toContain(TOKEN);
  const api = await fetch(`${relay.url}/web/api/rooms/ops/messages`);
  expect(api.status).toBe(401);
  expect((await api.json()).message).toContain('WEB_CHAT_TOKEN');
  expect(
    (await fetch(`${relay.url}/web/api/rooms/ops/messages/x/actions/approve`, { method: 'POST' }))
      .status,
  ).toBe(401);

  const wrong = await signIn('not-the-token-000000');
  expect(wrong.status).toBe(401);
  expect(await wrong.text()).toContain('not right');
  expect((await signIn(TOKEN.slice(0, -1))).status).toBe(401);

  const ok = await signIn(TOKEN);
  expect(ok.status).toBe(303);
  expect(ok.headers.get('location')).toBe('/chat?room=ops');
  const setCookie = ok.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Lax/);
  expect(setCookie).not.toContain(TOKEN);
  const cookie = setCookie.split(';')[0]!;
  const chat = await fetch(`${relay.url}/chat?room=ops`, { headers: { cookie } });
  expect(chat.status).toBe(200);
  expect(await chat.text()).not.toContain('class="demo"');
  // A forged cookie is no session.
  expect(
    (
      await fetch(`${relay.url}/web/api/rooms/ops/messages`, {
        headers: { cookie: 'hitl_web_session=forged' },
      })
    ).status,
  ).toBe(401);

  const messages = (await (
    await fetch(`${relay.url}/web/api/rooms/ops/messages`, { headers: { cookie } })
  ).json()) as any[];
  const card = messages.find((m) => m.case === sent.body.id);
  // Scripts use the token as Bearer.
  const tap = await fetch(`${relay.url}/web/api/rooms/ops/messages/${card.id}/actions/reject`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  });
  expect(await tap.json()).toMatchObject({ outcome: 'submitted' });
  expect((await fetch(`${relay.url}/favicon.ico`)).status).toBe(200);
});

it('answers an unchanged room with 304 after one read, and a changed one with its new messages', async () => {
  const headers = { authorization: `Bearer ${TOKEN}` };
  const list = (etag?: string) =>
    fetch(`${relay.url}/web/api/rooms/etag/messages`, {
      headers: etag ? { ...headers, 'if-none-match': etag } : headers,
    });
  const first = await list();
  const etag = first.headers.get('etag')!;
  expect(etag).toMatch(/^"[\w-]+"$/);
  expect(await first.json()).toEqual([]);
  expect((await list(etag)).status).toBe(304);
  const sent = await relay.send('web:etag', await demo.create('confirmation', true));
  const changed = await list(etag);
  expect(changed.status).toBe(200);
  const etag2 = changed.headers.get('etag')!;
  expect(etag2).not.toBe(etag);
  const [card] = (await changed.json()) as any[];
  expect(card.case).toBe(sent.body.id);
  expect((await list(etag2)).status).toBe(304);
  // A tap edits the card: the room changes again.
  await fetch(`${relay.url}/web/api/rooms/etag/messages/${card.id}/actions/cancel`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  });
  await relay.until(sent.body.id, (c) => c.final);
  await eventually(async () => {
    const after = await list(etag2);
    return after.status === 200 && ((await after.json()) as any[])[0].final === true;
  });
});

it('WEB-SIGNIN-NEXT signing in from /inbox lands back on /inbox; other return paths are refused', async () => {
  const page = await fetch(`${relay.url}/inbox?type=approval&room=ops`);
  expect(page.status).toBe(401);
  const form = await page.text();
  const next = /name="next" value="([^"]*)"/.exec(form)?.[1]?.replaceAll('&#38;', '&');
  expect(next).toBe('/inbox?type=approval&room=ops');
  const back = await signIn(TOKEN, 'ops', next);
  expect(back.status).toBe(303);
  expect(back.headers.get('location')).toBe('/inbox?type=approval&room=ops');
  expect(back.headers.get('set-cookie')).toMatch(/^hitl_web_session=/);
  // A wrong token keeps the return path in the form shown again.
  expect(await (await signIn('not-the-token-000000', 'ops', '/inbox')).text()).toContain(
    'name="next" value="/inbox"',
  );
  // Never an open redirect: anything but the web chat's own pages goes to the room's chat.
  for (const evil of [
    'https://evil.example/inbox',
    '//evil.example/inbox',
    '/\\evil.example/inbox',
    '\\evil.example',
    '/inbox\\@evil.example',
    'javascript:alert(1)',
    ' /inbox',
    '/inbox\n',
    '/inbox#x',
    '/v1/cases',
    '/inbox/../v1/cases',
    'inbox',
  ]) {
    const res = await signIn(TOKEN, 'ops', evil);
    expect(res.status, evil).toBe(303);
    expect(res.headers.get('location'), evil).toBe('/chat?room=ops');
  }
  // A page's own sign-in form carries no return path it was not given.
  expect(await (await fetch(`${relay.url}/chat?room=ops`)).text()).not.toContain('name="next"');
});
