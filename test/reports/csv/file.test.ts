import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import {
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CsvFileWriter } from '../../../src/reports/csv/file.js';
import { CSV_WRITE_FLAGS, cutToWritten, temporaryCsvPath } from '../../../src/reports/csv/temp-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The files of `dir` this process holds open (Linux's /proc). */
function openFilesIn(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd));
      return target.startsWith(`${dir}/`) ? [target] : [];
    } catch {
      return [];
    }
  });
}

/** A writer that wrote `texts` to `path` and was closed. */
async function written(path: string, ...texts: (string | Buffer)[]): Promise<CsvFileWriter> {
  const writer = new CsvFileWriter(path);
  for (const text of texts) await writer.write(text);
  await writer.close();
  return writer;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-csv-file-'));
  dirs.push(dir);
  return dir;
}

describe('a CSV file as it is written', () => {
  it('is opened to be created when missing and never truncated: ext4 writes a truncated file out at its close', () => {
    expect(CSV_WRITE_FLAGS & constants.O_TRUNC).toBe(0);
    expect(CSV_WRITE_FLAGS & constants.O_CREAT).toBe(constants.O_CREAT);
    expect(CSV_WRITE_FLAGS & constants.O_APPEND).toBe(0);
    expect(CSV_WRITE_FLAGS & constants.O_NOFOLLOW).toBe(constants.O_NOFOLLOW);
    expect(CSV_WRITE_FLAGS & constants.O_NONBLOCK).toBe(constants.O_NONBLOCK);
  });

  it('fills temporaryCsvPath’s empty file, which stays this user’s alone', async () => {
    const path = temporaryCsvPath();
    try {
      const writer = await written(path, 'a,b\r\n', Buffer.from('1,2\r\n'));
      expect(readFileSync(path, 'utf8')).toBe('a,b\r\n1,2\r\n');
      expect(writer.bytesWritten).toBe(10);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('creates a file that is not there, this user’s alone: a temporary file a cleaner removed comes back private', async () => {
    const path = join(scratch(), 'new.csv');
    await written(path, 'x\r\n');
    expect(readFileSync(path, 'utf8')).toBe('x\r\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const removed = temporaryCsvPath();
    try {
      rmSync(removed);
      await written(removed, 'y\r\n');
      expect(statSync(removed).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(removed, { force: true });
    }
  });

  it('closing or writing, and discarded meanwhile, fails at once instead of waiting for ever', async () => {
    const writer = new CsvFileWriter(join(scratch(), 'raced.csv'));
    await writer.write('a\r\n'.repeat(100_000));
    const closing = expect(writer.close()).rejects.toThrow(
      'the CSV file was discarded before it was written',
    );
    await writer.discard();
    await closing;
    // Discarded before it was open, then closed.
    const early = new CsvFileWriter(join(scratch(), 'early.csv'));
    await early.discard();
    await expect(early.close()).rejects.toThrow('the CSV file was discarded before it was written');
    // A write waiting for the disk.
    const waiting = new CsvFileWriter(join(scratch(), 'waiting.csv'));
    const writing = expect(waiting.write('b'.repeat(8 * 1024 * 1024))).rejects.toThrow(
      'the CSV file was discarded before it was written',
    );
    await waiting.discard();
    await writing;
    await expect(waiting.write('c')).rejects.toThrow('the CSV file was discarded before it was written');
  });

  it('is never written through a link planted at its path', async () => {
    const dir = scratch();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'not a CSV\n');
    const path = join(dir, 'linked.csv');
    symlinkSync(victim, path);
    const writer = new CsvFileWriter(path);
    await expect(writer.write('x\r\n')).rejects.toMatchObject({ code: 'ELOOP' });
    await writer.discard();
    expect(readFileSync(victim, 'utf8')).toBe('not a CSV\n');
  });

  it('is not opened, nor waited on, where a FIFO was planted at its path', async () => {
    const path = join(scratch(), 'fifo.csv');
    execFileSync('mkfifo', [path]);
    const writer = new CsvFileWriter(path);
    await expect(writer.write('x\r\n')).rejects.toMatchObject({ code: 'ENXIO' });
    await writer.discard();
  });

  it('discarded while many writes wait, refuses every later write and its close the same way', async () => {
    const writer = new CsvFileWriter(join(scratch(), 'many.csv'));
    const signal = new AbortController().signal;
    await writer.write('open\r\n', signal);
    const writes = Promise.allSettled(
      Array.from({ length: 30 }, () => writer.write('d'.repeat(256 * 1024), signal)),
    );
    await writer.discard();
    const settled = await writes;
    expect(settled.some((result) => result.status === 'rejected')).toBe(true);
    await expect(writer.write('e')).rejects.toThrow('the CSV file was discarded before it was written');
    await expect(writer.close()).rejects.toThrow('the CSV file was discarded before it was written');
    // The caller's signal keeps no listener of the writes.
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('aborted by its caller while a write waits, rejects with the caller’s abort', async () => {
    const writer = new CsvFileWriter(join(scratch(), 'aborted.csv'));
    const controller = new AbortController();
    const writing = expect(
      writer.write('f'.repeat(8 * 1024 * 1024), controller.signal),
    ).rejects.toMatchObject({
      name: 'AbortError',
      cause: { message: 'the user cancelled' },
    });
    controller.abort(new Error('the user cancelled'));
    await writing;
    await writer.discard();
  });

  it('that the disk refuses fails its write or its close with the reason', async () => {
    const writer = new CsvFileWriter('/dev/full');
    const failed = (async () => {
      await writer.write('a\r\n'.repeat(1_000_000));
      await writer.close();
    })();
    await expect(failed).rejects.toMatchObject({ code: 'ENOSPC' });
    await writer.discard();
  });

  it('written over a longer file, ends as the CSV alone', async () => {
    const path = join(scratch(), 'old.csv');
    writeFileSync(path, 'an older and longer text\r\n'.repeat(100));
    await written(path, 'a,b\r\n');
    expect(readFileSync(path, 'utf8')).toBe('a,b\r\n');

    await written(path);
    expect(statSync(path).size).toBe(0);
  });

  it('that cannot be opened fails its first write with the reason, and is discarded quietly', async () => {
    const path = join(scratch(), 'missing-folder', 'x.csv');
    const writer = new CsvFileWriter(path);
    await expect(writer.write('a\r\n')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writer.close()).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(writer.discard()).resolves.toBeUndefined();
  });

  it('leaves no descriptor open once it is closed or discarded', async () => {
    const dir = scratch();
    const closed = join(dir, 'closed.csv');
    const writer = new CsvFileWriter(closed);
    await writer.write('a\r\n');
    expect(openFilesIn(dir)).toEqual([closed]);
    await writer.close();
    const discarded = join(dir, 'discarded.csv');
    const dropped = new CsvFileWriter(discarded);
    await dropped.write('a\r\n'.repeat(1_000_000));
    await dropped.discard();
    await dropped.discard();
    const unwritten = new CsvFileWriter(join(dir, 'unwritten.csv'));
    await unwritten.discard();
    expect(openFilesIn(dir)).toEqual([]);
  });

  it('written by a handle (the Shield export’s), is cut to what was written', async () => {
    const path = join(scratch(), 'handle.csv');
    writeFileSync(path, 'x'.repeat(64));
    const file = await open(path, CSV_WRITE_FLAGS);
    try {
      await file.write('abc');
      await cutToWritten(file, 3);
      await cutToWritten(file, 3);
    } finally {
      await file.close();
    }
    expect(readFileSync(path, 'utf8')).toBe('abc');
  });
});
