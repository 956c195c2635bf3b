/**
 * `npm run teams:package`: builds dist/teams-app.zip, the app package a person uploads to Teams
 * (manifest.json + color.png + outline.png at the zip's root). The bot id comes from TEAMS_APP_ID;
 * the manifest's version from package.json (Teams only takes an updated app with a higher version).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zipSync } from 'fflate';

const MANIFEST_DIR = fileURLToPath(new URL('./manifest/', import.meta.url));
const GUID = /^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/;
const SEMVER = /^\d+\.\d+\.\d+$/;

/** The files of an app package, by name. */
export interface TeamsAppFiles {
  'manifest.json': Uint8Array;
  'color.png': Uint8Array;
  'outline.png': Uint8Array;
}

/** manifest.json with the bot id filled in (the template's `{{TEAMS_APP_ID}}`). */
export function buildTeamsManifest(appId: string, version: string): Record<string, unknown> {
  if (!GUID.test(appId))
    throw new Error("TEAMS_APP_ID must be the bot's Microsoft App ID (a GUID)");
  if (!SEMVER.test(version)) throw new Error(`app version "${version}" is not x.y.z`);
  const template = readFileSync(`${MANIFEST_DIR}manifest.json`, 'utf8');
  const manifest = JSON.parse(template.replaceAll('{{TEAMS_APP_ID}}', appId)) as Record<
    string,
    unknown
  >;
  manifest.version = version;
  return manifest;
}

/** The three files of the package. */
export function teamsAppFiles(appId: string, version: string): TeamsAppFiles {
  const manifest = buildTeamsManifest(appId, version);
  return {
    'manifest.json': Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
    'color.png': readFileSync(`${MANIFEST_DIR}color.png`),
    'outline.png': readFileSync(`${MANIFEST_DIR}outline.png`),
  };
}

/** The zipped app package. */
export function buildTeamsAppPackage(appId: string, version: string): Uint8Array {
  const files = teamsAppFiles(appId, version);
  // A fixed date keeps the zip byte-for-byte reproducible for the same inputs.
  return zipSync({ ...files }, { level: 9, mtime: new Date('2020-01-01T00:00:00Z') });
}

/** Writes the package to `outFile`; returns its path. */
export function writeTeamsAppPackage(appId: string, version: string, outFile: string): string {
  const path = resolve(outFile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, buildTeamsAppPackage(appId, version));
  return path;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const appId = process.env.TEAMS_APP_ID?.trim() ?? '';
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  try {
    const path = writeTeamsAppPackage(appId, pkg.version, 'dist/teams-app.zip');
    console.log(
      `wrote ${path} (bot ${appId}, version ${pkg.version}); upload it in Teams: Apps > Manage your apps > Upload an app`,
    );
  } catch (err) {
    console.error(`teams:package: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
