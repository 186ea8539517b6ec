/**
 * Size knobs for load tests and benchmarks: a log day or an export of any size, generated while
 * it streams and never stored.
 */
import { z } from 'zod';

export interface Knobs {
  /** From now on every GET of this pull zone's origin log, for any date, returns `entries` entries. */
  setLogDay(pullZoneId: number, entries: number): void;
  /** From now on exports of this Shield zone produce rows until about `bytes` bytes. */
  setExportBytes(shieldZoneId: number, bytes: number): void;
  /** Back to the seeded sizes. */
  clear(): void;
}

export interface KnobState extends Knobs {
  logDayEntries(pullZoneId: number): number | undefined;
  exportBytes(shieldZoneId: number): number | undefined;
}

export const KnobRequestSchema = z.strictObject({
  logDay: z
    .strictObject({ pullZoneId: z.number().int().positive(), entries: z.number().int().nonnegative() })
    .optional(),
  exportBytes: z
    .strictObject({ shieldZoneId: z.number().int().positive(), bytes: z.number().int().nonnegative() })
    .optional(),
});

export function createKnobs(seeded: {
  logDays: Map<number, number>;
  exportBytes: Map<number, number>;
}): KnobState {
  const logDays = new Map(seeded.logDays);
  const exports = new Map(seeded.exportBytes);
  return {
    setLogDay(pullZoneId, entries) {
      if (!Number.isSafeInteger(entries) || entries < 0)
        throw new RangeError('entries must be a whole number ≥ 0');
      logDays.set(pullZoneId, entries);
    },
    setExportBytes(shieldZoneId, bytes) {
      if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError('bytes must be a whole number ≥ 0');
      exports.set(shieldZoneId, bytes);
    },
    clear() {
      logDays.clear();
      exports.clear();
      for (const [id, entries] of seeded.logDays) logDays.set(id, entries);
      for (const [id, bytes] of seeded.exportBytes) exports.set(id, bytes);
    },
    logDayEntries: (pullZoneId) => logDays.get(pullZoneId),
    exportBytes: (shieldZoneId) => exports.get(shieldZoneId),
  };
}
