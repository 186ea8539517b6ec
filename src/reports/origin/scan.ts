/**
 * The origin-log summary's reader: each entry of a day's body read straight from its bytes, its
 * inner `log` document too, for only the fields the summary and the CSV need. An entry in the
 * platform's own form is matched whole (platform-entries.ts); one in any other form (another
 * field order, spacing, escapes, extra fields) is read here byte by byte, escapes decoded, and
 * its CSV row copied from those bytes. No object is built for an entry.
 *
 * JSON.parse stays the authority. An entry this reader does not take whole (a field of another
 * type, a field twice, an escape of half a surrogate pair, bytes that are not UTF-8, an entry cut
 * by the end of a chunk) goes back to the splitter, whose JSON.parse and OriginTally.add read it
 * as every entry was read before; a `log` this reader does not take whole goes to parseDetail.
 * test/reports/origin/scan.test.ts holds both ways to the same summary and the same CSV bytes.
 */
import type { CsvByteWriter } from '../csv/bytes.js';
import { csvCell, csvRecord } from '../csv/safety.js';
import { FAIL, JsonByteReader, unescapeInto, utf8Length } from '../json-bytes.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  COLON,
  COMMA,
  type ElementReader,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../json-entries.js';
import { indexedTime, type OriginHourIndexer } from './hours.js';
import { PlatformEntries } from './platform-entries.js';
import { MAX_TIME_MS, NOWHERE, type OriginTally, parseDetail } from './tally.js';

/** A string field of the entry being read: its text's UTF-8 bytes, `buf[from…to)`, or absent. */
class Span {
  buf: Buffer | undefined;
  from = 0;
  to = 0;

  set(buf: Buffer, from: number, to: number): void {
    this.buf = buf;
    this.from = from;
    this.to = to;
  }
}

/** Strings for the bytes of short texts met again and again (label values, URLs), each made once. */
class TextCache {
  private readonly texts: (string | undefined)[];
  private readonly mask: number;

  constructor(slots: number) {
    this.texts = new Array<string | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  text(span: Span): string {
    const buf = span.buf!;
    const { from, to } = span;
    if (to - from > 256) return buf.toString('utf8', from, to);
    let hash = 0x811c9dc5;
    let bits = 0;
    for (let i = from; i < to; i++) {
      const byte = buf[i]!;
      bits |= byte;
      hash = Math.imul(hash ^ byte, 0x01000193);
    }
    if (bits >= 0x80) return buf.toString('utf8', from, to);
    const slot = hash & this.mask;
    const cached = this.texts[slot];
    if (cached !== undefined && cached.length === to - from) {
      let same = true;
      for (let i = 0; i < cached.length; i++)
        if (cached.charCodeAt(i) !== buf[from + i]) {
          same = false;
          break;
        }
      if (same) return cached;
    }
    const text = buf.toString('latin1', from, to);
    this.texts[slot] = text;
    return text;
  }
}

/** The field names read, as bytes. */
const name = (text: string) => Buffer.from(text, 'latin1');
const LOG_ID = name('logId');
const TIMESTAMP = name('timestamp');
const LOG = name('log');
const LABELS = name('labels');
const ERROR_CODE = name('ErrorCode');
const STATUS_CODE = name('StatusCode');
const SERVER_ZONE = name('ServerZone');
const REQUEST_URL = name('RequestUrl');
const PULL_ZONE_ID = name('PullZoneId');
const MESSAGE = name('Message');

function named(buf: Buffer, from: number, to: number, field: Buffer): boolean {
  if (to - from !== field.length) return false;
  for (let i = 0; i < field.length; i++) if (buf[from + i] !== field[i]) return false;
  return true;
}

// Which field a key is, as a bit, so that a field met twice is noticed (JSON.parse keeps the last).
const F_LOG_ID = 1;
const F_TIMESTAMP = 2;
const F_LOG = 4;
const F_LABELS = 8;
const F_ERROR_CODE = 16;
const F_STATUS_CODE = 32;
const F_SERVER_ZONE = 64;
const F_REQUEST_URL = 128;
const F_PULL_ZONE_ID = 256;
const F_MESSAGE = 512;

function entryField(buf: Buffer, from: number, to: number): number {
  if (named(buf, from, to, LOG)) return F_LOG;
  if (named(buf, from, to, LOG_ID)) return F_LOG_ID;
  if (named(buf, from, to, TIMESTAMP)) return F_TIMESTAMP;
  return named(buf, from, to, LABELS) ? F_LABELS : 0;
}

function labelField(buf: Buffer, from: number, to: number): number {
  if (named(buf, from, to, ERROR_CODE)) return F_ERROR_CODE;
  if (named(buf, from, to, STATUS_CODE)) return F_STATUS_CODE;
  return named(buf, from, to, SERVER_ZONE) ? F_SERVER_ZONE : 0;
}

function detailField(buf: Buffer, from: number, to: number): number {
  if (named(buf, from, to, REQUEST_URL)) return F_REQUEST_URL;
  if (named(buf, from, to, PULL_ZONE_ID)) return F_PULL_ZONE_ID;
  if (named(buf, from, to, MESSAGE)) return F_MESSAGE;
  if (named(buf, from, to, ERROR_CODE)) return F_ERROR_CODE;
  return named(buf, from, to, STATUS_CODE) ? F_STATUS_CODE : 0;
}

const APOSTROPHE = 0x27;
const SPACE = 0x20;
const ZERO = 0x30;
const Z = 0x5a;
/** What a row needs beyond twice the entry's bytes: a timestamp, a status of many digits, framing. */
const ROW_SLACK = 128;

/**
 * An ElementReader for the `logs` array of an origin-log day: counts each entry it reads in the
 * tally, writes its CSV row, and tells the hour indexer where it lies; the elements the splitter
 * parses come back through `parsed` and are counted the way they always were.
 */
export class OriginEntryReader implements ElementReader {
  private readonly platform: PlatformEntries;
  private dayIndexer: OriginHourIndexer | undefined;
  private readonly outer = new JsonByteReader();
  private readonly inner = new JsonByteReader();
  /** Where escaped texts are written out: the `log` document, and fields with escapes. */
  private scratch = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** The document offset of an element this reader did not take: asked again, it declines at once. */
  private declined = -1;
  private readonly labelTexts = new TextCache(1024);
  private readonly urlTexts = new TextCache(4096);
  private isoSecond = Number.NaN;
  private isoPrefix = Buffer.alloc(0);

  // The entry being read.
  private readonly logId = new Span();
  private readonly code = new Span();
  private readonly status = new Span();
  private readonly zone = new Span();
  private timed = false;
  private time = 0;
  private logFrom = -1;
  private logTo = -1;
  private logEscaped = false;
  // Its `log` document, read with the entry or after it (`detail`).
  private detailRead = false;
  private readonly url = new Span();
  private readonly message = new Span();
  private readonly detailCode = new Span();
  private detailStatus: number | undefined;

  /** `byteRows: false` joins the platform's rows as text, as where WebAssembly cannot run (for tests). */
  constructor(
    private readonly tally: OriginTally,
    private readonly csv: CsvByteWriter,
    options: { byteRows?: boolean } = {},
  ) {
    this.platform = new PlatformEntries(tally, csv, { bytes: options.byteRows });
  }

  /** The day being read's hour index, when one is built. */
  get indexer(): OriginHourIndexer | undefined {
    return this.dayIndexer;
  }

  set indexer(indexer: OriginHourIndexer | undefined) {
    this.dayIndexer = indexer;
    this.platform.indexer = indexer;
  }

  read(chunk: Buffer, at: number, chunkAt: number): number {
    if (chunkAt + at === this.declined) return at;
    const done = this.run(chunk, at, chunkAt);
    this.platform.flush();
    return done;
  }

  /** Reads entries from the one at `at` on, as far as they are taken: the index after the last one. */
  private run(chunk: Buffer, at: number, chunkAt: number): number {
    const json = this.outer;
    json.use(chunk, chunk.length);
    let start = at;
    let done = at;
    for (;;) {
      let end = this.platform.read(chunk, start, chunkAt);
      if (end < 0) {
        this.used = 0;
        end = this.entry(start);
        if (end < 0) {
          this.declined = chunkAt + start;
          return done;
        }
        this.platform.flush();
        this.count(chunk, start, end, chunkAt);
      }
      done = end;
      let next = json.space(end);
      if (next >= chunk.length || chunk[next] !== COMMA) return done;
      next = json.space(next + 1);
      if (next >= chunk.length || chunk[next] !== OPEN_BRACE) return done;
      start = next;
    }
  }

  parsed(element: unknown, start: number, end: number): void {
    this.platform.flush();
    this.indexer?.element(start, end, indexedTime(element));
    const row = this.tally.add(element);
    if (row) this.csv.text(csvRecord(row));
  }

  /** Reads the entry whose `{` is at `at` into the fields: the index after its `}`, or FAIL. */
  private entry(at: number): number {
    this.logId.buf = undefined;
    this.code.buf = undefined;
    this.status.buf = undefined;
    this.zone.buf = undefined;
    this.timed = false;
    this.logFrom = -1;
    this.clearDetail();
    return this.members(at, entryField, this.entryMember);
  }

  /** An entry's member's value at `at`, read into the fields: the index after it, or FAIL. Made once, not per entry. */
  private readonly entryMember = (field: number, at: number): number => {
    if (field === F_LOG_ID) return this.string(this.outer, this.logId, at);
    if (field === F_TIMESTAMP) return this.timestamp(at);
    if (field === F_LOG) {
      const read = this.logInPlace(at);
      return read >= 0 ? read : this.log(at);
    }
    if (field === F_LABELS) return this.labels(at);
    return this.outer.skip(at);
  };

  /** A string from its opening quote at `at` into `span`, escapes written out: the index after it, or FAIL. */
  private string(json: JsonByteReader, span: Span, at: number): number {
    if (at >= json.end || json.buf[at] !== QUOTE) return FAIL;
    const close = json.string(at + 1);
    if (close < 0) return FAIL;
    if (!json.escaped) {
      span.set(json.buf, at + 1, close);
      return close + 1;
    }
    const from = this.reserve(close - at - 1);
    const to = unescapeInto(json.buf, at + 1, close, this.scratch, from);
    if (to < 0) return FAIL;
    this.used = to;
    span.set(this.scratch, from, to);
    return close + 1;
  }

  /** Where `bytes` more can be written in the scratch; a full one is replaced, what is in it stays where it is. */
  private reserve(bytes: number): number {
    if (this.used + bytes > this.scratch.length) {
      this.scratch = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, bytes));
      this.used = 0;
    }
    return this.used;
  }

  private timestamp(at: number): number {
    const next = this.outer.number(at);
    if (next < 0) return FAIL;
    const value = this.outer.value;
    // Not a time: OriginTally.add counts it as skipped.
    if (!(Math.abs(value) <= MAX_TIME_MS)) return FAIL;
    this.timed = true;
    this.time = Math.floor(value);
    return next;
  }

  private clearDetail(): void {
    this.detailRead = false;
    this.url.buf = undefined;
    this.message.buf = undefined;
    this.detailCode.buf = undefined;
    this.detailStatus = undefined;
  }

  /**
   * The `log` string read as its document in the same pass, as the platform writes it: its quotes
   * are `\"` and nothing else in it is escaped, so its fields' text lies in the chunk as it is.
   * FAIL for any other string, which `log` and then `detail` read instead.
   */
  private logInPlace(at: number): number {
    const json = this.outer;
    const { buf, end } = json;
    if (at >= end || buf[at] !== QUOTE) return FAIL;
    let i = this.spaces(at + 1);
    if (i >= end || buf[i] !== OPEN_BRACE) return FAIL;
    let seen = 0;
    i = this.spaces(i + 1);
    if (i < end && buf[i] === CLOSE_BRACE) return this.logEnd(at, i + 1);
    for (;;) {
      if (i + 1 >= end || buf[i] !== BACKSLASH || buf[i + 1] !== QUOTE) return FAIL;
      const keyEnd = this.quotedInLog(i + 2);
      if (keyEnd < 0) return FAIL;
      const field = detailField(buf, i + 2, keyEnd);
      if (seen & field) return FAIL;
      seen |= field;
      i = this.spaces(keyEnd + 2);
      if (i >= end || buf[i] !== COLON) return FAIL;
      i = this.spaces(i + 1);
      if (i + 1 >= end) return FAIL;
      const first = buf[i]!;
      if (first === BACKSLASH) {
        if (buf[i + 1] !== QUOTE) return FAIL;
        const close = this.quotedInLog(i + 2);
        if (close < 0) return FAIL;
        if (field === F_REQUEST_URL) this.url.set(buf, i + 2, close);
        else if (field === F_MESSAGE) this.message.set(buf, i + 2, close);
        else if (field === F_ERROR_CODE) this.detailCode.set(buf, i + 2, close);
        else if (field !== 0) return FAIL;
        i = close + 2;
      } else if (field === F_PULL_ZONE_ID || field === F_STATUS_CODE) {
        i = json.number(i);
        if (i < 0 || !Number.isFinite(json.value)) return FAIL;
        if (field === F_STATUS_CODE) this.detailStatus = json.value;
      } else if (field === 0 && first !== OPEN_BRACE && first !== OPEN_BRACKET && first !== QUOTE) {
        i = json.skip(i);
        if (i < 0) return FAIL;
      } else return FAIL;
      i = this.spaces(i);
      if (i >= end) return FAIL;
      if (buf[i] === CLOSE_BRACE) return this.logEnd(at, i + 1);
      if (buf[i] !== COMMA) return FAIL;
      i = this.spaces(i + 1);
    }
  }

  /** Spaces in the `log` string as it lies in the chunk (its other whitespace would be escaped). */
  private spaces(at: number): number {
    const { buf, end } = this.outer;
    let i = at;
    while (i < end && buf[i] === SPACE) i++;
    return i;
  }

  /** From after a `\"` in the `log` string: the index of the next `\"`; FAIL for any other escape. */
  private quotedInLog(at: number): number {
    const { buf, end } = this.outer;
    for (let i = at; i < end; i++) {
      const byte = buf[i]!;
      if (byte === BACKSLASH) return i + 1 < end && buf[i + 1] === QUOTE ? i : FAIL;
      if (byte === QUOTE || byte < 0x20) return FAIL;
      if (byte >= 0x80) {
        const length = utf8Length(buf, i, end);
        if (length === 0) return FAIL;
        i += length - 1;
      }
    }
    return FAIL;
  }

  /** After the document's `}` at `at` - 1 in the `log` string opened at `open`: its closing quote must follow. */
  private logEnd(open: number, at: number): number {
    const { buf, end } = this.outer;
    const close = this.spaces(at);
    if (close >= end || buf[close] !== QUOTE) return FAIL;
    this.logFrom = open + 1;
    this.logTo = close;
    this.logEscaped = true;
    this.detailRead = true;
    return close + 1;
  }

  /** The `log` string: only where it lies, read as a document when the entry counts somewhere. */
  private log(at: number): number {
    const json = this.outer;
    if (at >= json.end || json.buf[at] !== QUOTE) return FAIL;
    const close = json.string(at + 1);
    if (close < 0) return FAIL;
    this.logFrom = at + 1;
    this.logTo = close;
    this.logEscaped = json.escaped;
    return close + 1;
  }

  /**
   * An object of the outer document from its `{` at `at`, member by member: each key is named by
   * `fieldOf` (0 for one not read) and may come once; `value` reads the value at an index and
   * returns the index after it. The index after the `}`, or FAIL for anything else.
   */
  private members(
    at: number,
    fieldOf: (buf: Buffer, from: number, to: number) => number,
    value: (field: number, at: number) => number,
  ): number {
    const json = this.outer;
    const { buf, end } = json;
    if (at >= end || buf[at] !== OPEN_BRACE) return FAIL;
    let seen = 0;
    let i = json.space(at + 1);
    if (i < end && buf[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (i >= end || buf[i] !== QUOTE) return FAIL;
      const keyEnd = json.string(i + 1);
      if (keyEnd < 0 || json.escaped) return FAIL;
      const field = fieldOf(buf, i + 1, keyEnd);
      if (seen & field) return FAIL;
      seen |= field;
      i = json.space(keyEnd + 1);
      if (i >= end || buf[i] !== COLON) return FAIL;
      i = value(field, json.space(i + 1));
      if (i < 0) return FAIL;
      i = json.space(i);
      if (i >= end) return FAIL;
      if (buf[i] === CLOSE_BRACE) return i + 1;
      if (buf[i] !== COMMA) return FAIL;
      i = json.space(i + 1);
    }
  }

  private labels(at: number): number {
    return this.members(at, labelField, this.labelMember);
  }

  /** A label's value at `at`, read into the fields: the index after it, or FAIL. */
  private readonly labelMember = (field: number, at: number): number => {
    if (field === F_ERROR_CODE) return this.string(this.outer, this.code, at);
    if (field === F_STATUS_CODE) return this.string(this.outer, this.status, at);
    if (field === F_SERVER_ZONE) return this.string(this.outer, this.zone, at);
    return this.outer.skip(at, 1);
  };

  /**
   * Reads the entry's `log` string as the document it should be into the detail fields; false
   * when it is not read whole so: not JSON, not that document, or something parseDetail should judge.
   */
  private detail(chunk: Buffer): boolean {
    this.clearDetail();
    let buf = chunk;
    let from = this.logFrom;
    let to = this.logTo;
    if (this.logEscaped) {
      from = this.reserve(to - from);
      to = unescapeInto(chunk, this.logFrom, this.logTo, this.scratch, from);
      if (to < 0) return false;
      buf = this.scratch;
      this.used = to;
    }
    const json = this.inner;
    json.use(buf, to);
    let i = json.space(from);
    if (i >= to || buf[i] !== OPEN_BRACE) return false;
    let seen = 0;
    i = json.space(i + 1);
    if (i < to && buf[i] === CLOSE_BRACE) return json.space(i + 1) === to;
    for (;;) {
      if (i >= to || buf[i] !== QUOTE) return false;
      const keyEnd = json.string(i + 1);
      if (keyEnd < 0 || json.escaped) return false;
      const field = detailField(buf, i + 1, keyEnd);
      if (seen & field) return false;
      seen |= field;
      i = json.space(keyEnd + 1);
      if (i >= to || buf[i] !== COLON) return false;
      i = json.space(i + 1);
      if (field === F_REQUEST_URL) i = this.string(json, this.url, i);
      else if (field === F_MESSAGE) i = this.string(json, this.message, i);
      else if (field === F_ERROR_CODE) i = this.string(json, this.detailCode, i);
      else if (field === F_PULL_ZONE_ID || field === F_STATUS_CODE) {
        i = json.number(i);
        // zod's z.number() refuses the infinities a long exponent makes.
        if (i >= 0 && !Number.isFinite(json.value)) i = FAIL;
        if (field === F_STATUS_CODE) this.detailStatus = json.value;
      } else i = json.skip(i, 1);
      if (i < 0) return false;
      i = json.space(i);
      if (i >= to) return false;
      if (buf[i] === CLOSE_BRACE) return json.space(i + 1) === to;
      if (buf[i] !== COMMA) return false;
      i = json.space(i + 1);
    }
  }

  /** Counts the entry just read, `chunk[start…end)`, and writes its CSV row when it is in the window. */
  private count(chunk: Buffer, start: number, end: number, chunkAt: number): void {
    const tally = this.tally;
    const timestamp = this.timed ? this.time : undefined;
    this.indexer?.element(chunkAt + start, chunkAt + end, this.timed ? this.time : Number.NaN);
    const code = this.code.buf ? this.labelTexts.text(this.code) : undefined;
    const zone = this.zone.buf ? this.labelTexts.text(this.zone) : undefined;
    const place = tally.place(timestamp, code, zone);
    if (place === NOWHERE) return;
    const hasLog = this.logFrom >= 0;
    if (hasLog && !this.detailRead && !this.detail(chunk)) {
      this.countParsed(chunk, place, timestamp, code, zone);
      return;
    }
    const status = this.status.buf
      ? this.labelTexts.text(this.status)
      : this.detailStatus !== undefined
        ? String(this.detailStatus)
        : '';
    const errorCode = code ?? (this.detailCode.buf ? this.labelTexts.text(this.detailCode) : '');
    const serverZone = zone ?? '';
    if (!tally.matches(status, errorCode, serverZone)) return;
    const url = this.url.buf ? this.urlTexts.text(this.url) : '';
    if (!tally.count(place, timestamp, status, errorCode, serverZone, url, !hasLog)) return;
    this.row(end - start, timestamp, status);
  }

  /** The rest of an entry whose `log` this reader did not take: its document as parseDetail reads it. */
  private countParsed(
    chunk: Buffer,
    place: number,
    timestamp: number | undefined,
    code: string | undefined,
    zone: string | undefined,
  ): void {
    const log = JSON.parse(chunk.toString('utf8', this.logFrom - 1, this.logTo + 1)) as string;
    const detail = parseDetail(log);
    const text = (span: Span) => span.buf!.toString('utf8', span.from, span.to);
    const status = this.status.buf
      ? text(this.status)
      : detail?.StatusCode !== undefined
        ? String(detail.StatusCode)
        : '';
    const errorCode = code ?? detail?.ErrorCode ?? '';
    const serverZone = zone ?? '';
    if (!this.tally.matches(status, errorCode, serverZone)) return;
    const url = detail?.RequestUrl ?? '';
    if (!this.tally.count(place, timestamp, status, errorCode, serverZone, url, !detail)) return;
    this.csv.text(
      csvRecord([
        timestamp === undefined ? '' : this.tally.iso(timestamp),
        status,
        errorCode,
        serverZone,
        url,
        detail?.Message ?? '',
        this.logId.buf ? text(this.logId) : '',
      ]),
    );
  }

  /** The CSV row of an entry read whole, from its fields' bytes. */
  private row(entryBytes: number, timestamp: number | undefined, status: string): void {
    const csv = this.csv;
    csv.room(2 * entryBytes + ROW_SLACK);
    if (timestamp !== undefined) this.isoCell(timestamp);
    csv.byte(COMMA);
    if (this.status.buf) this.cell(this.status);
    else if (status) csv.text(csvCell(status));
    csv.byte(COMMA);
    if (this.code.buf) this.cell(this.code);
    else if (this.detailCode.buf) this.cell(this.detailCode);
    csv.byte(COMMA);
    if (this.zone.buf) this.cell(this.zone);
    csv.byte(COMMA);
    if (this.url.buf) this.cell(this.url);
    csv.byte(COMMA);
    if (this.message.buf) this.cell(this.message);
    csv.byte(COMMA);
    if (this.logId.buf) this.cell(this.logId);
    csv.endRecord();
  }

  private cell(span: Span): void {
    this.csv.cell(span.buf!, span.from, span.to);
  }

  /** The timestamp cell as OriginTally.iso writes it, from the ISO text of its second kept as bytes. */
  private isoCell(ms: number): void {
    const second = Math.floor(ms / 1000);
    if (second !== this.isoSecond) {
      this.isoSecond = second;
      this.isoPrefix = Buffer.from(new Date(second * 1000).toISOString().slice(0, -4), 'latin1');
    }
    const csv = this.csv;
    const prefix = this.isoPrefix;
    // Years before 0 and after 9999 start with a sign, which a spreadsheet would run.
    if (prefix[0] === 0x2b || prefix[0] === 0x2d) csv.byte(APOSTROPHE);
    csv.plain(prefix, 0, prefix.length);
    const millis = ms - second * 1000;
    csv.byte(ZERO + Math.floor(millis / 100));
    csv.byte(ZERO + (Math.floor(millis / 10) % 10));
    csv.byte(ZERO + (millis % 10));
    csv.byte(Z);
  }
}
