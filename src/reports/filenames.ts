/** File names of the reports posted in chat, all in UTC so every reader sees the same name. */
import { UTCDate } from '@date-fns/utc';
import { format } from '../time/date-fns.js';

/** `origin-errors-ID-yyyy-MM-dd.csv` for the UTC calendar day of `day`. */
export function originErrorsFilename(pullZoneId: number, day: Date | number): string {
  return `origin-errors-${pullZoneId}-${format(new UTCDate(new Date(day).getTime()), 'yyyy-MM-dd')}.csv`;
}

/** Minutes are enough for a window bound; seconds appear only when the bound has them. */
function compactUtc(ms: number): string {
  const date = new UTCDate(ms);
  return format(date, date.getUTCSeconds() === 0 ? "yyyyMMdd'T'HHmm'Z'" : "yyyyMMdd'T'HHmmss'Z'");
}

/** `origin-errors-ID-FROM-TO.csv` for a window that spans UTC days, with compact UTC bounds. */
export function originErrorsWindowFilename(pullZoneId: number, fromMs: number, toMs: number): string {
  return `origin-errors-${pullZoneId}-${compactUtc(fromMs)}-${compactUtc(toMs)}.csv`;
}

/** `shield-events-ZONE-FROM-TO.csv` with compact UTC bounds, e.g. `20261121T1400Z`. */
export function shieldExportFilename(zoneId: number, fromMs: number, toMs: number): string {
  return `shield-events-${zoneId}-${compactUtc(fromMs)}-${compactUtc(toMs)}.csv`;
}

/** `stats-ID-FROM-TO.csv` with compact UTC bounds, e.g. `stats-308006-20261121T0820Z-20261121T1420Z.csv`. */
export function statsFilename(pullZoneId: number, fromMs: number, toMs: number): string {
  return `stats-${pullZoneId}-${compactUtc(fromMs)}-${compactUtc(toMs)}.csv`;
}
