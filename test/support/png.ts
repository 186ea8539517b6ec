/**
 * Reading the PNGs the bot draws: the signature and IHDR as a viewer checks them, the pixels
 * through pngjs, and how much of a region is drawn on (anything not white).
 */
import { PNG } from 'pngjs';
import { CHART_SCALE } from '../../src/reports/chart/bucket.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which must come first, after the signature. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: the signature is wrong');
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR')
    throw new Error('not a PNG: IHDR is not the first chunk');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export const decodePng = (bytes: Buffer): PNG => PNG.sync.read(bytes);

/** A region in chart (SVG) units. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

function* pixels(png: PNG, region: Region): Generator<number> {
  const [x0, y0] = [Math.floor(region.x * CHART_SCALE), Math.floor(region.y * CHART_SCALE)];
  const x1 = Math.min(png.width, Math.ceil((region.x + region.width) * CHART_SCALE));
  const y1 = Math.min(png.height, Math.ceil((region.y + region.height) * CHART_SCALE));
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) yield (y * png.width + x) * 4;
}

/** Pixels of `region` that are drawn on: darker than near-white. */
export function inkIn(png: PNG, region: Region): number {
  let ink = 0;
  for (const at of pixels(png, region))
    if (Math.min(png.data[at]!, png.data[at + 1]!, png.data[at + 2]!) < 200) ink++;
  return ink;
}

/** Pixels of `region` that differ between two pictures of the same size. */
export function differingPixels(a: PNG, b: PNG, region: Region): number {
  let differing = 0;
  for (const at of pixels(a, region)) if (a.data.readUInt32BE(at) !== b.data.readUInt32BE(at)) differing++;
  return differing;
}
