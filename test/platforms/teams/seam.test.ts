/** The Bot Framework SDK stays behind one module: replacing botbuilder later touches connector.ts. */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const DIR = new URL('../../../platforms/teams/', import.meta.url);
const SDK =
  /(?:from|import\()\s*['"](botbuilder|botframework-[^'"]*|@microsoft\/[^'"]*|@azure\/[^'"]*)['"]/;

it('imports the Bot Framework SDK in connector.ts only', () => {
  const importers = readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => SDK.test(readFileSync(new URL(f, DIR), 'utf8')));
  expect(importers).toEqual(['connector.ts']);
});
