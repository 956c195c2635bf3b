/**
 * The unit project opens no socket: its setup (test/setup/no-sockets.ts) makes connect and listen
 * throw, and this file runs there (it is listed in test/projects.ts). Every file that list names
 * exists, so a moved test cannot silently leave the unit project.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ALONE, SLOW_FIRST, UNIT_TESTS } from '../projects.ts';

describe('the unit project', () => {
  it('runs here, with no socket to open: connect and listen throw, loopback included', () => {
    expect(UNIT_TESTS).toContain('test/boundaries/unit-project.test.ts');
    expect(() => net.connect(9, '127.0.0.1')).toThrow(/unit tests open no socket/);
    expect(() => net.createServer().listen(0, '127.0.0.1')).toThrow(/unit tests open no socket/);
  });

  it('lists only files that exist, each once', () => {
    expect(UNIT_TESTS.filter((f) => !existsSync(f))).toEqual([]);
    expect(new Set(UNIT_TESTS).size).toBe(UNIT_TESTS.length);
  });

  it('starts first only integration files that exist (a renamed one would silently start late)', () => {
    expect(SLOW_FIRST.filter((f) => !existsSync(f) || UNIT_TESTS.includes(f))).toEqual([]);
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
  });

  it('runs alone only integration files that exist, and starts none of them early', () => {
    expect(ALONE.filter((f) => !existsSync(f) || UNIT_TESTS.includes(f))).toEqual([]);
    expect(ALONE.filter((f) => SLOW_FIRST.includes(f))).toEqual([]);
  });
});
