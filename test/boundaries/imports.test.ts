/** The house rules, enforced: src/ imports no platform SDK, and each platform's SDK stays in its folder. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SDKS: Record<string, RegExp> = {
  telegram: /^(grammy|@grammyjs\/)/,
  slack: /^@slack\//,
  discord: /^(discord\.js|@discordjs\/|discord-interactions)/,
  teams: /^(botbuilder|botframework-|@microsoft\/)/,
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  return found;
}

describe('import boundaries', () => {
  it('src/ imports no platform SDK; only the CLI (the composition root) reaches platforms/registry.ts', () => {
    const root = (f: string) =>
      f === join('src', 'cli.ts') || f.startsWith(`${join('src', 'cli')}/`);
    const offenders = files('src').flatMap((f) =>
      imports(f)
        .filter(
          (i) =>
            Object.values(SDKS).some((re) => re.test(i)) ||
            (i.includes('platforms/') && !(root(f) && i.endsWith('platforms/registry.ts'))),
        )
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('each platform imports only its own SDK', () => {
    const offenders: string[] = [];
    for (const [platform, own] of Object.entries(SDKS)) {
      for (const f of files(join('platforms', platform)))
        for (const i of imports(f))
          for (const [other, re] of Object.entries(SDKS))
            if (other !== platform && re.test(i)) offenders.push(`${f}: ${i}`);
      void own;
    }
    for (const f of files(join('platforms', 'web')))
      for (const i of imports(f))
        if (Object.values(SDKS).some((re) => re.test(i))) offenders.push(`${f}: ${i}`);
    expect(offenders).toEqual([]);
  });
});
