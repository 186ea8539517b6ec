/**
 * What an alert from another tool says about where to look: the pull zone and Shield zone ids
 * and the times in its text ("pull zone 308006", "pullzone=308006", "zone 5101",
 * "2026-11-21T14:05:00Z", "14:05 UTC"). Pure and bounded: only the first MAX_SCANNED characters
 * are read, every pattern is linear, and only the first few of each are kept.
 */
import { parseInstant } from '../shared/time-args.js';

/** An alert's useful part is at its start; a pasted log beyond this is not read. */
export const MAX_SCANNED = 8_000;
export const MAX_IDS = 5;
export const MAX_TIMES = 10;
/** Times further back than the platform keeps (and the export allows) are not a window. */
const OLDEST_MS = 72 * 3_600_000;
/** A time a little ahead of the bot's clock is still "now" (clocks differ). */
const SKEW_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;

export interface AlertHints {
  pullZoneIds: number[];
  shieldZoneIds: number[];
  /** Instants, Unix milliseconds, in the order found. */
  times: number[];
}

// "pull zone 308006", "pullzone=308006", "pull_zone_id: 308006", "PullZoneId 308006", "pull-zone #308006".
const PULL_ZONE = /\bpull[ _-]?zone(?:[ _-]?id)?s?[ \t]{0,8}(?:[:=#][ \t]{0,8})?(\d{1,15})\b/gi;
// "shield zone 5101", "shield_zone_id=5101", and a bare "zone 5101" that no "pull" comes before.
const SHIELD_ZONE = /\b(?:shield[ _-]?)?zone(?:[ _-]?id)?s?[ \t]{0,8}(?:[:=#][ \t]{0,8})?(\d{1,15})\b/gi;
// "2026-11-21T14:05:00Z", "2026-11-21 14:05:00.123+01:00", "2026-11-21 14:05 UTC".
const ISO_TIME =
  /\b(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?:[ \t]?(Z|UTC|GMT|[+-]\d{2}:?\d{2}))?/gi;
// "14:05 UTC", "14:05:30 GMT", "14:05Z": a time of day said to be UTC.
const UTC_TIME = /\b(\d{1,2}:\d{2}(?::\d{2})?)[ \t]?(?:UTC|GMT|Z)\b/gi;

type Span = [start: number, end: number];
const inside = (index: number, spans: readonly Span[]) =>
  spans.some(([start, end]) => index >= start && index < end);

function pushUnique(list: number[], value: number, max: number): void {
  if (list.length < max && !list.includes(value)) list.push(value);
}

/** An id as every reader takes it (PLATFORM_ID_DIGITS: up to 15 digits), and positive. */
function pushId(list: number[], digits: string): void {
  const id = Number(digits);
  if (id > 0) pushUnique(list, id, MAX_IDS);
}

/** The zone ids and times an alert's text names, at most a few of each. */
export function findAlertHints(text: string, now: number): AlertHints {
  const scanned = text.slice(0, MAX_SCANNED);
  const hints: AlertHints = { pullZoneIds: [], shieldZoneIds: [], times: [] };
  const pullSpans: Span[] = [];
  for (const match of scanned.matchAll(PULL_ZONE)) {
    pullSpans.push([match.index, match.index + match[0].length]);
    pushId(hints.pullZoneIds, match[1]!);
  }
  for (const match of scanned.matchAll(SHIELD_ZONE)) {
    // The "zone 308006" inside "pull zone 308006" is the pull zone's.
    if (inside(match.index, pullSpans)) continue;
    pushId(hints.shieldZoneIds, match[1]!);
  }
  const keep = (ms: number) => {
    if (ms <= now + SKEW_MS && ms >= now - OLDEST_MS) pushUnique(hints.times, ms, MAX_TIMES);
  };
  const isoSpans: Span[] = [];
  for (const match of scanned.matchAll(ISO_TIME)) {
    isoSpans.push([match.index, match.index + match[0].length]);
    const zone = match[3]?.toUpperCase();
    const offset = !zone || zone === 'UTC' || zone === 'GMT' ? 'Z' : zone;
    const parsed = parseInstant(`${match[1]}T${match[2]}${offset}`, now);
    if (parsed.ok) keep(parsed.ms);
  }
  for (const match of scanned.matchAll(UTC_TIME)) {
    if (inside(match.index, isoSpans)) continue;
    const parsed = parseInstant(match[1]!, now);
    if (!parsed.ok) continue;
    // A time of day later than now was yesterday's.
    keep(parsed.ms > now + SKEW_MS ? parsed.ms - DAY_MS : parsed.ms);
  }
  return hints;
}

/** The window to suggest: half an hour either side of the times found, or the last hour. */
export function suggestedWindow(hints: AlertHints, now: number): { from: number; to: number } {
  if (hints.times.length === 0) return { from: now - 3_600_000, to: now };
  const margin = 30 * 60_000;
  const earliest = Math.min(...hints.times);
  const latest = Math.max(...hints.times);
  const to = Math.min(latest + margin, now);
  const from = Math.max(Math.min(earliest - margin, to - margin), now - OLDEST_MS);
  return { from, to };
}
