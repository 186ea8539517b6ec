/**
 * Reads a Hrana pipeline response as it arrives, without holding it: the rows of one batch step
 * (`results[0].response.result.step_results[STEP].rows`) come out one by one, its `cols` as soon
 * as they are complete, and everything else is kept as a small "skeleton" document (rows left
 * out, cols as null) that is parsed once the body has ended. A character scanner finds where each
 * row starts and ends, and only that slice goes to JSON.parse.
 */

export type BatchRowEvent = { kind: 'cols'; value: unknown } | { kind: 'row'; value: unknown };

/** The body is not the JSON document a Hrana server sends. */
export class BatchRowsError extends Error {
  override name = 'BatchRowsError';
}

/** Everything but the rows is small; a skeleton past this is not a Hrana answer. */
const MAX_SKELETON_CHARS = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

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

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BatchRowsError('the response is not valid JSON');
  }
}

export class BatchRowScanner {
  private readonly stack: Frame[] = [];
  private readonly rowsPath: string;
  private readonly colsPath: string;
  private skeleton = '';
  private inString = false;
  private escaped = false;
  /** The raw text so far of an object key being read, which a chunk boundary may cut. */
  private key: string | undefined;
  /** A row or the cols being read: their text so far and their own nesting depth. */
  private capture: { kind: 'cols' | 'row'; text: string; depth: number } | undefined;
  private ended = false;

  constructor(step: number) {
    const result = ['results', 0, 'response', 'result', 'step_results', step];
    this.rowsPath = JSON.stringify([...result, 'rows']);
    this.colsPath = JSON.stringify([...result, 'cols']);
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

  /** Feeds the next piece of the body and returns the rows and cols it completed. */
  push(text: string): BatchRowEvent[] {
    const events: BatchRowEvent[] = [];
    // Where the part of this chunk that goes to the skeleton (or to a capture, or to a key) starts.
    let from = 0;
    const inRows = () => this.stack[this.stack.length - 1]?.isRows === true;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.ended) {
        if (isSpace(code)) continue;
        throw new BatchRowsError('the response continues after its end');
      }
      if (this.inString) {
        // Long values are most of a body: jump to the quote that ends the string.
        const end = this.stringEnd(text, i);
        if (end < 0) {
          i = text.length;
          continue;
        }
        i = end;
        this.inString = false;
        if (this.key !== undefined && !this.capture) {
          const top = this.stack[this.stack.length - 1]!;
          top.position = String(parse(this.key + text.slice(from, i + 1)));
          this.key = undefined;
          from = i + 1;
        }
        continue;
      }
      const capture = this.capture;
      if (capture) {
        if (code === QUOTE) this.inString = true;
        else if (code === OPEN_BRACE || code === OPEN_BRACKET) capture.depth += 1;
        else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
          capture.depth -= 1;
          if (capture.depth === 0) {
            events.push({ kind: capture.kind, value: parse(capture.text + text.slice(from, i + 1)) });
            this.capture = undefined;
            if (capture.kind === 'cols') this.keep('null');
            from = i + 1;
          }
        }
        continue;
      }
      const top = this.stack[this.stack.length - 1];
      if (inRows()) {
        // Between rows: nothing goes to the skeleton; each row is an array of its own.
        if (code === OPEN_BRACKET) {
          this.capture = { kind: 'row', text: '', depth: 1 };
          from = i;
        } else if (code === COMMA) {
          top!.position = Number(top!.position) + 1;
        } else if (code === CLOSE_BRACKET) {
          this.stack.pop();
          from = i;
        } else if (!isSpace(code)) throw new BatchRowsError('a row is not an array');
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
            this.capture = { kind: 'cols', text: '', depth: 1 };
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
    if (this.capture) this.capture.text += rest;
    else if (this.key !== undefined) this.key += rest;
    else if (!this.ended && !inRows()) this.keep(rest);
    return events;
  }

  /**
   * The index of the quote that ends the string being read, from `at` on; -1 when the string goes
   * on into the next chunk (then whether that chunk starts escaped is remembered).
   */
  private stringEnd(text: string, at: number): number {
    let from = at;
    if (this.escaped) {
      this.escaped = false;
      from += 1;
    }
    for (;;) {
      const quote = text.indexOf('"', from);
      const stop = quote < 0 ? text.length : quote;
      // An odd run of backslashes right before it escapes the quote (or, at the end, the next character).
      let backslashes = 0;
      while (stop - backslashes - 1 >= from && text.charCodeAt(stop - backslashes - 1) === BACKSLASH)
        backslashes += 1;
      if (quote < 0) {
        this.escaped = backslashes % 2 === 1;
        return -1;
      }
      if (backslashes % 2 === 0) return quote;
      from = quote + 1;
    }
  }

  /** The document without the rows (and with null for the cols), once the body has ended. */
  end(): unknown {
    if (!this.ended) throw new BatchRowsError('the response ended before its document did');
    return parse(this.skeleton);
  }
}
