/**
 * Durations as users and the policy write them (PRODUCT §3): a whole number and one unit,
 * `45s`, `30m`, `2h`, `7d`. Used for the approval ttl, `--last` and `--expires`.
 */
export type DurationResult = { ok: true; ms: number } | { ok: false; error: string };

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ['s', SECOND],
  ['m', MINUTE],
  ['h', HOUR],
  ['d', DAY],
]);

/** Nothing in edgeops needs more than a year; larger values are typos. */
export const MAX_DURATION_MS = 365 * DAY;

const HINT = 'use a number and a unit: 45s, 30m, 2h, 7d';

const DURATION = /^(\d{1,12})([smhd])$/;

export function parseDuration(text: string): DurationResult {
  const trimmed = text.trim();
  const match = DURATION.exec(trimmed);
  const unitMs = UNIT_MS.get(match?.[2] ?? '');
  if (!match || unitMs === undefined) {
    const shown = trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed;
    return { ok: false, error: `"${shown}" is not a duration: ${HINT}` };
  }
  const amount = Number(match[1]);
  const ms = amount * unitMs;
  if (amount === 0) return { ok: false, error: `"${trimmed}" is not a duration: it must be more than 0` };
  if (ms > MAX_DURATION_MS) return { ok: false, error: `"${trimmed}" is too long: the most is 365d` };
  return { ok: true, ms };
}

/**
 * A duration for people: whole units from days down to seconds, largest first (`1h 30m`, `7d`,
 * `45s`). Milliseconds are rounded to the nearest second; zero and negative values read `0s`.
 */
export function formatDuration(ms: number): string {
  let seconds = Number.isFinite(ms) && ms > 0 ? Math.round(ms / 1000) : 0;
  if (seconds === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, unitMs] of [...UNIT_MS].reverse()) {
    const unitSeconds = unitMs / 1000;
    const count = Math.floor(seconds / unitSeconds);
    if (count > 0) parts.push(`${count}${unit}`);
    seconds -= count * unitSeconds;
  }
  return parts.join(' ');
}
