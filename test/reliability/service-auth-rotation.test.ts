/**
 * Issue 14's leftover: a second POST of the same case with new `service_auth` (the agent rotated
 * its key, or the first one was refused) replaces the stored, sealed credentials of the open case;
 * its next polls carry the new ones. The history names the headers, never their values.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
let svc: SpecDouble;
beforeAll(async () => {
  svc = await startSpecDouble();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await svc?.close();
});

const OLD = 'Bearer old-agent-key-0001';
const NEW = 'Bearer new-agent-key-0002';

it('a second POST of the same case with new service_auth replaces the stored credentials', async () => {
  svc.requireAuth(OLD);
  try {
    const body = svc.create();
    const caseId = body.hitl.case_id as string;
    const first = await relay.send('web:rotate', body, {
      service_auth: { headers: { Authorization: OLD } },
    });
    expect(first.status).toBe(201);
    await relay.until(first.body.id, () => svc.seen('poll', caseId).length > 0);
    // The service rotates its key: the old one is refused, and the relay says it cannot see.
    svc.requireAuth(NEW);
    await relay.until(first.body.id, (v) => v.watch.state === 'refused');
    // The agent sends the case again with the new key.
    const again = await relay.send('web:rotate', body, {
      service_auth: { headers: { Authorization: NEW } },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const ok = await relay.until(first.body.id, (v) => v.watch.state === 'ok');
    expect(ok.status).toBe('pending');
    expect(svc.seen('poll', caseId).at(-1)!.headers.authorization).toBe(NEW);
    // Sent once more with the same key: nothing to replace.
    expect(
      (await relay.send('web:rotate', body, { service_auth: { headers: { Authorization: NEW } } }))
        .status,
    ).toBe(200);
    const view = await relay.get(first.body.id);
    const rows = view.history.filter((h: any) => h.kind === 'service_auth_replaced');
    expect(rows).toHaveLength(1);
    expect(rows[0].headers).toEqual(['authorization']); // names only, lower-cased at intake
    for (const text of [JSON.stringify(view), logLines.join('\n')]) {
      expect(text).not.toContain('old-agent-key');
      expect(text).not.toContain('new-agent-key');
    }
    // A final case keeps what it had: its secrets are gone with it.
    svc.complete(caseId, 'approve');
    await relay.until(first.body.id, (v) => v.status === 'completed');
    const late = await relay.send('web:rotate', body, {
      service_auth: { headers: { Authorization: 'Bearer later-key-0003' } },
    });
    expect(late.status).toBe(200);
    const after = await relay.get(first.body.id);
    expect(after.history.filter((h: any) => h.kind === 'service_auth_replaced')).toHaveLength(1);
  } finally {
    svc.requireAuth(null);
  }
});
