/**
 * A value on the Hrana wire (Hrana over HTTP, version 2) and the one codec between it and a cell:
 * integers exact, blobs as bytes. The bot reads rows with it (read-query.ts); the sandbox's Hrana
 * server reads statement arguments and writes rows with it.
 */
import { z } from 'zod';

export const HranaValueSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('null') }),
  z.object({ type: z.literal('integer'), value: z.string().regex(/^-?\d+$/) }),
  z.object({ type: z.literal('float'), value: z.number() }),
  z.object({ type: z.literal('text'), value: z.string() }),
  z.object({ type: z.literal('blob'), base64: z.string() }),
]);
export type HranaValue = z.infer<typeof HranaValueSchema>;

/** A value as the database sends it: integers exact, blobs as bytes. */
export type Cell = null | string | number | bigint | ArrayBuffer;

/** The bytes as an ArrayBuffer of their own, without a copy when they already fill one. */
function ownBuffer(bytes: Buffer): ArrayBuffer {
  const { buffer } = bytes;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return whole && buffer instanceof ArrayBuffer ? buffer : new Uint8Array(bytes).buffer;
}

/** The cell a wire value stands for. */
export function decodeHranaValue(value: HranaValue): Cell {
  switch (value.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(value.value);
    case 'float':
      return value.value;
    case 'text':
      return value.value;
    case 'blob':
      return ownBuffer(Buffer.from(value.base64, 'base64'));
  }
}

/** The wire value of a cell, base64 unpadded as sqld sends it; anything else goes as its text. */
export function encodeHranaValue(value: unknown): HranaValue {
  if (value === null || value === undefined) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  if (value instanceof ArrayBuffer) {
    return { type: 'blob', base64: Buffer.from(value).toString('base64').replace(/=+$/, '') };
  }
  return { type: 'text', value: String(value) };
}
