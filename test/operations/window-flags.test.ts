/**
 * `--last` and `--from/--to` are read by one parser, so /edge logs and /edge shield export refuse
 * the same mistakes in the same words; each keeps its own limit on the window.
 */
import { describe, expect, it } from 'vitest';
import { logs } from '../../src/operations/logs/logs.js';
import { parseWindowFlags, type WindowFlags } from '../../src/operations/shared/window.js';
import { shieldExport } from '../../src/operations/shield/export.js';

const HOUR_MS = 3_600_000;
const now = Date.parse('2026-11-21T14:00:00Z');
const noLimit = () => undefined;

/** What each command says of the same flags: the logs of pull zone 308006, the export of zone 5101. */
/** Every flag of a command, unset unless given. */
const typed = (flags: WindowFlags) => ({ last: undefined, from: undefined, to: undefined, ...flags });

function refusals(flags: WindowFlags): { logs: string; shield: string } {
  const logsParsed = logs.parse(
    ['308006'],
    { status: undefined, code: undefined, zone: undefined, ...typed(flags) },
    { now },
  );
  const shieldParsed = shieldExport.parse(
    ['5101'],
    { query: undefined, filter: [], ...typed(flags) },
    { now },
  );
  return {
    logs: logsParsed.ok ? 'accepted' : logsParsed.error,
    shield: shieldParsed.ok ? 'accepted' : shieldParsed.error,
  };
}

describe('the window flags', () => {
  it('read --last as a length, --from alone as up to now, and nothing as no window', () => {
    expect(parseWindowFlags({ last: '2h' }, now, noLimit)).toEqual({
      ok: true,
      window: { kind: 'last', lastMs: 2 * HOUR_MS },
    });
    expect(parseWindowFlags({ from: '-3h' }, now, noLimit)).toEqual({
      ok: true,
      window: { kind: 'range', startMs: now - 3 * HOUR_MS, endMs: now },
    });
    expect(parseWindowFlags({}, now, noLimit)).toEqual({ ok: true, window: undefined });
  });

  it("end with the command's own limit, in its words", () => {
    const limit = (window: { kind: string }) =>
      window.kind === 'last' ? 'too long for this command' : undefined;
    expect(parseWindowFlags({ last: '2h' }, now, limit)).toEqual({
      ok: false,
      error: 'too long for this command',
    });
    expect(parseWindowFlags({ from: '-2h' }, now, limit).ok).toBe(true);
  });

  it.each<[WindowFlags, string]>([
    [{ last: '2h', from: '-3h' }, '--last and --from/--to both set the window: use one of them'],
    [{ to: '-1h' }, '--to needs a --from, e.g. --from -3h --to -1h'],
    [{ last: 'two hours' }, '--last: "two hours" is not a duration'],
    [{ from: 'soon' }, '--from: "soon" is not a time'],
    [{ from: '-3h', to: 'later' }, '--to: "later" is not a time'],
    [{ from: '-1h', to: '-2h' }, '--to must be after --from'],
    [{ from: '2026-11-22T00:00' }, '--from is in the future; the window must start before now (14:00 UTC)'],
  ])('refuse %o in the same words in /edge logs and /edge shield export', (flags, error) => {
    const said = refusals(flags);
    expect(said.logs).toContain(error);
    expect(said.shield).toBe(said.logs);
  });

  it("say how to write yesterday's time when a time of day is still to come, in both commands", () => {
    const justAfterMidnight = Date.parse('2026-11-22T00:00:30Z');
    const flags = { from: '23:50' };
    const error =
      '--from 23:50 is later than now (00:00 UTC) and a time of day means today; for yesterday write --from 2026-11-21T23:50';
    expect(parseWindowFlags(flags, justAfterMidnight, noLimit)).toEqual({ ok: false, error });
    const shield = shieldExport.parse(
      ['5101'],
      { query: undefined, filter: [], ...typed(flags) },
      { now: justAfterMidnight },
    );
    expect(shield).toEqual({ ok: false, error });
  });

  it('keep each command’s limit: 72 hours of any days for logs, the last 72 hours for an export', () => {
    const older = { from: '2026-11-10T00:00', to: '2026-11-11T00:00' };
    expect(refusals(older).logs).toBe('accepted');
    expect(refusals(older).shield).toBe(
      'the window must lie within the last 72 hours: start at 2026-11-18 14:00 UTC or later',
    );
    expect(refusals({ last: '73h' }).logs).toContain('--last covers at most 72h');
    expect(refusals({ last: '73h' }).shield).toBe('--last covers at most 72h, as far back as exports reach');
    expect(refusals({ from: '-80h' }).logs).toContain('a window covers at most 72h');
    expect(refusals({ last: '72h' })).toEqual({ logs: 'accepted', shield: 'accepted' });
  });
});
