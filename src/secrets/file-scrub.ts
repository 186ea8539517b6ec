/**
 * Every file the bot sends passes the secret registry, as every text does (PRODUCT §6): each
 * form of each secret in its bytes is replaced with the registry's masked form (`[redacted …wxyz]`).
 *
 * It works on bytes, chunk by chunk, so a 200 MB export is scrubbed with flat memory: the last
 * bytes of a chunk that could begin a secret are carried over to the next one, so a secret split
 * across two chunks is still caught. Secrets are found with one multi-pattern search (Wu–Manber:
 * a shift table over blocks of three bytes) rather than one scan per secret, so the cost does not grow
 * with the number of secrets the bot holds. Its inner loop, the moves of the table, runs in
 * WebAssembly (shift-scan.wat) over a copy of a slab of the bytes at a time, two runs of moves
 * at once (one from each half of the slab): 200 MB in about 40 ms, against 52 ms one run at a
 * time and 150 ms in JavaScript, which remains where WebAssembly cannot run. Matches are taken
 * leftmost first, the longest form where several start at the same byte.
 *
 * A file the bot writes itself can have its secrets counted as it is written, in the thread that
 * writes it (FileSecretCounter, with the registry's secrets of one moment: FileSecretForms), so
 * that its upload need not read it back: the upload takes that count while the registry holds
 * the same secrets and the file is unchanged since (fileStamp), and reads the file otherwise.
 */
import type { BigIntStats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import type { SecretRegistry } from './registry.js';
import { wasmBytes } from './shift-scan-wasm.js';

/** One read of a file being counted: large enough that reading costs less than searching. */
const READ_BYTES = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** Bytes the shift table looks at together: with three, text rarely looks like a secret's start. */
const BLOCK = 3;

/** Three bytes hashed into the shift table's 16 bits; a collision only shortens a shift (shift-scan.wat). */
const blockKey = (a: number, b: number, c: number): number => ((a << 10) ^ (b << 5) ^ c) & 0xffff;

/** The longest shift the table holds (a byte): a shorter move than the table allows is always safe. */
const MOST_SHIFT = 0xff;

/** Where the WebAssembly scan reads the bytes searched (shift-scan.wat), and how many at a time. */
const SLAB_AT = 64 * 1024;
/** A slab and its copy stay in a core's cache (256 KiB measured faster than 1 MiB). */
export const SCAN_SLAB = 256 * 1024;

interface ShiftScanExports {
  memory: { buffer: ArrayBuffer };
  scan(end: number, stop: number): number;
  /**
   * As `scan`, two runs of moves at a time: a block of shift 0 with no secret's window ending
   * between `end` and it, or a position at or past `stop` (shift-scan.wat).
   */
  scanPaired(end: number, stop: number): number;
}

/** What this file uses of WebAssembly: Node has it all, the project's type libraries (no DOM) do not declare it. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/**
 * The thread's WebAssembly scan (V8 reserves gigabytes of address space for each memory, so one
 * serves every matcher of the thread): its memory, and whose shift table is in it.
 */
interface ShiftScanner {
  bytes: Uint8Array;
  scan: ShiftScanExports['scan'];
  /** Which matcher's shift table is in (its id: the matcher itself is not kept alive by it). */
  tableOf: number;
  /** Slabs copied in so far: a search that sees this change under it copies its slab again. */
  loads: number;
  /** Where the bytes copied in since the last wipe end: what wipe() clears. */
  dirtyTo: number;
}

/** Made on first use; null where WebAssembly cannot run here (`--jitless`, an address-space limit). */
let sharedScanner: ShiftScanner | null | undefined;

/** The thread's WebAssembly memory where searches copy their bytes, undefined before one did (for tests). */
export const scanSlabForTests = (): Uint8Array | undefined =>
  sharedScanner?.bytes.subarray(SLAB_AT, SLAB_AT + SCAN_SLAB);

function shiftScanner(): ShiftScanner | null {
  if (sharedScanner !== undefined) return sharedScanner;
  sharedScanner = null;
  const wasm = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return sharedScanner;
  try {
    const exports = new wasm.Instance(new wasm.Module(wasmBytes)).exports as ShiftScanExports;
    sharedScanner = {
      bytes: new Uint8Array(exports.memory.buffer),
      scan: exports.scanPaired,
      tableOf: 0,
      loads: 0,
      dirtyTo: SLAB_AT,
    };
  } catch {
    // No room for its memory: the search runs in JavaScript.
  }
  return sharedScanner;
}

/**
 * Where the window that ends at `end` first ends on a block whose shift is 0, before `stop`; at or
 * past `stop` when it does not: what shift-scan.wat does, where WebAssembly cannot run.
 */
function scanInJs(bytes: Uint8Array, shift: Uint8Array, end: number, stop: number): number {
  let at = end;
  while (at < stop) {
    const step = shift[blockKey(bytes[at - 2]!, bytes[at - 1]!, bytes[at]!)]!;
    if (step === 0) return at;
    at += step;
  }
  return at;
}

/** Matchers made in this thread so far: each one's id. */
let matchers = 0;

/** The bot's secrets as bytes, found together in one pass. */
class SecretMatcher {
  /** Every form to mask, longest first. */
  readonly patterns: Buffer[];
  /** What takes the place of each pattern. */
  readonly masks: Buffer[];
  /** The longest pattern: a match decided at a byte needs this many bytes from it. */
  readonly longest: number;
  /** The shortest pattern: the window the shift table looks at. */
  private readonly window: number;
  /** How far the window may move when it ends on a block of bytes (Wu–Manber's SHIFT). */
  private readonly shift = new Uint8Array(65536);
  /** The patterns whose window ends on a block of bytes, longest first (Wu–Manber's HASH). */
  private readonly candidates = new Map<number, number[]>();
  /** The thread's WebAssembly scan; null: the JavaScript one. */
  private readonly scanner: ShiftScanner | null;
  /** This matcher, to the scan: whose shift table its memory holds. */
  private readonly id = ++matchers;

  /** `wasm: false` searches in JavaScript alone, as where WebAssembly cannot run (for tests). */
  constructor(forms: readonly { form: string; masked: string }[], options: { wasm?: boolean } = {}) {
    const byForm = new Map<string, string>();
    for (const { form, masked } of forms) if (!byForm.has(form)) byForm.set(form, masked);
    const sorted = [...byForm]
      .map(([form, masked]) => ({ pattern: Buffer.from(form), mask: Buffer.from(masked) }))
      // The registry holds nothing under 8 characters; a block needs 3 bytes.
      .filter(({ pattern }) => pattern.length >= BLOCK)
      .sort((a, b) => b.pattern.length - a.pattern.length);
    this.patterns = sorted.map(({ pattern }) => pattern);
    this.masks = sorted.map(({ mask }) => mask);
    this.longest = this.patterns[0]?.length ?? 0;
    this.window = this.patterns.at(-1)?.length ?? 0;
    this.scanner = options.wasm === false ? null : shiftScanner();
    const m = this.window;
    this.shift.fill(Math.min(Math.max(1, m - BLOCK + 1), MOST_SHIFT));
    this.patterns.forEach((pattern, index) => {
      for (let j = BLOCK - 1; j < m; j++) {
        const key = blockKey(pattern[j - 2]!, pattern[j - 1]!, pattern[j]!);
        this.shift[key] = Math.min(this.shift[key]!, m - 1 - j);
      }
      const last = blockKey(pattern[m - 3]!, pattern[m - 2]!, pattern[m - 1]!);
      const list = this.candidates.get(last) ?? [];
      list.push(index);
      this.candidates.set(last, list);
    });
  }

  get isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /**
   * Calls `onMatch` for each pattern lying whole inside `buffer` that starts at or after `from`
   * and before `before`, leftmost first, the longest where several start at one byte, with its
   * start and its index; `onMatch` returns where the search goes on (after the match).
   */
  search(
    buffer: Buffer,
    from: number,
    before: number,
    onMatch: (start: number, index: number) => number,
  ): void {
    const m = this.window;
    const stop = Math.min(buffer.length, before + m - 1);
    const scanner = this.scanner;
    let end = from + m - 1;
    while (end < stop) {
      // The bytes the scan reads, from the window's last block on: in place, or copied a slab at a time.
      let base = 0;
      let limit = stop;
      if (scanner !== null) {
        if (scanner.tableOf !== this.id) {
          scanner.bytes.set(this.shift, 0);
          scanner.tableOf = this.id;
        }
        // Copied even from memory it could read in place: each move waits for the byte it read
        // last, so a cache miss stalls the scan where the copy's misses overlap (twice as fast).
        const slabFrom = end - (BLOCK - 1);
        const slabTo = Math.min(stop, slabFrom + SCAN_SLAB);
        scanner.bytes.set(buffer.subarray(slabFrom, slabTo), SLAB_AT);
        scanner.dirtyTo = Math.max(scanner.dirtyTo, SLAB_AT + slabTo - slabFrom);
        base = SLAB_AT - slabFrom;
        limit = slabTo;
        scanner.loads++;
      }
      const loaded = scanner?.loads;
      while (end < limit) {
        const at =
          scanner === null
            ? scanInJs(buffer, this.shift, end, limit)
            : scanner.scan(end + base, limit + base) - base;
        if (at >= limit) {
          end = at;
          break;
        }
        const index = this.matchAt(buffer, at - m + 1, at);
        if (index === -1) {
          end = at + 1;
          continue;
        }
        end = onMatch(at - m + 1, index) + m - 1;
        // What onMatch set off (a stream's reader) may have searched with another matcher.
        if (scanner !== null && scanner.loads !== loaded) break;
      }
    }
  }

  /**
   * Clears the bytes the search copied into the thread's WebAssembly memory, so that none of a
   * file's bytes (a secret among them) stays there once its search is over.
   */
  wipe(): void {
    const scanner = this.scanner;
    if (scanner === null || scanner.dirtyTo === SLAB_AT) return;
    scanner.bytes.fill(0, SLAB_AT, scanner.dirtyTo);
    scanner.dirtyTo = SLAB_AT;
    // A search under way (this one ended inside its onMatch) copies its slab again.
    scanner.loads++;
  }

  /** The longest pattern starting at `start`, whose window ends at `end` on a block of shift 0; -1 for none. */
  private matchAt(buffer: Buffer, start: number, end: number): number {
    const key = blockKey(buffer[end - 2]!, buffer[end - 1]!, buffer[end]!);
    for (const index of this.candidates.get(key) ?? []) {
      const pattern = this.patterns[index]!;
      if (
        start + pattern.length <= buffer.length &&
        buffer.compare(pattern, 0, pattern.length, start, start + pattern.length) === 0
      )
        return index;
    }
    return -1;
  }
}

/** One stream of bytes being scrubbed: what goes out is handed to `emit` as it is decided. */
class Scrubbing {
  /** Secrets masked so far. */
  masked = 0;
  /** The end of the bytes seen that could still begin a secret, to be decided with the next chunk. */
  private carry = EMPTY;

  constructor(
    private readonly matcher: SecretMatcher,
    private readonly emit: (bytes: Buffer) => void,
  ) {}

  /** Takes the next chunk; the caller may reuse it afterwards. */
  push(chunk: Buffer): void {
    if (this.matcher.isEmpty) {
      this.emit(chunk);
      return;
    }
    const longest = this.matcher.longest;
    let bytes = chunk;
    let from = 0;
    if (this.carry.length > 0) {
      const carried = this.carry;
      this.carry = EMPTY;
      if (chunk.length >= longest - 1) {
        // Only the bytes that a secret starting in the carry can reach are joined, not the whole chunk.
        const head = Buffer.concat([carried, chunk.subarray(0, longest - 1)]);
        from = this.run(head, 0, carried.length) - carried.length;
      } else bytes = Buffer.concat([carried, chunk]);
    }
    const stop = this.run(bytes, from, Math.max(from, bytes.length - longest + 1));
    this.carry = Buffer.from(bytes.subarray(stop));
  }

  /** The stream has ended: what was carried is decided with nothing after it. */
  end(): void {
    const carried = this.carry;
    this.carry = EMPTY;
    this.run(carried, 0, carried.length);
    this.matcher.wipe();
  }

  /**
   * Emits `bytes` from `from`, masking every secret that starts before `before`, up to `before`
   * or the end of the last secret masked, whichever is later; returns that position.
   */
  private run(bytes: Buffer, from: number, before: number): number {
    const matcher = this.matcher;
    let at = from;
    matcher.search(bytes, from, before, (start, index) => {
      if (start > at) this.emit(bytes.subarray(at, start));
      this.emit(matcher.masks[index]!);
      this.masked++;
      at = start + matcher.patterns[index]!.length;
      return at;
    });
    if (before <= at) return at;
    this.emit(bytes.subarray(at, before));
    return before;
  }
}

/** A stream that masks the bot's secrets in the bytes passing through; `masked` is final once it has ended. */
export class SecretScrubStream extends Transform {
  private readonly scrubbing: Scrubbing;

  constructor(private readonly matcher: SecretMatcher) {
    super();
    this.scrubbing = new Scrubbing(matcher, (bytes) => this.push(bytes));
  }

  get masked(): number {
    return this.scrubbing.masked;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.scrubbing.push(chunk);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.scrubbing.end();
    callback();
  }

  /** Stopped midway (an upload that failed): what its search copied in goes too. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.matcher.wipe();
    callback(error);
  }
}

/**
 * The registry's secrets at one moment, for a thread that counts them in a file as it writes it
 * (reports/shield/worker.ts): every form, as createFileScrub masks them, none kept.
 */
export interface FileSecretForms {
  /** The registry's generation when they were taken. */
  generation: number;
  forms: { form: string; masked: string }[];
}

/** What a count of a file's secrets found as the file was written, and with which secrets. */
export interface FileSecretCount {
  /** Secrets found. */
  masked: number;
  /** The file's length once they are masked. */
  bytes: number;
  /** The file's length as written. */
  fileBytes: number;
  /** The registry's generation whose secrets were counted (FileSecretForms). */
  generation: number;
  /** The file as it was written (fileStamp): a file changed since, however, is counted again. */
  stamp: string;
}

/**
 * A file on disk as it is now: its device and inode, length, and the times of its last change
 * (nanoseconds). A write changes the last two, but for a rewrite at the same length within one
 * tick of a coarse clock, which some file systems use: only the bot writes its temporary files,
 * which this user alone may read or write (reports/csv/temp-file.ts).
 */
export const fileStamp = (stats: BigIntStats): string =>
  [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');

/** Each form of each secret but those kept, and as a CSV cell quotes it (each `"` doubled). */
function scrubForms(secrets: SecretRegistry, keep: readonly string[]): { form: string; masked: string }[] {
  const forms = secrets.maskedForms(keep);
  const quoted = forms.map(({ secret, masked }) => ({ form: secret.replaceAll('"', '""'), masked }));
  return [...forms, ...quoted].map(({ form, masked }) => ({ form, masked }));
}

/** The registry's secrets now, for a thread that counts them in a file it writes. */
export function fileSecretForms(secrets: SecretRegistry): FileSecretForms {
  return { generation: secrets.generation, forms: scrubForms(secrets, []) };
}

/**
 * Counts the secrets of `FileSecretForms` in a file's bytes as they are written, as
 * `FileScrub.count` would count them in the file: the upload then need not read the file back.
 */
export class FileSecretCounter {
  private readonly matcher: SecretMatcher;
  private readonly scrubbing: Scrubbing;
  private bytes = 0;
  private fileBytes = 0;

  constructor(private readonly secrets: FileSecretForms) {
    this.matcher = new SecretMatcher(secrets.forms);
    this.scrubbing = new Scrubbing(this.matcher, (out) => {
      this.bytes += out.length;
    });
  }

  /** The next bytes of the file; the caller may reuse them afterwards. */
  push(chunk: Buffer): void {
    this.fileBytes += chunk.length;
    this.scrubbing.push(chunk);
  }

  /** The file is whole, its last write done: what was found in it, and the file's `stamp`. */
  end(stamp: string): FileSecretCount {
    this.scrubbing.end();
    const { masked } = this.scrubbing;
    const { generation } = this.secrets;
    return { masked, bytes: this.bytes, fileBytes: this.fileBytes, generation, stamp };
  }

  /** Stopped midway: nothing of the file stays in the search's memory. */
  discard(): void {
    this.matcher.wipe();
  }
}

/** The registry's secrets at one moment, ready to mask in files. */
export interface FileScrub {
  /** `content` with every secret masked (the same buffer when there was none), and how many were. */
  bytes(content: string | Buffer): { content: Buffer; masked: number };
  /** A stream that masks what passes through it. */
  stream(): SecretScrubStream;
  /**
   * Reads a file without changing it: how many secrets it holds, and its size once they are
   * masked. What a sender needs before it streams the masked file (Slack asks for the length first).
   * A count made as the file was written (`known`) is taken instead when it was made with these
   * very secrets, none kept, and the file is as it was written (its stamp).
   */
  count(path: string, known?: FileSecretCount): Promise<{ masked: number; bytes: number }>;
}

/**
 * The secrets of `secrets` now, in every form the registry redacts, and as a CSV cell quotes
 * them (each `"` doubled), except those in `keep` (a secret the file exists to deliver).
 */
export function createFileScrub(
  secrets: SecretRegistry,
  keep: readonly string[] = [],
  options: { wasm?: boolean } = {},
): FileScrub {
  const forms = scrubForms(secrets, keep);
  const matcher = new SecretMatcher(forms, options);
  // A count made elsewhere holds for these secrets only if none is kept out of them.
  const keepsNone = secrets.maskedForms(keep).length === secrets.maskedForms().length;
  const generation = keepsNone ? secrets.generation : undefined;
  return {
    bytes(content) {
      const input = typeof content === 'string' ? Buffer.from(content) : content;
      const parts: Buffer[] = [];
      const scrubbing = new Scrubbing(matcher, (bytes) => parts.push(bytes));
      scrubbing.push(input);
      scrubbing.end();
      return {
        content: scrubbing.masked === 0 ? input : Buffer.concat(parts),
        masked: scrubbing.masked,
      };
    },
    stream: () => new SecretScrubStream(matcher),
    async count(path, known) {
      if (matcher.isEmpty) return { masked: 0, bytes: (await stat(path)).size };
      if (known !== undefined && known.generation === generation) {
        const now = await stat(path, { bigint: true });
        if (now.size === BigInt(known.fileBytes) && fileStamp(now) === known.stamp)
          return { masked: known.masked, bytes: known.bytes };
      }
      let bytes = 0;
      const scrubbing = new Scrubbing(matcher, (out) => {
        bytes += out.length;
      });
      const file = await open(path, 'r');
      // Two buffers in turn: the next read runs while the last one is searched. One read is in
      // flight at a time, each from where the last ended (the file's position: a pipe reads too).
      const buffers = [Buffer.allocUnsafe(READ_BYTES), Buffer.allocUnsafe(READ_BYTES)];
      const readInto = (buffer: Buffer) => file.read(buffer, 0, READ_BYTES, null);
      let reading = readInto(buffers[0]!);
      try {
        for (let turn = 0; ; turn ^= 1) {
          const { bytesRead } = await reading;
          if (bytesRead === 0) break;
          reading = readInto(buffers[turn ^ 1]!);
          scrubbing.push(buffers[turn]!.subarray(0, bytesRead));
        }
        scrubbing.end();
      } finally {
        // A read that failed midway leaves nothing in the scan's memory either.
        matcher.wipe();
        await reading.catch(() => undefined);
        await file.close();
      }
      return { masked: scrubbing.masked, bytes };
    },
  };
}

/** What a file's comment says when secrets were masked in it; nothing when none was. */
export function maskedNote(masked: number): string | undefined {
  if (masked === 0) return undefined;
  return masked === 1
    ? '1 value that is a secret of this bot was masked.'
    : `${masked.toLocaleString('en-US')} values that are secrets of this bot were masked.`;
}

/** A file's comment with the note on masked secrets after it. */
export function commentWithMaskedNote(comment: string | undefined, masked: number): string | undefined {
  const note = maskedNote(masked);
  if (!note) return comment;
  return comment?.trim() ? `${comment}\n${note}` : note;
}
