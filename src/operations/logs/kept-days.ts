/**
 * Origin-log day files kept on disk, so that asking again costs no download (PRODUCT §2:
 * `EDGEOPS_LOG_CACHE` bytes at most, in `EDGEOPS_LOG_CACHE_DIR`). Keyed by pull zone and UTC day.
 * A past day's body does not change; today's still grows, so a copy taken while its day was
 * still running is read again whole once it is a minute old. A body is written under a temporary
 * name as it streams and renamed once whole: a failed or cancelled download leaves nothing, and
 * no reader sees half a file. The least recently read copies go first past the bound. Names
 * carry the process id, as the temporary CSVs do: a start sweeps what a stopped process left, and
 * a stop removes this process's own.
 */
import { randomBytes } from 'node:crypto';
import { chmod, type FileHandle, mkdir, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlatformClient } from '../../platform/client.js';
import { processAlive } from '../../reports/csv/temp-file.js';
import { type OriginDayIndex, runsWithin } from '../../reports/origin/hours.js';
import { DAY_MS, MINUTE_MS, type OriginWindow } from '../../reports/origin/window.js';
import type { Logger } from '../../telemetry/log.js';
import type { Clock } from '../../time/clock.js';

/** How long a copy of a day still running answers before it is read again. */
export const TODAY_COPY_MS = MINUTE_MS;

const READ_BYTES = 64 * 1024;
/** `edgeops-PID-RUNTIME-ZONE-yyyy-MM-dd-N.json`, or `.part` while it is written. */
const KEPT_FILE = /^edgeops-(\d+)-[0-9a-f]{6}-\d+-\d{4}-\d\d-\d\d-\d+\.(json|part)$/;

/** One day's body, from the platform or from its kept copy. */
export interface OriginDayBody {
  body: AsyncIterable<Uint8Array>;
  source: 'kept' | 'platform';
  /** Set when only the runs of a kept day that hold the hours asked for are read: the whole day's elements. */
  part?: { entries: number };
  /** Notes where the day's hours lie, learnt by reading it whole; ignored once its copy is replaced. */
  indexed(index: OriginDayIndex): void;
  /** Drops the copy this body was read from or kept as (it was not the document it should be). */
  forget(): Promise<void>;
}

export interface OriginDayOpenOptions {
  signal?: AbortSignal;
  /** The only windows the reader counts: a kept day with an index is read for their hours alone. */
  only?: readonly OriginWindow[];
}

export interface KeptOriginDays {
  open(pullZoneId: number, dayMs: number, options?: OriginDayOpenOptions): Promise<OriginDayBody>;
  /** Bytes of the copies kept now. */
  keptBytes(): number;
  /** Removes every copy kept so far. */
  clear(): Promise<void>;
  /** Removes every copy and the folder when nothing else is in it. */
  close(): Promise<void>;
}

interface KeptCopy {
  path: string;
  bytes: number;
  /** When the download that made it started, by the clock. */
  keptAt: number;
  /** Made after its day had ended: it no longer changes. */
  final: boolean;
  index?: OriginDayIndex;
}

/**
 * The name prefixes of the tables open in this process. A file with this process's id and none of
 * them was left by an earlier process that had the same id (a restarted container keeps its
 * folders, and gives its process the same id again).
 */
const openPrefixes = new Set<string>();

/** Removes the copies in `dir` that `stale` picks, by the id of the process that kept them and their name. */
async function sweep(dir: string, stale: (pid: number, name: string) => boolean): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const pid = Number(KEPT_FILE.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || !stale(pid, name)) continue;
    await rm(join(dir, name), { force: true }).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/** Reads `[start, end)` ranges of an open file, each after `between`, then closes it. */
async function* readRanges(
  handle: FileHandle,
  ranges: readonly (readonly [number, number])[],
  wrap?: { before: string; between: string; after: string },
): AsyncGenerator<Uint8Array> {
  try {
    if (wrap) yield Buffer.from(wrap.before);
    for (const [n, [start, end]] of ranges.entries()) {
      if (wrap && n > 0) yield Buffer.from(wrap.between);
      for (let at = start; at < end; ) {
        const buffer = Buffer.allocUnsafe(Math.min(READ_BYTES, end - at));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
        if (bytesRead === 0) throw new Error('a kept origin-log day ended before its recorded length');
        at += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    }
    if (wrap) yield Buffer.from(wrap.after);
  } finally {
    await handle.close();
  }
}

/**
 * Makes the folder, only the bot's to read. Replicas on one host share the default folder, and one
 * that stops removes it when it is empty: made again when it vanishes while it is being made.
 */
export async function makeKeptFolder(
  dir: string,
  fs: { mkdir: typeof mkdir; chmod: typeof chmod } = { mkdir, chmod },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      await fs.chmod(dir, 0o700);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
    }
  }
}

/** The `.part` file a day is written to, made again once if its folder went meanwhile. */
async function openPart(temp: string, dir: string, logger: Logger): Promise<FileHandle | undefined> {
  return open(temp, 'wx', 0o600)
    .catch(async (error: unknown) => {
      // The folder went with a replica that stopped while it was empty: made again once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await makeKeptFolder(dir);
      return open(temp, 'wx', 0o600);
    })
    .catch((error: unknown) => {
      logger.warn('an origin-log day cannot be kept: its file could not be made', { error });
      return undefined;
    });
}

// One piece: the copies' table, and the reading, keeping and eviction that share it.
export async function createKeptOriginDays(options: {
  dir: string;
  maxBytes: number;
  now: Clock;
  logger: Logger;
  /** Where a day not kept, or kept while it was still running, is read from. */
  platform: Pick<PlatformClient, 'getOriginErrorLogs'>;
}): Promise<KeptOriginDays> {
  const { dir, maxBytes, now, logger } = options;
  // A folder the bot cannot make or own (another user's, a read-only disk) keeps nothing: the
  // answers are read from the platform as before, and the start goes on.
  const usable = await makeKeptFolder(dir).then(
    () => true,
    (error: unknown) => {
      logger.warn('origin-log days will not be kept on disk: their folder cannot be made', { dir, error });
      return false;
    },
  );
  const swept = await sweep(dir, (pid, name) =>
    pid === process.pid ? ![...openPrefixes].some((open) => name.startsWith(open)) : !processAlive(pid),
  );
  if (swept > 0) logger.info('removed origin-log copies left by a stopped process', { count: swept });

  /** In order of use, least recent first. */
  const copies = new Map<string, KeptCopy>();
  let total = 0;
  let generation = 0;
  let closed = false;

  // Several runtimes may share a process (tests) and a folder: each names its own files.
  const prefix = `edgeops-${process.pid}-${randomBytes(3).toString('hex')}-`;
  openPrefixes.add(prefix);
  const fileName = (pullZoneId: number, dayMs: number, suffix: string) =>
    join(dir, `${prefix}${pullZoneId}-${new Date(dayMs).toISOString().slice(0, 10)}-${suffix}`);

  const drop = async (key: string, copy: KeptCopy) => {
    if (copies.get(key) !== copy) return;
    copies.delete(key);
    total -= copy.bytes;
    await rm(copy.path, { force: true }).catch((error: unknown) =>
      logger.warn('a kept origin-log day could not be removed', { error }),
    );
  };

  const evict = async () => {
    for (const [key, copy] of copies) {
      if (total <= maxBytes) return;
      await drop(key, copy);
    }
  };

  const keep = async (key: string, temp: string, copy: KeptCopy) => {
    await rename(temp, copy.path);
    if (closed) {
      await rm(copy.path, { force: true });
      return;
    }
    const previous = copies.get(key);
    if (previous) await drop(key, previous);
    copies.set(key, copy);
    total += copy.bytes;
    await evict();
  };

  /** The body as it streams, written to a temporary file that is renamed once the body is whole. */
  async function* keeping(
    body: AsyncIterable<Uint8Array>,
    key: string,
    copy: Omit<KeptCopy, 'bytes'>,
    made: (copy: KeptCopy) => void,
  ): AsyncGenerator<Uint8Array> {
    const temp = `${copy.path.slice(0, -'.json'.length)}.part`;
    let file = closed || !usable ? undefined : await openPart(temp, dir, logger);
    let bytes = 0;
    let whole = false;
    try {
      // The answer reads on whatever happens to the copy: it is kept only if it can be whole.
      const stopKeeping = async () => {
        await file?.close().catch(() => undefined);
        file = undefined;
        await rm(temp, { force: true }).catch(() => undefined);
      };
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        // Larger than the whole bound: nothing to keep.
        if (file && bytes > maxBytes) await stopKeeping();
        if (file)
          await file.writeFile(chunk).catch(async (error: unknown) => {
            logger.warn('an origin-log day could not be kept', { error });
            await stopKeeping();
          });
        yield chunk;
      }
      whole = true;
    } finally {
      if (file) {
        await file.close().catch(() => undefined);
        const kept = { ...copy, bytes };
        if (whole && !closed)
          await keep(key, temp, kept).then(
            () => made(kept),
            (error: unknown) => logger.warn('an origin-log day could not be kept', { error }),
          );
        await rm(temp, { force: true }).catch(() => undefined);
      }
    }
  }

  const fresh = (copy: KeptCopy) => copy.final || now() - copy.keptAt < TODAY_COPY_MS;

  /** The kept copy's body, or undefined when its file is gone. */
  const fromCopy = async (
    key: string,
    copy: KeptCopy,
    only: readonly OriginWindow[] | undefined,
  ): Promise<OriginDayBody | undefined> => {
    const handle = await open(copy.path, 'r').catch(() => undefined);
    if (!handle) {
      await drop(key, copy);
      return undefined;
    }
    // Read now: the least recently read copies go first.
    copies.delete(key);
    copies.set(key, copy);
    const { index } = copy;
    const runs = index && only ? runsWithin(index, only) : undefined;
    const partial = index && runs && runs.length < index.runs.length;
    return {
      body: partial
        ? readRanges(handle, runs, { before: '{"logs":[', between: ',', after: ']}' })
        : readRanges(handle, [[0, copy.bytes]]),
      source: 'kept',
      ...(partial ? { part: { entries: index.entries } } : {}),
      indexed: (found) => {
        if (copies.get(key) === copy && found.bytes === copy.bytes) copy.index = found;
      },
      forget: () => drop(key, copy),
    };
  };

  return {
    async open(pullZoneId, dayMs, openOptions = {}) {
      const key = `${pullZoneId}/${dayMs}`;
      const copy = copies.get(key);
      if (copy && fresh(copy)) {
        const body = await fromCopy(key, copy, openOptions.only);
        if (body) return body;
      }
      const keptAt = now();
      const response = await options.platform.getOriginErrorLogs(pullZoneId, new Date(dayMs), {
        signal: openOptions.signal,
      });
      let made: KeptCopy | undefined;
      return {
        body: keeping(
          response.body,
          key,
          {
            path: fileName(pullZoneId, dayMs, `${++generation}.json`),
            keptAt,
            final: keptAt >= dayMs + DAY_MS,
          },
          (kept) => {
            made = kept;
          },
        ),
        source: 'platform',
        indexed: (found) => {
          if (made && copies.get(key) === made && found.bytes === made.bytes) made.index = found;
        },
        forget: async () => {
          if (made) await drop(key, made);
        },
      };
    },
    keptBytes: () => total,
    async clear() {
      await Promise.all([...copies].map(([key, copy]) => drop(key, copy)));
    },
    async close() {
      closed = true;
      copies.clear();
      total = 0;
      await sweep(dir, (_pid, name) => name.startsWith(prefix));
      openPrefixes.delete(prefix);
      // The folder goes when nothing else is in it (it may be one the operator named).
      await rmdir(dir).catch(() => undefined);
    },
  };
}
