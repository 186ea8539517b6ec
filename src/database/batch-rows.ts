/**
 * Reads a Hrana pipeline response as it arrives, without holding it: the rows of one batch step
 * (`results[0].response.result.step_results[STEP].rows`) come out one by one, its `cols` as soon
 * as they are complete, and everything else is kept as a small "skeleton" document (rows left
 * out, cols as null) that is parsed once the body has ended. A character scanner finds where each
 * row starts and ends, and only that slice goes to JSON.parse.
 *
 * A row's values are weighed as they stream in (text as UTF-8, blobs as their bytes), so that
 * reading stops as soon as one passes what is left of the byte budget, before it is whole. A long
 * value (`"value"` or `"base64"` of a cell) is not kept in the row's text: it is unescaped, or
 * decoded from base64, piece by piece as it arrives. A long text is put back in the parsed row; a
 * long blob's bytes are handed on beside it, the row holding an empty string in their place. So a
 * value is held about once while it is read, and twice at most when its pieces are joined.
 * The scanner core (structural characters, whitespace, where a string ends) is the one the
 * origin-log reader uses, reports/json-entries.ts.
 */
import { InternalError } from '../errors.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isJsonSpace,
  JsonStringEnd,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../reports/json-entries.js';

/** The bytes of the `cell`-th value's long base64, decoded apart from its row. */
export interface BlobBytes {
  cell: number;
  bytes: ArrayBuffer;
}

export type BatchRowEvent =
  | { kind: 'cols'; value: unknown }
  /** The row as JSON.parse reads it, but for the long base64 strings decoded into `blobs`. */
  | { kind: 'row'; value: unknown; blobs?: BlobBytes[] }
  /** A row's values pass what is left of the budget: the reading should stop here. */
  | { kind: 'over-budget' };

export interface BatchRowOptions {
  /** Bytes of values the rows may hold in all; 1 GiB by default. */
  maxValueBytes?: number;
  /** A value string longer than this at the end of a chunk is read apart from its row. */
  largeValueChars?: number;
}

/** The body is not the JSON document a Hrana server sends. */
export class BatchRowsError extends InternalError {
  override name = 'BatchRowsError';
  readonly kind = 'unreadable-rows';
}

/** Everything but the rows is small; a skeleton past this is not a Hrana answer. */
const MAX_SKELETON_CHARS = 1024 * 1024;
/** The budget when none is given: the largest EDGEOPS_DB_QUERY_MAX_BYTES allows. */
const MAX_VALUE_BYTES = 1024 ** 3;
/** Values longer than this (a few chunks of the body) are read apart from their row. */
const LARGE_VALUE_CHARS = 256 * 1024;

const LETTER_U = 0x75;

type PathPart = string | number;

interface Frame {
  type: 'object' | 'array';
  /** Objects: the key whose value comes next. Arrays: the index of the element being read. */
  position: PathPart;
  /** Objects: true from the opening brace or a comma until the key's colon. */
  expectKey: boolean;
  /** The array that holds the wanted rows. */
  isRows: boolean;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BatchRowsError('the response is not valid JSON');
  }
}

/** Where an escape that `text` cuts short starts; `text.length` when it cuts none. */
function incompleteEscapeAt(text: string): number {
  const last = text.lastIndexOf('\\');
  // An escape is six characters at most (\uXXXX): one further back is whole.
  if (last < 0 || last <= text.length - 6) return text.length;
  let run = 1;
  while (last - run >= 0 && text.charCodeAt(last - run) === BACKSLASH) run++;
  // An even run of backslashes is escaped backslashes, each pair whole.
  if (run % 2 === 0) return text.length;
  const length = text.charCodeAt(last + 1) === LETTER_U ? 6 : 2;
  return last + length <= text.length ? text.length : last;
}

const CONTROL = /[\u0000-\u001f]/;

function unescaped(raw: string): string {
  // Most pieces have nothing to unescape: JSON.parse would only copy them.
  if (!raw.includes('\\') && !CONTROL.test(raw)) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new BatchRowsError('a value is not a valid JSON string');
  }
}

/** A JSON string's content given in pieces, unescaped piece by piece. */
class Unescaper {
  /** The start of an escape that the last piece cut short. */
  private held = '';

  push(raw: string): string {
    const text = this.held + raw;
    const cut = incompleteEscapeAt(text);
    this.held = text.slice(cut);
    return unescaped(text.slice(0, cut));
  }

  finish(): string {
    const rest = this.held;
    this.held = '';
    return unescaped(rest);
  }
}

/** ES2024's resizable ArrayBuffer, which Node 20 has; the project's lib is ES2023. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;

/**
 * Bytes written piece after piece into one buffer that grows in place: no piece is kept apart,
 * and nothing is copied to join them. Past `max` they are only counted.
 */
class GrowingBytes {
  readonly buffer: ResizableArrayBuffer;
  /** Bytes written so far, those only counted past the maximum included. */
  length = 0;

  constructor(max: number) {
    this.buffer = new ResizableArrayBuffer(0, { maxByteLength: Math.max(0, Math.floor(max)) });
  }

  write(text: string, encoding: 'utf8' | 'base64'): void {
    const size = Buffer.byteLength(text, encoding);
    const at = this.length;
    this.length += size;
    if (this.length > this.buffer.maxByteLength) return;
    this.buffer.resize(this.length);
    // Base64 with characters that are not base64 is shorter than its length says.
    const written = Buffer.from(this.buffer, at, size).write(text, encoding);
    if (written < size) {
      this.length = at + written;
      this.buffer.resize(this.length);
    }
  }
}

/** A long text value, read apart from its row: unescaped, and kept as UTF-8 until it ends. */
class TextValue {
  private readonly unescaper = new Unescaper();
  private readonly utf8: GrowingBytes;
  /** Half a surrogate pair that ended a piece, written with the next. */
  private high = '';

  constructor(max: number) {
    this.utf8 = new GrowingBytes(max);
  }

  get bytes(): number {
    return this.utf8.length;
  }

  push(raw: string): void {
    this.add(this.unescaper.push(raw));
  }

  /** The text; its UTF-8 is let go at once, so that the text is held only once from here. */
  finish(): string {
    this.add(this.unescaper.finish());
    this.utf8.write(this.high, 'utf8');
    const { buffer, length } = this.utf8;
    if (length > buffer.maxByteLength) throw new BatchRowsError('a value is larger than the budget');
    const text = Buffer.from(buffer, 0, length).toString('utf8');
    buffer.resize(0);
    return text;
  }

  private add(piece: string): void {
    const text = this.high + piece;
    const last = text.charCodeAt(text.length - 1);
    const split = last >= 0xd800 && last <= 0xdbff;
    this.high = split ? text.slice(-1) : '';
    this.utf8.write(split ? text.slice(0, -1) : text, 'utf8');
  }
}

/** A long blob value, decoded from base64 apart from its row. */
class BytesValue {
  private readonly unescaper = new Unescaper();
  private readonly decoded: GrowingBytes;
  /** Base64 characters short of a group of four, decoded with the next piece. */
  private carry = '';

  constructor(max: number) {
    this.decoded = new GrowingBytes(max);
  }

  get bytes(): number {
    return this.decoded.length;
  }

  push(raw: string): void {
    this.decode(this.unescaper.push(raw), false);
  }

  /** The bytes, in the buffer they were decoded into. */
  finish(): ArrayBuffer {
    this.decode(this.unescaper.finish(), true);
    const { buffer, length } = this.decoded;
    if (length > buffer.maxByteLength) throw new BatchRowsError('a value is larger than the budget');
    return buffer;
  }

  private decode(text: string, last: boolean): void {
    const all = this.carry + text;
    const whole = last ? all.length : all.length - (all.length % 4);
    this.carry = all.slice(whole);
    if (whole > 0) this.decoded.write(whole === all.length ? all : all.slice(0, whole), 'base64');
  }
}

type Field = 'value' | 'base64';

/** A cell's `value` or `base64` string being read. */
interface ValueString {
  field: Field;
  /** Characters so far, and their UTF-8 bytes and backslashes, while the row's text holds them. */
  chars: number;
  utf8: number;
  backslashes: number;
  /** Set once it is read apart from the row. */
  apart: TextValue | BytesValue | undefined;
}

/** What a value string weighs at least, by what has been read of it. */
function weightOf(value: ValueString): number {
  if (value.apart) return value.apart.bytes;
  // Each escape (six characters at most) stands for one byte at least; padding for none.
  const characters = value.chars - 5 * value.backslashes;
  if (value.field === 'base64') return Math.max(0, Math.floor(((characters - 2) * 3) / 4));
  return Math.max(0, value.utf8 - 5 * value.backslashes);
}

function countBackslashes(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', at + 1)) count++;
  return count;
}

/** A key's raw text, when it is one of the fields whose string is a value. */
function fieldOf(raw: string): Field | undefined {
  let key: unknown;
  try {
    key = JSON.parse(`"${raw}"`);
  } catch {
    return undefined;
  }
  return key === 'value' || key === 'base64' ? key : undefined;
}

/** Puts a long text read apart back as the `value` of the row's `cell`-th object. */
function putBack(row: unknown, cell: number, text: string): void {
  const target: unknown = Array.isArray(row) ? row[cell] : undefined;
  if (typeof target === 'object' && target !== null) (target as Record<string, unknown>).value = text;
}

/** Keys are short; one longer than this is none of the fields that matter. */
const MAX_KEY_CHARS = 64;

/** A row or the cols being read. */
interface Capture {
  kind: 'cols' | 'row';
  /** Their text so far, but for the values read apart. */
  text: string;
  /** Their own nesting depth: 1 inside a row's array, 2 inside a cell's object. */
  depth: number;
  /** The index of the cell being read. */
  cell: number;
  /** In a cell: true from its opening brace or a comma until the key's colon. */
  expectKey: boolean;
  /** The raw text so far of a cell's key being read, which a chunk boundary may cut. */
  key: string | undefined;
  /** The field named by the key just read, until its colon. */
  keyField: Field | undefined;
  /** After the colon of a `value` or `base64` key, until that value starts. */
  field: Field | undefined;
  /** The value string being read. */
  value: ValueString | undefined;
  /** Bytes of the values read to their end: at least what they weigh. */
  bytes: number;
  /** Characters of `text` that belong to values; the rest is structure, which is small. */
  valueChars: number;
  /** Long texts read apart, to be put back in the parsed row, and long blobs' bytes. */
  texts: { cell: number; text: string }[];
  blobs: BlobBytes[];
}

export class BatchRowScanner {
  private readonly stack: Frame[] = [];
  private readonly rowsPath: string;
  private readonly colsPath: string;
  private readonly largeValueChars: number;
  /** Bytes of values the rows may still hold, by the weights read so far. */
  private remaining: number;
  private skeleton = '';
  private inString = false;
  private readonly stringEnd = new JsonStringEnd();
  /** The raw text so far of an object key being read, which a chunk boundary may cut. */
  private key: string | undefined;
  private capture: Capture | undefined;
  private ended = false;
  /** A row passed the budget: nothing more is read. */
  private stopped = false;

  constructor(step: number, options: BatchRowOptions = {}) {
    const result = ['results', 0, 'response', 'result', 'step_results', step];
    this.rowsPath = JSON.stringify([...result, 'rows']);
    this.colsPath = JSON.stringify([...result, 'cols']);
    this.remaining = options.maxValueBytes ?? MAX_VALUE_BYTES;
    this.largeValueChars = options.largeValueChars ?? LARGE_VALUE_CHARS;
  }

  /** The path of the value that starts next in the current container. */
  private nextPath(): string {
    return JSON.stringify(this.stack.map((frame) => frame.position));
  }

  private keep(text: string): void {
    this.skeleton += text;
    if (this.skeleton.length > MAX_SKELETON_CHARS)
      throw new BatchRowsError('the response holds more than rows and is too large to read');
  }

  private startCapture(kind: Capture['kind']): void {
    this.capture = {
      kind,
      text: '',
      depth: 1,
      cell: 0,
      expectKey: false,
      key: undefined,
      keyField: undefined,
      field: undefined,
      value: undefined,
      bytes: 0,
      valueChars: 0,
      texts: [],
      blobs: [],
    };
  }

  /** Feeds the next piece of the body and returns the rows and cols it completed. */
  push(text: string): BatchRowEvent[] {
    const events: BatchRowEvent[] = [];
    if (this.stopped) return events;
    // Where the part of this chunk that goes to the skeleton (or to a capture, or to a key) starts.
    let from = 0;
    const inRows = () => this.stack[this.stack.length - 1]?.isRows === true;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.ended) {
        if (isJsonSpace(code)) continue;
        throw new BatchRowsError('the response continues after its end');
      }
      if (this.inString) {
        // Long values are most of a body: jump to the quote that ends the string.
        const end = this.stringEnd.inText(text, i);
        const stop = end < 0 ? text.length : end;
        const capture = this.capture;
        if (capture?.value) from = this.readValue(capture, capture.value, text, i, stop, end >= 0, from);
        else if (capture?.key !== undefined) {
          capture.key = (capture.key + text.slice(i, stop)).slice(0, MAX_KEY_CHARS + 1);
          if (end >= 0) {
            capture.keyField = capture.key.length > MAX_KEY_CHARS ? undefined : fieldOf(capture.key);
            capture.key = undefined;
          }
        }
        if (end < 0) {
          i = text.length;
          continue;
        }
        i = end;
        this.inString = false;
        if (this.key !== undefined && !capture) {
          const top = this.stack[this.stack.length - 1]!;
          top.position = String(parse(this.key + text.slice(from, i + 1)));
          this.key = undefined;
          from = i + 1;
        }
        continue;
      }
      const capture = this.capture;
      if (capture) {
        if (capture.kind === 'cols') {
          if (code === QUOTE) this.inString = true;
          else if (code === OPEN_BRACE || code === OPEN_BRACKET) capture.depth += 1;
          else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
            capture.depth -= 1;
            if (capture.depth === 0) {
              events.push({ kind: 'cols', value: parse(capture.text + text.slice(from, i + 1)) });
              this.capture = undefined;
              this.keep('null');
              from = i + 1;
            }
          }
          continue;
        }
        if (!this.scanRow(capture, code)) continue;
        // The row has ended.
        this.capture = undefined;
        if (capture.bytes > this.remaining) return this.stop(events);
        this.remaining -= capture.bytes;
        const value = parse(capture.text + text.slice(from, i + 1));
        for (const { cell, text } of capture.texts) putBack(value, cell, text);
        const { blobs } = capture;
        events.push(blobs.length > 0 ? { kind: 'row', value, blobs } : { kind: 'row', value });
        from = i + 1;
        continue;
      }
      const top = this.stack[this.stack.length - 1];
      if (inRows()) {
        // Between rows: nothing goes to the skeleton; each row is an array of its own.
        if (code === OPEN_BRACKET) {
          this.startCapture('row');
          from = i;
        } else if (code === COMMA) {
          top!.position = Number(top!.position) + 1;
        } else if (code === CLOSE_BRACKET) {
          this.stack.pop();
          from = i;
        } else if (!isJsonSpace(code)) throw new BatchRowsError('a row is not an array');
        continue;
      }
      switch (code) {
        case QUOTE:
          this.inString = true;
          if (top?.type === 'object' && top.expectKey) {
            this.keep(text.slice(from, i));
            this.key = '';
            from = i;
          }
          break;
        case COLON:
          if (top?.type === 'object') {
            top.expectKey = false;
            this.keep(text.slice(from, i));
            // The key itself goes to the skeleton too.
            this.keep(`${JSON.stringify(top.position)}:`);
            from = i + 1;
          }
          break;
        case COMMA:
          if (top?.type === 'object') top.expectKey = true;
          else if (top) top.position = Number(top.position) + 1;
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET: {
          const path = this.nextPath();
          if (code === OPEN_BRACKET && path === this.colsPath) {
            this.keep(text.slice(from, i));
            this.startCapture('cols');
            from = i;
            break;
          }
          const isRows = code === OPEN_BRACKET && path === this.rowsPath;
          this.stack.push({
            type: code === OPEN_BRACE ? 'object' : 'array',
            position: code === OPEN_BRACE ? '' : 0,
            expectKey: code === OPEN_BRACE,
            isRows,
          });
          if (isRows) {
            this.keep(text.slice(from, i + 1));
            from = i + 1;
          }
          break;
        }
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          if (!top) throw new BatchRowsError('the response closes more than it opened');
          this.stack.pop();
          if (this.stack.length === 0) {
            this.keep(text.slice(from, i + 1));
            from = i + 1;
            this.ended = true;
          }
          break;
      }
    }
    // What this chunk leaves unfinished continues in the next one.
    const rest = text.slice(from);
    const capture = this.capture;
    if (capture) {
      capture.text += rest;
      if (capture.text.length - capture.valueChars > MAX_SKELETON_CHARS)
        throw new BatchRowsError('a row holds more than values and is too large to read');
      const reading = capture.value ? weightOf(capture.value) : 0;
      if (capture.kind === 'row' && capture.bytes + reading > this.remaining) return this.stop(events);
    } else if (this.key !== undefined) this.key += rest;
    else if (!this.ended && !inRows()) this.keep(rest);
    return events;
  }

  /** One character of a row outside its strings; true when it ends the row. */
  private scanRow(capture: Capture, code: number): boolean {
    switch (code) {
      case QUOTE:
        this.inString = true;
        if (capture.depth !== 2) break;
        if (capture.expectKey) capture.key = '';
        else if (capture.field)
          capture.value = { field: capture.field, chars: 0, utf8: 0, backslashes: 0, apart: undefined };
        capture.field = undefined;
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        capture.depth += 1;
        if (capture.depth === 2) capture.expectKey = code === OPEN_BRACE;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        capture.depth -= 1;
        capture.field = undefined;
        return capture.depth === 0;
      case COLON:
        if (capture.depth === 2 && capture.expectKey) {
          capture.expectKey = false;
          capture.field = capture.keyField;
        }
        break;
      case COMMA:
        if (capture.depth === 1) capture.cell += 1;
        else if (capture.depth === 2) {
          capture.expectKey = true;
          capture.field = undefined;
        }
        break;
    }
    return false;
  }

  /**
   * A piece of a value string, from `start` to `stop` of this chunk (`closed` when the string
   * ends there); returns where the part of this chunk that goes to the row's text starts now.
   */
  private readValue(
    capture: Capture,
    value: ValueString,
    text: string,
    start: number,
    stop: number,
    closed: boolean,
    from: number,
  ): number {
    const piece = text.slice(start, stop);
    if (value.apart) {
      value.apart.push(piece);
      if (!closed) return text.length;
      const { apart } = value;
      if (apart instanceof TextValue) capture.texts.push({ cell: capture.cell, text: apart.finish() });
      else capture.blobs.push({ cell: capture.cell, bytes: apart.finish() });
      capture.bytes += apart.bytes;
      capture.value = undefined;
      // The row's text goes on from the closing quote: the value is an empty string there.
      return stop;
    }
    value.chars += piece.length;
    value.utf8 += Buffer.byteLength(piece);
    value.backslashes += countBackslashes(piece);
    capture.valueChars += piece.length;
    if (closed) {
      capture.bytes += weightOf(value);
      capture.value = undefined;
      return from;
    }
    if (value.chars < this.largeValueChars) return from;
    // Long: from here on it is read apart, with what the row's text already holds of it.
    const held = value.chars - piece.length;
    // What this row may still hold; the scanner stops before a value passes it.
    const room = this.remaining - capture.bytes;
    const apart = value.field === 'base64' ? new BytesValue(room) : new TextValue(room);
    apart.push(capture.text.slice(capture.text.length - held));
    capture.text = capture.text.slice(0, capture.text.length - held) + text.slice(from, start);
    capture.valueChars -= value.chars;
    apart.push(piece);
    value.apart = apart;
    return text.length;
  }

  private stop(events: BatchRowEvent[]): BatchRowEvent[] {
    this.stopped = true;
    this.capture = undefined;
    events.push({ kind: 'over-budget' });
    return events;
  }

  /** The document without the rows (and with null for the cols), once the body has ended. */
  end(): unknown {
    if (!this.ended) throw new BatchRowsError('the response ended before its document did');
    return parse(this.skeleton);
  }
}
