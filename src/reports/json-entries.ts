/**
 * Streams the elements of one array inside a JSON document (`{"logs":[…]}`) without holding
 * the document: a byte scanner finds where each element starts and ends, and only that slice
 * goes to JSON.parse. Token-by-token streaming parsers cost several times JSON.parse on a
 * million-entry log day; slicing keeps the cost close to JSON.parse itself (see bench/).
 *
 * Most of a chunk is not scanned byte by byte at all: from the first element that starts in it,
 * the elements up to the chunk's last `},{"` go to one JSON.parse as a list. That boundary is a
 * guess (the same bytes may end a string), but a wrong guess cuts an object short, which
 * JSON.parse refuses; the scanner then reads that chunk itself. So the elements are exactly
 * JSON.parse's either way (test/reports/json-entries.test.ts compares them on generated input).
 *
 * Given an ElementReader, the splitter hands the elements to it instead: the reader takes those
 * it reads whole straight from the bytes, and the splitter parses the rest as above and passes
 * them on in their place (origin/scan.ts reads log entries so, without JSON.parse).
 *
 * Its core (the structural characters, whitespace, and finding where a string ends across
 * chunks) is also the core of the Hrana row reader, database/batch-rows.ts, which reads text.
 */
import { EdgeopsError } from '../errors.js';

// ---------------------------------------------------------------- the scanner core

/** JSON's structural characters: one byte in UTF-8, and one UTF-16 code unit, of the same value. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;

/** JSON's four whitespace characters. */
export const isJsonSpace = (code: number): boolean =>
  code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * Finds where the string being read ends, chunk after chunk, in bytes or in text: it jumps to the
 * next quote (strings are most of a body) and counts the backslashes before it, and it remembers
 * an escape that a chunk boundary cuts. One method per input, so that each stays monomorphic.
 */
export class JsonStringEnd {
  /** The last chunk ended on an escaping backslash: the next starts with the character it escapes. */
  private escaped = false;

  /** The index of the quote that ends the string, from `at` on; -1 when the string goes on into the next chunk. */
  inBytes(bytes: Buffer, at: number): number {
    for (let from = this.start(at); ; ) {
      const quote = bytes.indexOf(QUOTE, from);
      const stop = quote < 0 ? bytes.length : quote;
      let backslashes = 0;
      while (stop - backslashes - 1 >= from && bytes[stop - backslashes - 1] === BACKSLASH) backslashes += 1;
      if (quote < 0) return this.cut(backslashes);
      if (backslashes % 2 === 0) return quote;
      from = quote + 1;
    }
  }

  /** As inBytes, in text. */
  inText(text: string, at: number): number {
    for (let from = this.start(at); ; ) {
      const quote = text.indexOf('"', from);
      const stop = quote < 0 ? text.length : quote;
      let backslashes = 0;
      while (stop - backslashes - 1 >= from && text.charCodeAt(stop - backslashes - 1) === BACKSLASH)
        backslashes += 1;
      if (quote < 0) return this.cut(backslashes);
      if (backslashes % 2 === 0) return quote;
      from = quote + 1;
    }
  }

  /** Where reading starts: past the escaped character the last chunk left. */
  private start(at: number): number {
    if (!this.escaped) return at;
    this.escaped = false;
    return at + 1;
  }

  /** The chunk ended inside the string: an odd run of backslashes at its end escapes the next character. */
  private cut(backslashes: number): number {
    this.escaped = backslashes % 2 === 1;
    return -1;
  }
}

// ---------------------------------------------------------------- the entries of one array

/** The response is not the JSON document asked for; the message says how, in words for people. */
export class JsonStreamError extends EdgeopsError {
  override name = 'JsonStreamError';
  readonly kind = 'invalid-response';
  readonly outcome = 'failed';
  readonly unexpected = true;

  get userMessage(): string {
    return this.message;
  }
}

const N = 0x6e;
/** Where one object element of a compact array likely ends and the next begins. */
const BOUNDARY = Buffer.from('},{"');
/** Elements go to JSON.parse in lists of about this many bytes. */
const LIST_BYTES = 32 * 1024;

/** Reads the array's object elements from the bytes in place of JSON.parse (see the file's comment). */
export interface ElementReader {
  /**
   * Reads elements from the `{` at `at`, one after the other, as far as it reads them whole:
   * returns the index after the last one's `}`, or `at` when it takes none. `chunkAt`: where the
   * chunk starts in the document. It does not keep `chunk` past the call.
   */
  read(chunk: Buffer, at: number, chunkAt: number): number;
  /** An element the splitter parsed itself, from `start` to `end` in the document, in its place among those read. */
  parsed(element: unknown, start: number, end: number): void;
}

/**
 * Push chunks in, get complete elements of the array under `key` (a key of the top-level
 * object) out, or handed to the reader when one is given. Only object elements are returned;
 * anything else in the array is counted in `skipped`. Malformed JSON outside an element
 * surfaces as an error at `end()`.
 *
 * The key may be absent or null (the vendor requires no field of the origin-log body, so `{}`
 * and `{"logs":null}` are legal): that is a document without elements, and `listed` stays false.
 */
export class JsonArraySplitter {
  private depth = 0;
  private inString = false;
  private readonly stringEnd = new JsonStringEnd();
  /** Depth at which the wanted array's elements sit, or 0 while it has not been found. */
  private elementDepth = 0;
  private done = false;
  private stringStart = -1;
  private lastString = '';
  /** A top-level string cut by a chunk boundary (bounded: only keys matter). */
  private partialString = '';
  private currentKey = '';
  /** Bytes of the element being read that arrived in earlier chunks. */
  private pending: Buffer[] = [];
  private elementOpen = false;
  /** Whether the document is an object; undefined until its first byte. */
  private rootIsObject: boolean | undefined;
  /** After the colon of the wanted key: its value has not started yet. */
  private awaitingValue = false;
  /** The wanted key held something other than an array or null. */
  private wrongValue = false;
  /** Where in the document (bytes) the element being read started. */
  private elementAt = 0;
  skipped = 0;
  bytes = 0;
  /**
   * Whether each open level is an array, a bit per depth: a `]` must close a `[` and a `}` a `{`,
   * as JSON.parse requires. Counting depth alone let two mismatches cancel out, and a body
   * JSON.parse refuses was read in part.
   */
  private arrays = new Uint8Array(64);

  constructor(
    private readonly key: string,
    private readonly reader?: ElementReader,
  ) {}

  private opened(depth: number, isArray: boolean): void {
    const at = depth >> 3;
    if (at >= this.arrays.length) {
      const grown = new Uint8Array(this.arrays.length * 2);
      grown.set(this.arrays);
      this.arrays = grown;
    }
    const bit = 1 << (depth & 7);
    this.arrays[at] = isArray ? this.arrays[at]! | bit : this.arrays[at]! & ~bit;
  }

  private closes(depth: number, isArray: boolean): boolean {
    return ((this.arrays[depth >> 3]! >> (depth & 7)) & 1) === (isArray ? 1 : 0);
  }

  /** Feeds one chunk and returns the elements it completed, parsed (none, with a reader). */
  push(chunk: Buffer): unknown[] {
    this.bytes += chunk.length;
    const out: unknown[] = [];
    // Checked once, outside the byte loop: what the document is, and what the wanted key holds.
    if (this.rootIsObject === undefined || this.awaitingValue) this.inspect(chunk, 0);
    let elementStart = this.elementOpen ? 0 : -1;
    let batchable = true;
    const length = chunk.length;
    for (let i = 0; i < length; i++) {
      if (this.inString) {
        const end = this.stringEnd.inBytes(chunk, i);
        if (end < 0) break;
        i = end;
        this.inString = false;
        if (this.depth === 1 && this.stringStart >= 0)
          this.lastString = this.partialString + chunk.toString('utf8', this.stringStart, i);
        this.partialString = '';
        this.stringStart = -1;
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        this.inString = true;
        // Only short strings at the top level can be the key we look for.
        this.stringStart = this.depth === 1 ? i + 1 : -1;
        continue;
      }
      if (byte === COLON) {
        if (this.depth === 1) {
          this.currentKey = this.lastString;
          if (this.currentKey === this.key && !this.done) {
            this.awaitingValue = true;
            this.inspect(chunk, i + 1);
          }
        }
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        this.depth++;
        this.opened(this.depth, byte === OPEN_BRACKET);
        if (this.elementDepth > 0 && this.depth === this.elementDepth + 1) {
          if (byte === OPEN_BRACE) {
            // The reader tries every element; JSON.parse in lists, the first of each chunk.
            let after = 0;
            if (this.reader) after = this.reader.read(chunk, i, this.bytes - length);
            else if (batchable) {
              batchable = false;
              after = this.parseElements(chunk, i, out);
            }
            if (after > i) {
              // Back between elements, after the last one read.
              this.depth--;
              i = after - 1;
              continue;
            }
            elementStart = i;
            this.elementAt = this.bytes - length + i;
            this.elementOpen = true;
          } else this.skipped++;
        } else if (
          byte === OPEN_BRACKET &&
          this.depth === 2 &&
          this.elementDepth === 0 &&
          !this.done &&
          this.currentKey === this.key
        ) {
          this.elementDepth = 2;
        }
        continue;
      }
      if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (this.depth === 0) throw new JsonStreamError('unbalanced brackets in the response');
        if (!this.closes(this.depth, byte === CLOSE_BRACKET))
          throw new JsonStreamError('a bracket in the response closes one of the other kind');
        if (this.elementOpen && this.depth === this.elementDepth + 1 && byte === CLOSE_BRACE) {
          const element = this.parseElement(chunk, elementStart, i + 1);
          if (this.reader) this.reader.parsed(element, this.elementAt, this.bytes - length + i + 1);
          else out.push(element);
          elementStart = -1;
          this.elementOpen = false;
        } else if (this.elementDepth > 0 && this.depth === this.elementDepth && byte === CLOSE_BRACKET) {
          this.elementDepth = 0;
          this.done = true;
        }
        this.depth--;
        if (this.depth < 0) throw new JsonStreamError('unbalanced brackets in the response');
      }
    }
    // A copy: the chunk's memory may be handed back once it is read.
    if (this.elementOpen)
      this.pending.push(Buffer.from(elementStart <= 0 ? chunk : chunk.subarray(elementStart)));
    if (this.inString && this.stringStart >= 0) {
      if (this.partialString.length < 256) this.partialString += chunk.toString('utf8', this.stringStart);
      this.stringStart = 0;
    }
    return out;
  }

  /** Looks at the first byte from `from` on that is not whitespace: the document's, or the wanted key's value. */
  private inspect(chunk: Buffer, from: number): void {
    let i = from;
    while (i < chunk.length && isJsonSpace(chunk[i]!)) i++;
    if (i >= chunk.length) return;
    const byte = chunk[i]!;
    if (this.rootIsObject === undefined) {
      this.rootIsObject = byte === OPEN_BRACE;
      return;
    }
    this.awaitingValue = false;
    // `[` is read by the byte loop; `null` (its first letter is enough) means no entries.
    if (byte !== OPEN_BRACKET && byte !== N) this.wrongValue = true;
  }

  /**
   * The elements from the one starting at `start` up to the chunk's last `},{"`, parsed as lists
   * into `out`; returns where the last one parsed ends, or 0 when not even the first list parsed.
   */
  private parseElements(chunk: Buffer, start: number, out: unknown[]): number {
    const last = chunk.lastIndexOf(BOUNDARY);
    let from = start;
    let parsedTo = 0;
    while (from <= last) {
      // Text of at most about LIST_BYTES: longer strings are allocated many times slower.
      let cut = from + LIST_BYTES >= last ? last : chunk.lastIndexOf(BOUNDARY, from + LIST_BYTES);
      if (cut < from) cut = chunk.indexOf(BOUNDARY, from);
      let elements: unknown[];
      try {
        elements = JSON.parse(`[${chunk.toString('utf8', from, cut + 1)}]`) as unknown[];
      } catch {
        return parsedTo;
      }
      // As the scanner does: objects are elements, nested lists are skipped, other values ignored.
      for (const element of elements) {
        if (Array.isArray(element)) this.skipped++;
        else if (typeof element === 'object' && element !== null) out.push(element);
      }
      // A list that parsed ended at an element's end: the next `{` starts one.
      parsedTo = cut + 1;
      from = cut + 2;
    }
    return parsedTo;
  }

  private parseElement(chunk: Buffer, start: number, end: number): unknown {
    let text: string;
    if (this.pending.length > 0) {
      this.pending.push(chunk.subarray(0, end));
      text = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
    } else {
      text = chunk.toString('utf8', start, end);
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      // V8's own text quotes the entry around the fault, and an entry may hold anything the
      // platform echoed, a secret too: only where it broke goes into the message.
      const at = /\bposition (\d+)/.exec((error as Error).message)?.[1];
      throw new JsonStreamError(
        `an entry is not valid JSON${at === undefined ? '' : ` (at its character ${at})`}`,
      );
    }
  }

  /** True once the document has shown the array (even an empty one); false when it had none. */
  get listed(): boolean {
    return this.done;
  }

  /** Call after the last chunk: throws when the document ended early or is not the expected shape. */
  end(): void {
    if (this.inString || this.depth !== 0 || this.elementOpen)
      throw new JsonStreamError('the response ended before the JSON document was complete');
    if (this.rootIsObject !== true) throw new JsonStreamError('the response is not a JSON object');
    if (this.wrongValue) throw new JsonStreamError(`the "${this.key}" value is neither an array nor null`);
  }
}

/** Yields the elements of the `key` array of a streamed JSON document, chunk by chunk. */
export async function* jsonArrayEntries(
  source: AsyncIterable<Uint8Array>,
  key: string,
): AsyncGenerator<unknown[]> {
  const splitter = new JsonArraySplitter(key);
  for await (const chunk of source) {
    const entries = splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    if (entries.length > 0) yield entries;
  }
  splitter.end();
}
