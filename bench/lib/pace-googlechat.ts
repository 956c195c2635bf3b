/**
 * The Google Chat part of benchmark 4: a burst of 100 cases to one space, with the fake Google
 * Chat enforcing the Chat API's quotas (60 writes a minute per space, 3,000 message writes a minute
 * per project: 429 RESOURCE_EXHAUSTED beyond). Time runs 100x faster than Chat's (a minute ->
 * 600 ms, for fake and pace alike), so the run takes seconds; counts do not depend on the scale.
 */
import { readServiceAccountKey } from '../../platforms/googlechat/config.ts';
import { createGooglechatAdapter } from '../../platforms/googlechat/index.ts';
import { FakeGoogleChat, type StoredMessage } from '../../test/fakes/googlechat-api.ts';
import { type BenchArgs, wants } from './args.ts';
import type { FastService } from './hitl-service.ts';
import { startBenchRelay } from './relay.ts';
import { type JsonClient, sleep } from './run.ts';
import { type Figure, fmt } from './stats.ts';

const SCALE = 100;
const MINUTE_MS = 60_000 / SCALE;
const SPACE = 'spaces/AAAAbench';

/** The case key a card carries in its buttons (`hitl:<key>:<action>`). */
function keyOf(m: StoredMessage): string | null {
  const widgets = (m.body.cardsV2 ?? []).flatMap((c: any) =>
    c.card.sections.flatMap((s: any) => s.widgets),
  );
  const button = widgets.flatMap((w: any) => w.buttonList?.buttons ?? [])[0];
  const p: string | undefined = button?.onClick?.action?.parameters?.[0]?.value;
  return p?.startsWith('hitl:') ? p.slice(5, p.lastIndexOf(':')) : null;
}

/** The most writes within any one quota window. */
function busiestWindow(times: number[]): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] as number) - (times[i] as number) >= MINUTE_MS) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/** Runs the scenario; appends its figures. */
export async function runGooglechatPacing(
  args: BenchArgs,
  service: FastService,
  client: JsonClient,
  figures: Figure[],
): Promise<void> {
  if (!wants(args, 'googlechat')) return;
  const cases = 100;
  const fake = await FakeGoogleChat.start({
    spaceLimit: 60,
    projectLimit: 3000,
    windowMs: MINUTE_MS,
  });
  fake.addSpace(SPACE);
  const adapter = createGooglechatAdapter({
    key: readServiceAccountKey(fake.keyJson),
    audience: fake.projectNumber,
    apiUrl: fake.apiRoot,
    tokenUrl: fake.tokenUrl,
    certsUrl: fake.certsUrl,
    // The production pace, at the bench's time scale.
    pace: {
      spaceIntervalMs: 1000 / SCALE,
      spaceWindowMs: MINUTE_MS,
      projectWindowMs: MINUTE_MS,
    },
    backoffMs: 1000 / SCALE,
  });
  const r = await startBenchRelay({ adapters: [adapter] });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: cases }, async (_, i) => {
      const res = await client.post(`${r.url}/v1/cases`, {
        target: `googlechat:${SPACE}`,
        response: service.create(`pgc${i}x${Date.now()}`),
      });
      if (res.status !== 201) throw new Error(`intake answered ${res.status}`);
    }),
  );
  const cards = () => fake.messages.filter((m) => m.via === 'api' && keyOf(m) !== null);
  const deadline = Date.now() + 30_000;
  while (new Set(cards().map(keyOf)).size < cases && Date.now() < deadline) await sleep(50);
  // Then until writing has been quiet for a whole window (late duplicates would show here).
  for (let seen = -1; seen !== fake.messages.length && Date.now() < deadline; ) {
    seen = fake.messages.length;
    await sleep(MINUTE_MS);
  }
  const all = cards();
  const distinct = new Set(all.map(keyOf)).size;
  const busiest = busiestWindow(all.map((m) => m.at));
  const failed = r.warnings.filter((w) => /posting a card failed/.test(w)).length;
  console.log(
    `googlechat 1 space: ${distinct}/${cases} cases (${all.length - distinct} duplicates) in ${fmt((Date.now() - started) / 1000)} s; ` +
      `busiest window ${busiest} writes (quota 60 a minute at 1:${SCALE}); 429 answers: ${fake.quotaErrors} (${failed} posts failed)`,
  );
  figures.push(
    {
      bench: 'pace',
      figure: 'googlechat 1 space: cases delivered once / duplicates / lost',
      value: distinct,
      unit: `of ${cases} (${all.length - distinct} dup, ${cases - distinct} lost)`,
      baseline: null,
      goal: 'all, once',
      met: distinct === cases && all.length === distinct,
    },
    {
      bench: 'pace',
      figure: 'googlechat 1 space: writes in the busiest quota window / 429 answers',
      value: busiest,
      unit: `of 60 (${fake.quotaErrors} x 429)`,
      baseline: null,
      goal: '<= 60, 0 x 429',
      met: busiest <= 60 && fake.quotaErrors === 0 && failed === 0,
    },
  );
  await r.stop();
  await fake.close();
}
