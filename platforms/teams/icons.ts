/**
 * The two app icons Teams requires, drawn in code so the package needs no image tools: color.png
 * (192x192, full color) and outline.png (32x32, white on transparent, as Teams asks). Run this
 * file to rewrite platforms/teams/manifest/{color,outline}.png.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';

/** Teams' icon sizes (app manifest: icons.color 192x192, icons.outline 32x32). */
export const TEAMS_COLOR_ICON_PX = 192;
export const TEAMS_OUTLINE_ICON_PX = 32;
/** The accent colour of the manifest and the colour icon's background. */
export const TEAMS_ACCENT_COLOR = '#4F46E5';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** Encodes RGBA pixels (row-major, 4 bytes each) as an 8-bit RGBA PNG. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    rows[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(
      rows,
      y * (width * 4 + 1) + 1,
    );
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function distanceToSegment(px: number, py: number, a: number[], b: number[]): number {
  const [ax = 0, ay = 0] = a;
  const [bx = 0, by = 0] = b;
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** A check mark in unit coordinates (0..1). */
const CHECK = [
  [0.24, 0.52],
  [0.43, 0.7],
  [0.77, 0.32],
];

function onCheck(x: number, y: number, size: number, stroke: number): boolean {
  const u = (x + 0.5) / size;
  const v = (y + 0.5) / size;
  const d = Math.min(
    distanceToSegment(u, v, CHECK[0] ?? [], CHECK[1] ?? []),
    distanceToSegment(u, v, CHECK[1] ?? [], CHECK[2] ?? []),
  );
  return d <= stroke / 2;
}

/** color.png: a white check mark on the accent colour. */
export function colorIcon(): Buffer {
  const size = TEAMS_COLOR_ICON_PX;
  const accent = [0x4f, 0x46, 0xe5];
  const px = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const rgb = onCheck(x, y, size, 0.11) ? [255, 255, 255] : accent;
      px.set([rgb[0] ?? 0, rgb[1] ?? 0, rgb[2] ?? 0, 255], i);
    }
  }
  return encodePng(size, size, px);
}

/** outline.png: the same check mark, white on transparent. */
export function outlineIcon(): Buffer {
  const size = TEAMS_OUTLINE_ICON_PX;
  const px = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (onCheck(x, y, size, 0.13)) px.set([255, 255, 255, 255], (y * size + x) * 4);
    }
  }
  return encodePng(size, size, px);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = fileURLToPath(new URL('./manifest/', import.meta.url));
  writeFileSync(`${dir}color.png`, colorIcon());
  writeFileSync(`${dir}outline.png`, outlineIcon());
  console.log(`wrote ${dir}color.png and ${dir}outline.png`);
}
