/**
 * Knobs: sizes for load tests and benchmarks (a log day or an export of any size, generated while
 * it streams and never stored), and the vendor-legal answer shapes no seeded example shows.
 */
import { z } from 'zod';

/**
 * Answers the vendor's published schemas allow and the seeded data never gives. Each defaults to
 * the ordinary answer; set several at once.
 */
export const VendorShapesSchema = z.strictObject({
  /** DNS zones and records with every field the vendor marks nullable set to null, `Domain` included. */
  dnsNulls: z.boolean().optional(),
  /**
   * What every origin-log day answers: its entries (`{"logs":[…]}`, the ordinary answer), or a body
   * without entries that the vendor's schema allows: `{}`, `{"logs":null}` or `{"logs":[]}`.
   */
  originLogBody: z.enum(['entries', 'no-logs', 'null-logs', 'empty-logs']).optional(),
  /** Shield envelopes that report a failure carry their errorKey with `message: null`. */
  shieldNullMessage: z.boolean().optional(),
  /** Shield validation failures answer as ASP.NET does by default: `title` and `errors`, no `detail`. */
  problemWithoutDetail: z.boolean().optional(),
});
export type VendorShapes = z.infer<typeof VendorShapesSchema>;

/** Origin errors added to a pull zone's log at one instant: `count` entries of one status and code. */
export const AddedLogEntriesSchema = z.strictObject({
  pullZoneId: z.number().int().positive(),
  /** Unix milliseconds; the entries appear once the sandbox clock reaches it. */
  at: z.number().int().nonnegative(),
  count: z.number().int().positive().max(1_000_000),
  status: z.number().int().min(100).max(599).optional(),
  code: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
});
export type AddedLogEntries = z.infer<typeof AddedLogEntriesSchema>;

export interface Knobs {
  /**
   * From now on every day of this pull zone's origin log holds `entries` entries, spread over the
   * day; today's answer ends at the sandbox clock's now, and a day still to come is empty.
   */
  setLogDay(pullZoneId: number, entries: number): void;
  /** From now on exports of this Shield zone produce rows until about `bytes` bytes. */
  setExportBytes(shieldZoneId: number, bytes: number): void;
  /**
   * From now on the origin-log service keeps today and this many days before it, for every pull
   * zone: an older day answers `{"logs":[]}`, as a platform that has let it go would.
   */
  setLogDaysKept(days: number): void;
  /** From now on these answer shapes; one left out keeps its earlier setting. */
  setVendorShapes(shapes: VendorShapes): void;
  /**
   * Adds origin errors to a pull zone's log, at an instant: they are in that day's answers once
   * the sandbox clock has reached it (a burst during a watch), listed before the day's own entries.
   */
  addLogEntries(entries: AddedLogEntries): void;
  /** Back to the seeded sizes and the ordinary answers. */
  clear(): void;
}

export interface KnobState extends Knobs {
  logDayEntries(pullZoneId: number): number | undefined;
  exportBytes(shieldZoneId: number): number | undefined;
  /** Days before today the origin-log service keeps, when set; undefined keeps the seeded rule. */
  logDaysKept(): number | undefined;
  vendorShapes(): Readonly<VendorShapes>;
  /** What addLogEntries added to a pull zone, in the order added. */
  addedLogEntries(pullZoneId: number): readonly AddedLogEntries[];
}

export const KnobRequestSchema = z.strictObject({
  logDay: z
    .strictObject({ pullZoneId: z.number().int().positive(), entries: z.number().int().nonnegative() })
    .optional(),
  exportBytes: z
    .strictObject({ shieldZoneId: z.number().int().positive(), bytes: z.number().int().nonnegative() })
    .optional(),
  logDaysKept: z.number().int().nonnegative().optional(),
  vendorShapes: VendorShapesSchema.optional(),
  addLogEntries: AddedLogEntriesSchema.optional(),
});

export function createKnobs(seeded: {
  logDays: Map<number, number>;
  exportBytes: Map<number, number>;
}): KnobState {
  const logDays = new Map(seeded.logDays);
  const exports = new Map(seeded.exportBytes);
  let shapes: VendorShapes = {};
  let daysKept: number | undefined;
  const added = new Map<number, AddedLogEntries[]>();
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
    setLogDaysKept(days) {
      if (!Number.isSafeInteger(days) || days < 0) throw new RangeError('days must be a whole number ≥ 0');
      daysKept = days;
    },
    setVendorShapes(next) {
      shapes = { ...shapes, ...VendorShapesSchema.parse(next) };
    },
    addLogEntries(entries) {
      const parsed = AddedLogEntriesSchema.parse(entries);
      added.set(parsed.pullZoneId, [...(added.get(parsed.pullZoneId) ?? []), parsed]);
    },
    clear() {
      added.clear();
      shapes = {};
      daysKept = undefined;
      logDays.clear();
      exports.clear();
      for (const [id, entries] of seeded.logDays) logDays.set(id, entries);
      for (const [id, bytes] of seeded.exportBytes) exports.set(id, bytes);
    },
    logDayEntries: (pullZoneId) => logDays.get(pullZoneId),
    exportBytes: (shieldZoneId) => exports.get(shieldZoneId),
    logDaysKept: () => daysKept,
    vendorShapes: () => shapes,
    addedLogEntries: (pullZoneId) => added.get(pullZoneId) ?? [],
  };
}
