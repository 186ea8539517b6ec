/**
 * Origin-log days kept on disk (EDGEOPS_LOG_CACHE, EDGEOPS_LOG_CACHE_DIR), through the engine
 * against the sandbox over HTTP: asking again downloads nothing and answers the same, today's
 * copy is read again once a minute old, the bound lets the least recently read day go first, a
 * failed download keeps nothing, and the folder is swept at start and removed at stop.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeKeptFolder } from '../../src/operations/logs/kept-days.js';
import {
  type EngineTestbed,
  fieldsOf,
  filesIn,
  fileText,
  headlineIn,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

const DAY_MS = 86_400_000;
const AT = '2026-11-21T14:20:00.000Z';

/** The path segment of a day, MM-dd-yyyy. */
const pathDate = (ms: number) => {
  const [year, month, day] = new Date(ms).toISOString().slice(0, 10).split('-');
  return `${month}-${day}-${year}`;
};

let channels = 0;
/** A channel of its own, so that no answer is shared with an earlier asker's. */
const freshChannel = () => `C0CACHE${++channels}`;

/** The dates the sandbox was asked for since `since` (a request count). */
const askedDates = (bed: EngineTestbed, since: number) =>
  bed.sandbox.requests
    .byRoute('logs.origin')
    .filter((request) => request.seq > since)
    .map((request) => request.path.split('/').at(-1));

const lastSeq = (bed: EngineTestbed) => bed.sandbox.requests.last()?.seq ?? 0;

/** The answer as people read it: the headline's fields, the thread's summary and the CSV. */
async function ask(bed: EngineTestbed, text: string) {
  const records = await bed.run(text, { channelId: freshChannel() });
  const headline = headlineIn(records);
  const summary = (headline.thread ?? []).map(wordsOf).join('\n');
  const csv = filesIn(records).find((file) => file.filename.endsWith('.csv'));
  return {
    fields: Object.fromEntries(fieldsOf(headline)),
    summary,
    csv: csv ? fileText(csv) : undefined,
  };
}

describe('asking again about the same pull zone and days', () => {
  let bed: EngineTestbed;
  beforeAll(async () => {
    bed = await startEngineTestbed({ charts: { fontFile: '/nonexistent/fonts/inter.ttf' } });
  });
  afterAll(async () => {
    await bed?.close();
  });
  beforeEach(() => {
    bed.sandbox.faults.clear();
    bed.sandbox.knobs.clear();
    bed.clock.set(AT);
  });

  it('is answered from the kept days without a platform call, with the same answer', async () => {
    const before = lastSeq(bed);
    const first = await ask(bed, 'logs 308006 --last 1h');
    expect(askedDates(bed, before)).toEqual([pathDate(bed.clock()), pathDate(bed.clock() - DAY_MS)]);

    bed.clock.advance(30_000);
    const again = lastSeq(bed);
    const second = await ask(bed, 'logs 308006 --last 1h');
    expect(askedDates(bed, again)).toEqual([]);
    // Thirty seconds later the window has moved by as much: the same days, counted again.
    expect(second.summary).toContain('Origin errors · pull zone 308006 · last 1h');
    expect(second.fields['Rate now']).toMatch(/previous 1h/);
    expect(first.csv).toBeDefined();
  });

  it('reads only the compared hours of a kept day and still counts exactly what a download counts', async () => {
    const fromPlatform = await ask(bed, 'logs 308006 --last 2h');
    const before = lastSeq(bed);
    const fromKept = await ask(bed, 'logs 308006 --last 2h');
    expect(askedDates(bed, before)).toEqual([]);
    expect(fromKept.fields).toEqual(fromPlatform.fields);
    expect(fromKept.summary).toEqual(fromPlatform.summary);
    expect(fromKept.csv).toEqual(fromPlatform.csv);
    // The comparison with the day before is there, counted from yesterday's kept hours.
    expect(fromKept.summary).toContain('a day earlier');
  });

  it('names the error codes of the whole day when a filter matched nothing, as a download does', async () => {
    const entry = (id: string, at: string, code: string) => ({
      logId: id,
      timestamp: Date.parse(at),
      log: JSON.stringify({
        RequestUrl: '/a',
        PullZoneId: 308006,
        Message: 'm',
        ErrorCode: code,
        StatusCode: 502,
      }),
      labels: { ErrorCode: code, StatusCode: '502', ServerZone: 'DE' },
    });
    bed.sandbox.faults.set('logs.origin', {
      status: 200,
      body: {
        logs: [
          entry('a', '2026-11-10T03:00:00Z', 'rare_code'),
          entry('b', '2026-11-10T14:30:00Z', 'http_timeout'),
        ],
      },
    });
    const window = '--from 2026-11-10T14:00Z --to 2026-11-10T15:00Z';
    await ask(bed, `logs 308006 ${window}`);
    const before = lastSeq(bed);
    // rare_code is on the day, outside the hours counted: the day has it, the window does not.
    const records = await bed.run(`logs 308006 ${window} --code rare_code`, { channelId: freshChannel() });
    expect(askedDates(bed, before)).toEqual([]);
    const said = records.map((record) => JSON.stringify(record)).join('\n');
    expect(said).toContain('matched code rare_code');
    expect(said).not.toContain('has error code `rare_code`');
  });

  it("reads today again once its kept copy is older than a minute, and yesterday's never", async () => {
    await ask(bed, 'logs 308006 --last 1h');
    bed.clock.advance(59_000);
    let before = lastSeq(bed);
    await ask(bed, 'logs 308006 --last 1h');
    expect(askedDates(bed, before)).toEqual([]);

    bed.clock.advance(1_000);
    before = lastSeq(bed);
    await ask(bed, 'logs 308006 --last 1h');
    expect(askedDates(bed, before)).toEqual([pathDate(bed.clock())]);
  });

  it('keeps nothing of a download that fails, and asks the platform again', async () => {
    const day = '2026-11-14';
    bed.sandbox.faults.set('logs.origin', { truncate: true });
    const records = await bed.run(`logs 308006 ${day}`, { channelId: freshChannel() });
    expect(records.length).toBeGreaterThan(0);
    const keptAfterFailure = bed.runtime.services.keptDays.keptBytes();
    const leftovers = readdirSync(bed.config.logCache.dir).filter((name) => name.endsWith('.part'));
    expect(leftovers).toEqual([]);

    bed.sandbox.faults.clear();
    const before = lastSeq(bed);
    await ask(bed, `logs 308006 ${day}`);
    expect(askedDates(bed, before)).toContain(pathDate(Date.parse(day)));
    expect(bed.runtime.services.keptDays.keptBytes()).toBeGreaterThan(keptAfterFailure);
  });

  it('keeps each file readable by the bot alone, in a folder only it can open', async () => {
    await ask(bed, 'logs 308006 --last 1h');
    const { dir } = bed.config.logCache;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
  });
});

describe('the bound on the days kept', () => {
  let bed: EngineTestbed;
  const zone = 308006;
  /** Three past days of about 290 KB each: the bound holds two of them. */
  const days = ['2026-11-10', '2026-11-11', '2026-11-12'].map((day) => Date.parse(day));
  beforeAll(async () => {
    bed = await startEngineTestbed({ env: { EDGEOPS_LOG_CACHE: '700KB' } });
    bed.clock.set(AT);
    bed.sandbox.knobs.setLogDay(zone, 1_000);
  });
  afterAll(async () => {
    await bed?.close();
  });

  /** Reads a day through the kept days as a summary does; returns whether the platform was asked. */
  async function read(dayMs: number): Promise<boolean> {
    const before = lastSeq(bed);
    const day = await bed.runtime.services.keptDays.open(zone, dayMs);
    for await (const chunk of day.body) expect(chunk.byteLength).toBeGreaterThan(0);
    return askedDates(bed, before).length > 0;
  }

  it('lets the least recently read day go first, and never holds more than the bound', async () => {
    expect(await read(days[0]!)).toBe(true);
    const oneDay = bed.runtime.services.keptDays.keptBytes();
    expect(oneDay).toBeGreaterThan(700 * 1024 * (1 / 3));
    expect(oneDay * 2).toBeLessThanOrEqual(700 * 1024);
    expect(await read(days[1]!)).toBe(true);
    // The first is read again: the second is now the least recently read.
    expect(await read(days[0]!)).toBe(false);
    expect(await read(days[2]!)).toBe(true);
    expect(bed.runtime.services.keptDays.keptBytes()).toBeLessThanOrEqual(700 * 1024);
    expect(readdirSync(bed.config.logCache.dir)).toHaveLength(2);

    expect(await read(days[0]!)).toBe(false);
    expect(await read(days[2]!)).toBe(false);
    expect(await read(days[1]!)).toBe(true);
  });
});

describe('the folder of the kept days', () => {
  it('is swept of what a stopped process left at start, and removed at stop', async () => {
    const dir = join(tmpdir(), `edgeops-log-cache-test-${process.pid}-${++channels}`);
    mkdirSync(dir, { recursive: true });
    // A process id no process has (above the kernel's pid_max).
    const left = join(dir, 'edgeops-99999999-abcdef-308006-2026-11-20-1.json');
    // A process that had this one's id before it (a container restarted keeps its folders and its ids).
    const leftUnderOurId = join(dir, `edgeops-${process.pid}-abcdef-308006-2026-11-19-1.json`);
    const someoneElses = join(dir, 'notes.txt');
    writeFileSync(left, '{"logs":[]}');
    writeFileSync(leftUnderOurId, '{"logs":[]}');
    writeFileSync(someoneElses, 'not ours');
    const bed = await startEngineTestbed({ env: { EDGEOPS_LOG_CACHE_DIR: dir } });
    try {
      expect(existsSync(left)).toBe(false);
      expect(existsSync(leftUnderOurId)).toBe(false);
      bed.clock.set(AT);
      await bed.run('logs 308006 --last 1h', { channelId: freshChannel() });
      expect(readdirSync(dir).filter((name) => name.endsWith('.json'))).toHaveLength(2);
    } finally {
      await bed.close();
    }
    // What the bot kept is gone; a file it did not make stays, and so does its folder.
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    rmSync(dir, { recursive: true, force: true });

    const empty = join(tmpdir(), `edgeops-log-cache-test-${process.pid}-${++channels}`);
    const other = await startEngineTestbed({ env: { EDGEOPS_LOG_CACHE_DIR: empty } });
    other.clock.set(AT);
    await other.run('logs 308006 --last 1h', { channelId: freshChannel() });
    expect(readdirSync(empty).length).toBeGreaterThan(0);
    await other.close();
    expect(existsSync(empty)).toBe(false);
  });
});

describe('the folder of kept days', () => {
  it('that cannot be made keeps nothing, says so once, and the answers still come', async () => {
    const blocker = join(tmpdir(), `edgeops-log-cache-blocker-${process.pid}`);
    writeFileSync(blocker, 'a file where the folder would go');
    const other = await startEngineTestbed({ env: { EDGEOPS_LOG_CACHE_DIR: join(blocker, 'cache') } });
    try {
      other.clock.set(AT);
      const records = await other.run('logs 308006 --last 1h', { channelId: freshChannel() });
      expect(wordsOf(headlineIn(records))).toContain('origin errors');
      expect(other.logs.filter((line) => line.includes('will not be kept on disk'))).toHaveLength(1);
      expect(other.logs.filter((line) => line.includes('cannot be kept'))).toEqual([]);
    } finally {
      await other.close();
      rmSync(blocker, { force: true });
    }
  });

  it('is made again when a stopping replica removes it while it is being made', async () => {
    const dir = join(tmpdir(), `edgeops-log-cache-race-${process.pid}`);
    let chmods = 0;
    const fs = {
      mkdir,
      // The first chmod finds the folder gone: another replica removed it, empty, as it stopped.
      chmod: async (path: string, mode: number) => {
        if (++chmods === 1) {
          rmSync(dir, { recursive: true, force: true });
          throw Object.assign(new Error(`ENOENT: no such file or directory, chmod '${path}'`), {
            code: 'ENOENT',
          });
        }
        return chmod(path, mode);
      },
    } as unknown as Parameters<typeof makeKeptFolder>[1];
    try {
      await makeKeptFolder(dir, fs);
      expect(chmods).toBe(2);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
