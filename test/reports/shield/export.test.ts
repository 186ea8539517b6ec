import { once } from 'node:events';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOST_HEADER_COLUMNS } from '../../../src/reports/csv/columns.js';
import { neutraliseFormula, safeCsvOptions } from '../../../src/reports/csv/safety.js';
import { writeShieldExportCsv } from '../../../src/reports/shield/export.js';
import {
  createFileScrub,
  type FileSecretForms,
  fileSecretForms,
  fileStamp,
} from '../../../src/secrets/file-scrub.js';
import { SecretRegistry } from '../../../src/secrets/registry.js';
import { exists, inPieces, useReportScratch } from '../support.js';

const HEADER = ['timestamp', 'ruleId', 'action', 'ip', 'url', 'userAgent'];
const ROWS = [
  ['2026-11-21T14:00:01.000Z', '941100', 'Block', '203.0.113.9', '/search?q=a,b', 'Mozilla/5.0 "quoted"'],
  ['2026-11-21T14:00:02.000Z', '942100', 'Log', '198.51.100.7', '/two\r\nlines', 'curl/8.4'],
  ['2026-11-21T14:00:03.000Z', '=HYPERLINK("http://evil.example","x")', '+1', '-2', '@x', '\tx'],
  ['2026-11-21T14:00:04.000Z', 'rl-1042', '\rx', '192.0.2.1', '', 'ünïcødé 🚀'],
];

/** The platform's CSV: raw cells, formulas included, cut into small pieces. */
function platformCsv(rows: string[][], pieceBytes = 13): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(
    stringify([HEADER, ...rows], { record_delimiter: '\r\n', quote_record_delimiter: true }),
  );
  return inPieces(bytes, pieceBytes);
}

const { pool: reportPool, csvPath } = useReportScratch('export');

describe('passing the Shield export through to a file', () => {
  it('keeps every row and cell, quotes, commas and line breaks included, and neutralises formulas', async () => {
    const path = csvPath();
    const result = await writeShieldExportCsv({ source: platformCsv(ROWS), path, pool: reportPool() });
    const text = await readFile(path, 'utf8');
    expect(result).toMatchObject({ rows: 4, bytes: Buffer.byteLength(text) });
    const back = parse(text) as string[][];
    expect(back[0]).toEqual(HEADER);
    expect(back[1]).toEqual(ROWS[0]);
    expect(back[2]).toEqual(ROWS[1]);
    expect(back[3]).toEqual([
      '2026-11-21T14:00:03.000Z',
      `'=HYPERLINK("http://evil.example","x")`,
      "'+1",
      "'-2",
      "'@x",
      "'\tx",
    ]);
    expect(back[4]).toEqual(['2026-11-21T14:00:04.000Z', 'rl-1042', "'\rx", '192.0.2.1', '', 'ünïcødé 🚀']);
    expect(text.split('\r\n').slice(0, 1)).toEqual([HEADER.join(',')]);
  });

  it('brings back the summary counted in the same pass, matching the file it wrote', async () => {
    const path = csvPath();
    const result = await writeShieldExportCsv({ source: platformCsv(ROWS), path, pool: reportPool() });
    const [, ...rows] = parse(await readFile(path)) as string[][];
    expect(result.summary.events).toBe(rows.length);
    expect(result.summary.columns).toEqual({
      timestamp: 'timestamp',
      ruleId: 'ruleId',
      action: 'action',
      ip: 'ip',
    });
    expect(result.summary.byAction?.values).toEqual(
      rows.map((row) => ({ value: row[2], count: 1 })).sort((a, b) => (a.value! < b.value! ? -1 : 1)),
    );
    expect(result.summary.byRule?.rules.map((rule) => rule.id).sort()).toEqual(
      rows.map((row) => row[1]).sort(),
    );
    expect(result.summary.timeline).toMatchObject({ counts: [4], bucketMs: 60_000, untimed: 0 });
  });

  it('drops a byte-order mark and passes ragged rows through', async () => {
    const path = csvPath();
    const source = Readable.from([Buffer.from('\uFEFFa,b\r\n1,2,3\r\n4\r\n')]);
    expect(await writeShieldExportCsv({ source, path, pool: reportPool() })).toMatchObject({ rows: 2 });
    expect(await readFile(path, 'utf8')).toBe('a,b\r\n1,2,3\r\n4\r\n');
  });

  it('writes an empty file for an empty export', async () => {
    const path = csvPath();
    expect(await writeShieldExportCsv({ source: Readable.from([]), path, pool: reportPool() })).toEqual({
      rows: 0,
      bytes: 0,
      summary: { events: 0, columns: {} },
    });
  });

  it('refuses a body that is not CSV, says where, and leaves no file behind', async () => {
    const path = csvPath();
    const source = inPieces(Buffer.from(`a,b\r\n${'1,2\r\n'.repeat(10_000)}"never closed,2\r\n`), 4096);
    await expect(writeShieldExportCsv({ source, path, pool: reportPool() })).rejects.toMatchObject({
      kind: 'invalid-response',
      operation: 'shield.export',
      userMessage:
        'The Shield export is not a readable CSV file: record 10,002 opens a quote that is never closed. Try again; if it persists, report it with the correlation id.',
    });
    expect(await exists(path)).toBe(false);
  });

  it('refuses a header wider than a spreadsheet, within the record bound, before it fills the thread', async () => {
    // 3.5 million names in 7 MB: as strings they once took the worker past its heap.
    const path = csvPath();
    const source = inPieces(Buffer.from(`${'c,'.repeat(3_500_000)}x\r\n1,2\r\n`), 64 * 1024);
    await expect(writeShieldExportCsv({ source, path, pool: reportPool() })).rejects.toMatchObject({
      kind: 'invalid-response',
      userMessage:
        'The Shield export is not a readable CSV file: record 1 (the header) has more than 16,384 columns, more than a spreadsheet opens. Try again; if it persists, report it with the correlation id.',
    });
    expect(await exists(path)).toBe(false);
    // As wide as a spreadsheet goes is read.
    const widest = `${Array.from({ length: MOST_HEADER_COLUMNS }, (_, i) => `c${i}`).join(',')}\r\n1,2\r\n`;
    const result = await writeShieldExportCsv({
      source: inPieces(Buffer.from(widest), 4096),
      path,
      pool: reportPool(),
    });
    expect(result.rows).toBe(1);
  });

  it('refuses a UTF-16 export rather than writing it as something else', async () => {
    const path = csvPath();
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\r\n=1,2\r\n', 'utf16le')]);
    await expect(
      writeShieldExportCsv({ source: Readable.from([utf16]), path, pool: reportPool() }),
    ).rejects.toMatchObject({ kind: 'invalid-response', userMessage: expect.stringMatching(/UTF-16/) });
    expect(await exists(path)).toBe(false);
  });

  it.each([
    ['pieces of an async iterable', false],
    ["a byte stream's events, as a platform body is read", true],
  ])(
    'writes a multi-megabyte export exactly as parse, neutralise and stringify would, batch after batch, from %s',
    async (_, byEvents) => {
      const many = Array.from({ length: 40_000 }, (_, i) => [
        `2026-11-21T14:00:${String(i % 60).padStart(2, '0')}.000Z`,
        i % 7 === 0 ? '=HYPERLINK("http://evil.example","x")' : `r${i}`,
        ['Block', 'Log', '-Challenge'][i % 3]!,
        `203.0.113.${i % 256}`,
        i % 5 === 0 ? `/search?q=${i},"quoted"\r\nline` : `/p/${i}`,
        i % 11 === 0 ? '@sqlmap' : 'Mozilla/5.0 ünï',
      ]);
      const path = csvPath();
      const pieces = platformCsv(many, 60_000);
      const result = await writeShieldExportCsv({
        source: byEvents ? Readable.from(pieces, { objectMode: false }) : pieces,
        path,
        pool: reportPool(),
      });
      const expected = stringify(
        [HEADER, ...many].map((row) => row.map(neutraliseFormula)),
        safeCsvOptions(),
      );
      expect(result.rows).toBe(40_000);
      expect((await readFile(path)).equals(Buffer.from(expected))).toBe(true);
    },
  );

  it('counts the bot’s secrets in the file as it writes it, as the upload would count the file', async () => {
    const secrets = new SecretRegistry();
    // One a cell holds as it is, one the file quotes (its `"` doubled), one a formula's `'` comes before.
    const plain = 't13d1516h2_8daaf6152771_02713d6af862';
    const quoted = 'tok"en-0123456789-abcdef';
    const formula = '=secret-formula-0123456789';
    secrets.add(plain, quoted, formula);
    const many = Array.from({ length: 3_000 }, (_, i) => [
      '2026-11-21T14:00:00.000Z',
      i % 7 === 0 ? formula : `r${i}`,
      'Block',
      '1.2.3.4',
      i % 5 === 0 ? `/p?k=${plain}` : `/p/${i}`,
      i % 11 === 0 ? quoted : 'ua',
    ]);
    const path = csvPath();
    // No line break after the last row: the guard's last write is its end's, after the body.
    const body = Buffer.from(stringify([HEADER, ...many], { record_delimiter: '\r\n' })).subarray(0, -2);
    const result = await writeShieldExportCsv({
      source: inPieces(body, 997),
      path,
      pool: reportPool(),
      secrets: fileSecretForms(secrets),
    });
    const file = await readFile(path);
    const byFile = await createFileScrub(secrets).count(path);
    const expected = 429 + 600 + 273;
    expect(byFile.masked).toBe(expected);
    expect(result.secretCount).toEqual({
      ...byFile,
      fileBytes: file.length,
      generation: secrets.generation,
      stamp: fileStamp(await stat(path, { bigint: true })),
    });
    // Taken by the upload as it is.
    expect(await createFileScrub(secrets).count(path, { ...result.secretCount!, masked: 1 })).toMatchObject({
      masked: 1,
    });
    // Without the secrets, nothing is counted: the upload reads the file.
    const alone = await writeShieldExportCsv({
      source: platformCsv(many, 997),
      path: csvPath(),
      pool: reportPool(),
    });
    expect(alone.secretCount).toBeUndefined();
  });

  it('written over a longer file, leaves the CSV alone in it, and counts the file as cut', async () => {
    const path = csvPath();
    await writeFile(path, 'an older and longer text\r\n'.repeat(400));
    const secrets = new SecretRegistry();
    secrets.add('sk_live_0123456789abcdef0123');
    const result = await writeShieldExportCsv({
      source: platformCsv(ROWS),
      path,
      pool: reportPool(),
      secrets: fileSecretForms(secrets),
    });
    const text = await readFile(path, 'utf8');
    expect(result.bytes).toBe(Buffer.byteLength(text));
    expect(text).not.toContain('older');
    expect(parse(text)).toHaveLength(ROWS.length + 1);
    // The stamp is the file's after the cut: the upload takes the count as it is.
    expect(result.secretCount?.stamp).toEqual(fileStamp(await stat(path, { bigint: true })));
  });

  it('creates a file that is not there this user’s alone', async () => {
    const path = csvPath();
    await writeShieldExportCsv({ source: platformCsv(ROWS), path, pool: reportPool() });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses secrets that are not forms and their masks, and writes nothing', async () => {
    const path = csvPath();
    const secrets = { generation: 1, forms: [{ form: 5, masked: '[redacted …x]' }] };
    await expect(
      writeShieldExportCsv({
        source: platformCsv(ROWS),
        path,
        pool: reportPool(),
        secrets: secrets as unknown as FileSecretForms,
      }),
    ).rejects.toThrow("an export task's secrets need a generation and forms");
    expect(await exists(path)).toBe(false);
  });

  it('reports progress in body bytes and rows', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => [
      `2026-11-21T14:00:00.000Z`,
      `r${i}`,
      'Block',
      '1.2.3.4',
      `/p/${i}`,
      'ua',
    ]);
    const seen: { bytes: number; rows: number }[] = [];
    const result = await writeShieldExportCsv({
      source: platformCsv(many, 64 * 1024),
      path: csvPath(),
      pool: reportPool(),
      onProgress: (progress) => seen.push(progress),
    });
    expect(result.rows).toBe(20_000);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)!.rows).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes);
      expect(seen[i]!.rows).toBeGreaterThanOrEqual(seen[i - 1]!.rows);
    }
  });
});

describe('a platform body read by its events', () => {
  /** A byte stream of `rows` (the header first) made as it is read; `made`: bytes made so far. */
  function madeOnDemand(row: string, rows: number) {
    const state = { made: 0, sent: 0 };
    const block = Buffer.from(row.repeat(500));
    const stream = new Readable({
      read() {
        if (state.sent === 0) {
          state.sent++;
          this.push(`${HEADER.join(',')}\r\n`);
          return;
        }
        if (state.sent > rows / 500) return void this.push(null);
        state.sent++;
        state.made += block.length;
        this.push(block);
      },
    });
    return { stream, state };
  }

  it('reads no further ahead of the worker than its batches in flight', async () => {
    const row = `${stringify([ROWS[0]!], { record_delimiter: '\r\n' })}`;
    const { stream, state } = madeOnDemand(row, 400_000);
    let lead = 0;
    const result = await writeShieldExportCsv({
      source: stream,
      path: csvPath(),
      pool: reportPool(),
      // Each credit: what the body made beyond what the worker was handed.
      onProgress: ({ bytes }) => {
        lead = Math.max(lead, state.made - bytes);
      },
    });
    expect(result.rows).toBe(400_000);
    expect(state.made).toBeGreaterThan(30 * 1024 * 1024);
    // Two batches in flight, one being gathered, and the stream's own buffer.
    expect(lead).toBeLessThan(4 * 1024 * 1024);
  });

  it('stops reading the body when the worker refuses it early, and says why', async () => {
    const { stream, state } = madeOnDemand('"never closed,2\r\n', 400_000);
    await expect(
      writeShieldExportCsv({ source: stream, path: csvPath(), pool: reportPool() }),
    ).rejects.toMatchObject({ kind: 'invalid-response' });
    expect(stream.destroyed).toBe(true);
    expect(state.made).toBeLessThan(30 * 1024 * 1024);
  });
});

describe('cancelling an export', () => {
  let server: Server;
  let url: string;
  let closedEarly = 0;

  beforeAll(async () => {
    server = createServer((_, res) => {
      res.on('close', () => {
        if (!res.writableFinished) closedEarly++;
      });
      const row = `${stringify([ROWS[0]!, ROWS[2]!], { record_delimiter: '\r\n' })}`;
      let sent = 0;
      // About 40 MB, written as fast as the client reads.
      Readable.from(
        (function* () {
          yield `${HEADER.join(',')}\r\n`;
          while (sent++ < 200_000) yield row;
        })(),
      ).pipe(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/shield/event-logs/42/export`;
  });

  afterAll(() => {
    server.close();
  });

  it('stops the download and the worker, and deletes the partial file', async () => {
    const path = csvPath();
    const controller = new AbortController();
    const response = await request(url, { method: 'POST', signal: controller.signal });
    const copy = writeShieldExportCsv({
      source: response.body,
      path,
      pool: reportPool(),
      signal: controller.signal,
      onProgress: ({ bytes }) => {
        if (bytes > 2 * 1024 * 1024) controller.abort();
      },
    });
    await expect(copy).rejects.toMatchObject({ kind: 'aborted', operation: 'shield.export' });
    expect(await exists(path)).toBe(false);
    await expect.poll(() => closedEarly).toBe(1);
    const next = await writeShieldExportCsv({
      source: platformCsv(ROWS),
      path: csvPath(),
      pool: reportPool(),
    });
    expect(next.rows).toBe(4);
  });
});
