/**
 * Reading JSON straight from its UTF-8 bytes without building values: where a string, a number
 * or any value ends, whether a string holds escapes, and a string's text written out as UTF-8.
 * It takes only what JSON.parse takes and reads it as JSON.parse does; anything else (bytes that
 * are not UTF-8, an escape of half a surrogate pair, a document cut by the end of the bytes) is
 * FAIL, and the caller hands that part to JSON.parse. origin/scan.ts reads log entries with it.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-entries.js';

/** What a reading method returns when the bytes are not read whole by it. */
export const FAIL = -1;

/** Containers nested deeper than this are left to JSON.parse. */
const MAX_DEPTH = 32;
/** Integers of up to this many digits are exact as they are summed; longer ones go to Number(). */
const EXACT_DIGITS = 15;

const U = 0x75;
const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/** The value of one hex digit, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** The code unit of the four hex digits at `at`, or -1. */
function hex4(bytes: Uint8Array, at: number): number {
  const a = hexValue(bytes[at]!);
  const b = hexValue(bytes[at + 1]!);
  const c = hexValue(bytes[at + 2]!);
  const d = hexValue(bytes[at + 3]!);
  return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

/** The length of the well-formed UTF-8 sequence at `at` (its lead byte ≥ 0x80), or 0. */
export function utf8Length(bytes: Uint8Array, at: number, end: number): number {
  const lead = bytes[at]!;
  const cont = (offset: number) => at + offset < end && (bytes[at + offset]! & 0xc0) === 0x80;
  if (lead >= 0xc2 && lead <= 0xdf) return cont(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    if (at + 2 >= end) return 0;
    const second = bytes[at + 1]!;
    // No overlong forms, and no surrogates (which JSON text cannot carry as raw bytes).
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return second >= low && second <= high && cont(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    if (at + 3 >= end) return 0;
    const second = bytes[at + 1]!;
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return second >= low && second <= high && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** True for a character JSON lets follow a backslash, besides `u`. */
function isShortEscape(byte: number): boolean {
  switch (byte) {
    case QUOTE:
    case BACKSLASH:
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return true;
    default:
      return false;
  }
}

/**
 * Reads the bytes of `buf` up to `end`. One instance is reused for every piece of text read, so
 * that what a method learns (escapes, the value of a number) is kept in fields, not in objects.
 */
export class JsonByteReader {
  buf: Buffer = Buffer.alloc(0);
  end = 0;
  /** Set by `string`: the string holds an escape. */
  escaped = false;
  /** Set by `string`: the string holds a character outside ASCII. */
  wide = false;
  /** Set by `number`: its value, as JSON.parse reads it. */
  value = 0;

  /** Reads `buf` up to `end` from now on. */
  use(buf: Buffer, end: number): void {
    this.buf = buf;
    this.end = end;
  }

  /** The first index from `at` on that is not JSON whitespace; `end` when there is none. */
  space(at: number): number {
    const { buf, end } = this;
    let i = at;
    while (i < end) {
      const byte = buf[i]!;
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return i;
      i++;
    }
    return end;
  }

  /**
   * From just after a string's opening quote: the index of its closing quote. FAIL for a control
   * character, an escape JSON does not have, bytes that are not UTF-8, or a string the bytes cut.
   */
  string(at: number): number {
    const { buf, end } = this;
    let escaped = false;
    let wide = false;
    let i = at;
    while (i < end) {
      const byte = buf[i]!;
      if (byte === QUOTE) {
        this.escaped = escaped;
        this.wide = wide;
        return i;
      }
      if (byte === BACKSLASH) {
        escaped = true;
        if (i + 1 >= end) return FAIL;
        const next = buf[i + 1]!;
        if (next === U) {
          if (i + 5 >= end || hex4(buf, i + 2) < 0) return FAIL;
          i += 6;
        } else if (isShortEscape(next)) i += 2;
        else return FAIL;
      } else if (byte < 0x20) return FAIL;
      else if (byte >= 0x80) {
        const length = utf8Length(buf, i, end);
        if (length === 0) return FAIL;
        wide = true;
        i += length;
      } else i++;
    }
    return FAIL;
  }

  /** A number from `at`: the index after it, its value in `value`; FAIL when it is not JSON's number. */
  number(at: number): number {
    const { buf, end } = this;
    let i = at;
    const negative = buf[i] === 0x2d;
    if (negative) i++;
    if (i >= end) return FAIL;
    const first = buf[i]!;
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) while (i < end && isDigit(buf[i]!)) i++;
    else return FAIL;
    const integerEnd = i;
    if (i < end && buf[i] === 0x2e) {
      i++;
      if (i >= end || !isDigit(buf[i]!)) return FAIL;
      while (i < end && isDigit(buf[i]!)) i++;
    }
    if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
      i++;
      if (i < end && (buf[i] === 0x2b || buf[i] === 0x2d)) i++;
      if (i >= end || !isDigit(buf[i]!)) return FAIL;
      while (i < end && isDigit(buf[i]!)) i++;
    }
    const digitsAt = negative ? at + 1 : at;
    if (i === integerEnd && integerEnd - digitsAt <= EXACT_DIGITS) {
      let value = 0;
      for (let k = digitsAt; k < integerEnd; k++) value = value * 10 + (buf[k]! - 0x30);
      this.value = negative ? -value : value;
    } else this.value = Number(buf.toString('latin1', at, i));
    return i;
  }

  /** Any value from `at` (its first byte): the index after it; FAIL as for its parts, or past MAX_DEPTH. */
  skip(at: number, depth = 0): number {
    const { buf, end } = this;
    if (at >= end) return FAIL;
    const byte = buf[at]!;
    if (byte === QUOTE) {
      const close = this.string(at + 1);
      return close < 0 ? FAIL : close + 1;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      return depth >= MAX_DEPTH ? FAIL : this.container(at, byte === OPEN_BRACE, depth + 1);
    }
    if (byte === 0x74) return this.word(at, 'true');
    if (byte === 0x66) return this.word(at, 'false');
    if (byte === 0x6e) return this.word(at, 'null');
    return this.number(at);
  }

  /** An object's members or an array's items from its opening bracket at `at`: the index after its close. */
  private container(at: number, object: boolean, depth: number): number {
    const { buf, end } = this;
    const close = object ? CLOSE_BRACE : CLOSE_BRACKET;
    let i = this.space(at + 1);
    if (i < end && buf[i] === close) return i + 1;
    for (;;) {
      if (object) {
        if (i >= end || buf[i] !== QUOTE) return FAIL;
        const keyEnd = this.string(i + 1);
        if (keyEnd < 0) return FAIL;
        i = this.space(keyEnd + 1);
        if (i >= end || buf[i] !== COLON) return FAIL;
        i = this.space(i + 1);
      }
      i = this.skip(i, depth);
      if (i < 0) return FAIL;
      i = this.space(i);
      if (i >= end) return FAIL;
      if (buf[i] === close) return i + 1;
      if (buf[i] !== COMMA) return FAIL;
      i = this.space(i + 1);
    }
  }

  private word(at: number, word: string): number {
    if (at + word.length > this.end) return FAIL;
    for (let k = 1; k < word.length; k++) if (this.buf[at + k] !== word.charCodeAt(k)) return FAIL;
    return at + word.length;
  }
}

/**
 * Writes the text of a string's content `src[from…to)` (read by JsonByteReader.string, so its
 * escapes are well formed) as UTF-8 into `out` at `at`, which has room for `to - from` bytes:
 * no escape is shorter than what it stands for. Returns the index after it in `out`, or FAIL
 * for an escaped half of a surrogate pair, which UTF-8 cannot carry.
 */
export function unescapeInto(src: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  let o = at;
  let i = from;
  while (i < to) {
    const byte = src[i]!;
    if (byte !== BACKSLASH) {
      out[o++] = byte;
      i++;
      continue;
    }
    const next = src[i + 1]!;
    i += 2;
    if (next !== U) {
      out[o++] = shortEscapeValue(next);
      continue;
    }
    let code = hex4(src, i);
    i += 4;
    if (code >= 0xdc00 && code <= 0xdfff) return FAIL;
    if (code >= 0xd800 && code <= 0xdbff) {
      const low = i + 5 < to && src[i] === BACKSLASH && src[i + 1] === U ? hex4(src, i + 2) : -1;
      if (low < 0xdc00 || low > 0xdfff) return FAIL;
      i += 6;
      code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      out[o++] = 0xf0 | (code >> 18);
      out[o++] = 0x80 | ((code >> 12) & 0x3f);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    } else if (code < 0x80) out[o++] = code;
    else if (code < 0x800) {
      out[o++] = 0xc0 | (code >> 6);
      out[o++] = 0x80 | (code & 0x3f);
    } else {
      out[o++] = 0xe0 | (code >> 12);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    }
  }
  return o;
}

function shortEscapeValue(byte: number): number {
  switch (byte) {
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      // `"`, `\` and `/` stand for themselves.
      return byte;
  }
}
