import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { buildTeamsAppPackage, buildTeamsManifest } from '../../../platforms/teams/package-app.ts';

const APP_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

/**
 * The parts of MicrosoftTeams.schema.json v1.17 that a bot-only app must satisfy: the required
 * top-level fields and the definitions they use (guid, semver, hexColor, httpsUrl, lengths).
 */
const MANIFEST_V1_17 = {
  type: 'object',
  required: [
    'manifestVersion',
    'version',
    'id',
    'developer',
    'name',
    'description',
    'icons',
    'accentColor',
  ],
  properties: {
    $schema: {
      const:
        'https://developer.microsoft.com/en-us/json-schemas/teams/v1.17/MicrosoftTeams.schema.json',
    },
    manifestVersion: { const: '1.17' },
    version: {
      type: 'string',
      maxLength: 256,
      pattern: '^([0-9]|[1-9]+[0-9]*)\\.([0-9]|[1-9]+[0-9]*)\\.([0-9]|[1-9]+[0-9]*)$',
    },
    id: { type: 'string', pattern: '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$' },
    developer: {
      type: 'object',
      required: ['name', 'websiteUrl', 'privacyUrl', 'termsOfUseUrl'],
      properties: {
        name: { type: 'string', maxLength: 32 },
        websiteUrl: { type: 'string', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]://' },
        privacyUrl: { type: 'string', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]://' },
        termsOfUseUrl: { type: 'string', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]://' },
      },
    },
    name: {
      type: 'object',
      required: ['short', 'full'],
      properties: {
        short: { type: 'string', maxLength: 30 },
        full: { type: 'string', maxLength: 100 },
      },
    },
    description: {
      type: 'object',
      required: ['short', 'full'],
      properties: {
        short: { type: 'string', maxLength: 80 },
        full: { type: 'string', maxLength: 4000 },
      },
    },
    icons: {
      type: 'object',
      required: ['outline', 'color'],
      properties: { outline: { type: 'string' }, color: { type: 'string' } },
    },
    accentColor: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
    bots: {
      type: 'array',
      maxItems: 1,
      items: {
        type: 'object',
        required: ['botId', 'scopes'],
        properties: {
          botId: { type: 'string', maxLength: 64 },
          scopes: {
            type: 'array',
            maxItems: 3,
            items: { enum: ['team', 'personal', 'groupchat'] },
          },
        },
      },
    },
    validDomains: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 2048 } },
  },
};

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const buf = Buffer.from(png);
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(buf.toString('ascii', 12, 16)).toBe('IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** RGBA pixels of an 8-bit RGBA PNG whose rows use filter 0 (as ours do). */
function pngPixels(png: Uint8Array): Buffer {
  const buf = Buffer.from(png);
  const { width, height } = pngSize(png);
  expect([buf[24], buf[25]]).toEqual([8, 6]);
  const idat: Buffer[] = [];
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    if (buf.toString('ascii', at + 4, at + 8) === 'IDAT')
      idat.push(buf.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    raw.copy(out, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
  }
  return out;
}

describe('Teams app package', () => {
  const files = unzipSync(buildTeamsAppPackage(APP_ID, '0.1.0'));

  it('holds exactly manifest.json and the two icons', () => {
    expect(Object.keys(files).sort()).toEqual(['color.png', 'manifest.json', 'outline.png']);
  });

  it('has a manifest valid for its declared schema version, with the configured bot id', () => {
    const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'));
    expect(String(manifest.$schema)).toContain(`/v${manifest.manifestVersion}/`);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(MANIFEST_V1_17);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(manifest.id).toBe(APP_ID);
    expect(manifest.version).toBe('0.1.0');
    expect(manifest.bots).toHaveLength(1);
    expect(manifest.bots[0].botId).toBe(APP_ID);
    expect([...manifest.bots[0].scopes].sort()).toEqual(['groupchat', 'personal', 'team']);
    expect(Array.isArray(manifest.validDomains)).toBe(true);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([manifest.icons.color, manifest.icons.outline]),
    );
    expect(JSON.stringify(manifest)).not.toContain('{{');
  });

  it('has icons of the required sizes; the outline is white on transparent', () => {
    expect(pngSize(files['color.png']!)).toEqual({ width: 192, height: 192 });
    expect(pngSize(files['outline.png']!)).toEqual({ width: 32, height: 32 });
    const pixels = pngPixels(files['outline.png']!);
    let white = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const [r, g, b, a] = [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]];
      if (a === 0) continue;
      expect([r, g, b]).toEqual([255, 255, 255]);
      white++;
    }
    expect(white).toBeGreaterThan(0);
  });

  it('refuses an app id that is not a GUID', () => {
    expect(() => buildTeamsManifest('', '0.1.0')).toThrow(/TEAMS_APP_ID/);
    expect(() => buildTeamsManifest('my-bot', '0.1.0')).toThrow(/TEAMS_APP_ID/);
  });

  it('is built by npm run teams:package', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(pkg.scripts['teams:package']).toBe('tsx platforms/teams/package-app.ts');
  });
});
