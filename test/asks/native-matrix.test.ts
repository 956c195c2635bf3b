/**
 * The NATIVE matrix in docs/asks.md is what the platforms' renderers draw (issue 36): the table
 * scripts/native-matrix.ts reads from them equals the page's, every platform of the registry has
 * a column, every cell that is not native gives its reason, and a cell turns when the renderer
 * does (a kind drawn past a platform's limit falls back to Details).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLATFORMS as REGISTRY } from '../../platforms/registry.ts';
import {
  cell,
  isNative,
  matrixInDocs,
  nativeMatrix,
  PLATFORMS,
  REASONS,
} from '../../scripts/native-matrix.ts';
import { ALL_KINDS } from '../../src/asks/content.ts';
import { KINDS } from './fixtures.ts';

describe('the NATIVE matrix', () => {
  it('docs/asks.md holds the table the renderers give (npx tsx scripts/native-matrix.ts)', () => {
    expect(matrixInDocs(readFileSync('docs/asks.md', 'utf8'))).toBe(nativeMatrix());
  });

  it('has a column for every platform of the registry', () => {
    expect(PLATFORMS.map((p) => p.name).sort()).toEqual(REGISTRY.map((p) => p.name).sort());
  });

  it('every cell is NATIVE or says why not', () => {
    for (const p of PLATFORMS)
      for (const k of ALL_KINDS)
        expect(cell(p.name, k), `${p.name} ${k}`).toMatch(/^(NATIVE|Details: \S)/);
    // Each stated reason belongs to a cell that really is not native (else cell() throws).
    for (const key of Object.keys(REASONS)) {
      const [platform, kind] = key.split(' ') as [string, (typeof ALL_KINDS)[number]];
      expect(isNative(platform, kind, KINDS[kind].content), key).toBe(false);
    }
  });

  it('a cell follows the renderer: 25 options are a Discord select, 26 are Details', () => {
    const options = (n: number) => ({
      ...KINDS['decision.single'].content,
      options: Array.from({ length: n }, (_, i) => ({ key: `o${i}`, label: `Option ${i}` })),
    });
    expect(isNative('discord', 'decision.single', options(25))).toBe(true);
    expect(isNative('discord', 'decision.single', options(26))).toBe(false);
    expect(cell('discord', 'decision.single')).toBe('NATIVE (over 25 options: Details)');
  });
});
