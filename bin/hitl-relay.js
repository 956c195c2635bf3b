#!/usr/bin/env node
// The installed command. A source checkout (src/cli.ts present) runs the TypeScript through tsx, so
// it never runs a stale build; an installed package runs the compiled dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/src/cli.js', import.meta.url).href);
}
