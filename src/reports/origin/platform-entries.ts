/**
 * Entries exactly as the platform writes them (reference 06: every field, in its order, the `log`
 * document too, texts of printable ASCII without escapes), matched whole by one compiled pattern
 * over the body read as latin1, a character per byte. That is the form of the vendor's documented
 * example and of the sandbox's days; scan.ts reads any other form byte by byte.
 *
 * What it costs is what was measured, per entry on the 2-core build machine: the pattern with
 * its captures (the URL, the labels' values, the message and the log id) about 0.3 µs, a Map
 * lookup of a captured text about 1.5 ns a character, one character read in JavaScript 2.5 ns.
 * So the captures are the keys looked up, the labels by the one text that holds their three
 * values. A captured text is a new string each time, which a Map hashes whole: a label set met
 * lately is found by ten of its characters and one compare instead (recentSpot), as the top URLs'
 * counter finds its URLs. The rows are copied from the body's bytes by WebAssembly (rows.ts), the
 * captures telling only how long each field is; where it cannot run, they are joined as text.
 */
import type { CsvByteWriter } from '../csv/bytes.js';
import { FAIL } from '../json-bytes.js';
import { RECENT_SPOTS, recentSpot } from '../top-counts.js';
import type { OriginHourIndexer } from './hours.js';
import {
  createPlatformRows,
  KEPT_CELLS_CHARS,
  KEPT_SETS,
  type KeptCells,
  type PlatformRows,
  ROWS_WINDOW,
} from './rows.js';
import { type LabelSet, NOWHERE, type OriginTally } from './tally.js';

/** The text of a JSON string that needs no reading: printable ASCII but `"` and `\`. */
const PLAIN = String.raw`[^"\\\x00-\x1f\x7f-\xff]*`;
/** A JSON integer of up to 15 digits: summed digit by digit, it is exactly what JSON.parse reads. */
const INTEGER = String.raw`-?(?:0|[1-9]\d{0,14})`;
/**
 * An entry in the platform's form, from its `{` to its `}`. Captures its log id, RequestUrl,
 * Message, and the labels from the ErrorCode's value to the ServerZone's.
 */
const PLATFORM_ENTRY = new RegExp(
  String.raw`\{"logId":"(${PLAIN})","timestamp":${INTEGER},"log":"\{\\"RequestUrl\\":\\"(${PLAIN})\\",` +
    String.raw`\\"PullZoneId\\":${INTEGER},\\"Message\\":\\"(${PLAIN})\\",\\"ErrorCode\\":\\"${PLAIN}\\",` +
    String.raw`\\"StatusCode\\":${INTEGER}\}","labels":\{"ErrorCode":"(${PLAIN}","StatusCode":"${PLAIN}",` +
    String.raw`"ServerZone":"${PLAIN})"\}\}`,
  'y',
);
/** From an entry's `{` to its timestamp: `{"logId":"`, the log id, `","timestamp":`. */
const TO_LOG_ID = 10;
const TO_TIMESTAMP = 14;
/** From the timestamp's end to the URL, from the URL's end to the PullZoneId, and from its end to the Message. */
const TO_URL = String.raw`,"log":"{\"RequestUrl\":\"`.length;
const TO_PULL_ZONE_ID = String.raw`\",\"PullZoneId\":`.length;
const TO_MESSAGE = String.raw`,\"Message\":\"`.length;
/** Label sets kept read; past this many, those kept are forgotten. */
const LABEL_SETS = KEPT_SETS;
/**
 * Longer label texts are read each time, not kept: the kept ones stay within LABEL_SETS × this.
 * Their cells are shorter (the text has 32 characters of JSON between the values) and fit rows.ts.
 */
const LABELS_KEPT_CHARS = KEPT_CELLS_CHARS;

/**
 * The body is read as text this much at a time: a longer string goes to V8's large-object space,
 * where making one costs ten times as much a byte (256 KB: 1.2 ns a byte; 64 KB: 0.13).
 */
const TEXT_WINDOW = ROWS_WINDOW;
/** The text is read again from an entry when less than this is left of it: longer entries are read byte by byte. */
const LONGEST_MATCHED = 4 * 1024;
/** Rows waiting are written once they are this long, for the same reason as TEXT_WINDOW. */
const ROWS_WAITING = 32 * 1024;

const MINUS = 0x2d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;

/** A text as a CSV cell, for text without quotes or line breaks: csvCell's answer. */
function plainCell(text: string): string {
  const first = text.charCodeAt(0);
  const cell = first === 0x3d || first === 0x2b || first === MINUS || first === 0x40 ? `'${text}` : text;
  return text.indexOf(',') < 0 ? cell : `"${cell}"`;
}

/** The timestamp cell: years before 0 and after 9999 start with a sign, which a spreadsheet would run. */
function isoCell(iso: string): string {
  const first = iso.charCodeAt(0);
  return first === 0x2b || first === MINUS ? `'${iso}` : iso;
}

/** The labels of matched entries, read once for each text of their `labels` object, and counted as a set. */
interface Labels extends LabelSet {
  /** `,status,error_code,server_zone,` of the CSV row. */
  readonly cells: string;
  /** The cells kept as bytes for rows written by PlatformRows, when they are. */
  kept: KeptCells | undefined;
  /** The text they were read from, when kept: from the ErrorCode's value to the ServerZone's. */
  readonly text: string | undefined;
}

/** A copy of a captured text, for keeping: a capture keeps the whole window of the body it is cut from alive. */
const ownText = (text: string): string => ` ${text}`.slice(1);

/** Reads entries in the platform's form: counts each in the tally and keeps its CSV row for `flush`. */
export class PlatformEntries {
  /** The day being read's hour index, when one is built. */
  indexer: OriginHourIndexer | undefined;
  /** Part of the chunk being read, `textFrom…textTo`, as latin1; and the chunk. */
  private text = '';
  private textFrom = 0;
  private textTo = 0;
  private textOf: Buffer | undefined;
  /** Where the last integer read ended in the text. */
  private integerEnd = 0;
  /** The rows' writer, when WebAssembly runs here; and whether it has the text's bytes. */
  private readonly byteRows: PlatformRows | undefined;
  private windowGiven = false;
  /** CSV rows of the entries read, waiting to be written together. */
  private rows = '';
  /** The labels read, by the text from their ErrorCode's value to their ServerZone's. */
  private readonly labels = new Map<string, Labels>();
  /** Label sets met lately, by recentSpot of their text: most entries' labels are found here, not hashed. */
  private readonly recentLabels = new Array<Labels | undefined>(RECENT_SPOTS).fill(undefined);

  /** `bytes: false` joins the rows as text, as where WebAssembly cannot run (for tests). */
  constructor(
    private readonly tally: OriginTally,
    private readonly csv: CsvByteWriter,
    options: { bytes?: boolean | undefined } = {},
  ) {
    this.byteRows = options.bytes === false ? undefined : createPlatformRows();
  }

  /** Reads the entry whose `{` is at `start` in `chunk`: the index after its `}`, or FAIL when it is in another form. */
  read(chunk: Buffer, start: number, chunkAt: number): number {
    if (this.textOf !== chunk) {
      this.textOf = chunk;
      this.textTo = 0;
    }
    if (start + LONGEST_MATCHED > this.textTo && this.textTo < chunk.length) {
      this.textFrom = start;
      this.textTo = Math.min(chunk.length, start + TEXT_WINDOW);
      this.text = chunk.toString('latin1', start, this.textTo);
      this.windowGiven = false;
    }
    const at = start - this.textFrom;
    PLATFORM_ENTRY.lastIndex = at;
    const match = PLATFORM_ENTRY.exec(this.text);
    if (match === null) return FAIL;
    const end = PLATFORM_ENTRY.lastIndex;
    this.count(match, at, end, chunkAt);
    return this.textFrom + end;
  }

  /** Counts the entry matched at `text[at…end)` and adds its CSV row to those waiting. */
  private count(match: RegExpExecArray, at: number, end: number, chunkAt: number): void {
    const tally = this.tally;
    const logId = match[1]!;
    const timestamp = this.integer(at + TO_LOG_ID + logId.length + TO_TIMESTAMP);
    const timestampEnd = this.integerEnd;
    this.indexer?.element(chunkAt + this.textFrom + at, chunkAt + this.textFrom + end, timestamp);
    const labels = this.labelsOf(match[4]!);
    const place = tally.placeLabels(timestamp, labels);
    if (place === NOWHERE || !tally.matches(labels.status, labels.errorCode, labels.serverZone)) return;
    const url = match[2]!;
    if (!tally.countLabels(place, timestamp, labels, url)) return;
    const message = match[3]!;
    if (this.byteRows)
      this.writeRow(
        this.byteRows,
        at,
        timestamp,
        timestampEnd,
        labels,
        url.length,
        message.length,
        logId.length,
      );
    else {
      if (this.rows.length > ROWS_WAITING) this.flush();
      this.rows += `${isoCell(tally.iso(timestamp))}${labels.cells}${plainCell(url)},${plainCell(message)},${plainCell(logId)}\r\n`;
    }
  }

  /**
   * The row of the entry matched at `text[at…)`, from its bytes: the URL follows the timestamp
   * (it ends at `timestampEnd`), the message the PullZoneId; the pattern matched every text between.
   */
  private writeRow(
    rows: PlatformRows,
    at: number,
    timestamp: number,
    timestampEnd: number,
    labels: Labels,
    urlLength: number,
    messageLength: number,
    logIdLength: number,
  ): void {
    if (!this.windowGiven) {
      rows.window(this.textOf!, this.textFrom, this.textTo);
      this.windowGiven = true;
    }
    const text = this.text;
    const url = timestampEnd + TO_URL;
    let message = url + urlLength + TO_PULL_ZONE_ID;
    if (text.charCodeAt(message) === MINUS) message++;
    for (
      let code = text.charCodeAt(message);
      code >= ZERO && code <= ZERO + 9;
      code = text.charCodeAt(++message)
    );
    message += TO_MESSAGE;
    // Each text is between the quotes the pattern matched (escaped in the `log` document's).
    if (
      text.charCodeAt(url - 1) !== QUOTE ||
      text.charCodeAt(message - 1) !== QUOTE ||
      text.charCodeAt(message + messageLength) !== BACKSLASH
    )
      throw new RangeError("an entry's fields are not where its pattern matched them");
    const from = this.textFrom;
    const cells = labels.kept ?? this.cellsOf(rows, labels);
    rows.write(
      this.csv,
      timestamp,
      cells,
      from + url,
      urlLength,
      from + message,
      messageLength,
      from + at + TO_LOG_ID,
      logIdLength,
    );
  }

  /** A label set's cells as bytes: kept with the set when it is kept, or for this row only. */
  private cellsOf(rows: PlatformRows, labels: Labels): KeptCells {
    if (labels.text === undefined) return rows.cellsOnce(labels.cells);
    // The memory has room for the cells of every set kept: the sets are forgotten first (readLabels).
    const kept = rows.keepCells(labels.cells);
    if (kept === undefined) throw new RangeError('more label sets kept than the rows have room for');
    labels.kept = kept;
    return kept;
  }

  /** Forgets every label set kept, and their cells' bytes. */
  private forgetLabels(rows: PlatformRows | undefined): void {
    this.labels.clear();
    this.recentLabels.fill(undefined);
    rows?.forgetCells();
  }

  /** The labels of a text from an ErrorCode's value to a ServerZone's: met lately, kept, or read. */
  private labelsOf(values: string): Labels {
    const spot = recentSpot(values);
    const recent = this.recentLabels[spot];
    if (recent !== undefined && recent.text === values) return recent;
    const labels = this.labels.get(values) ?? this.readLabels(values);
    if (labels.text !== undefined) this.recentLabels[spot] = labels;
    return labels;
  }

  /** The labels of a text from an ErrorCode's value to a ServerZone's, read once. */
  private readLabels(values: string): Labels {
    if (this.labels.size >= LABEL_SETS) this.forgetLabels(this.byteRows);
    const read = JSON.parse(`{"ErrorCode":"${values}"}`) as {
      ErrorCode: string;
      StatusCode: string;
      ServerZone: string;
    };
    const cells = `,${plainCell(read.StatusCode)},${plainCell(read.ErrorCode)},${plainCell(read.ServerZone)},`;
    const text = values.length <= LABELS_KEPT_CHARS ? ownText(values) : undefined;
    const labels: Labels = {
      errorCode: read.ErrorCode,
      status: read.StatusCode,
      serverZone: read.ServerZone,
      cells,
      kept: undefined,
      text,
    };
    if (text !== undefined) this.labels.set(text, labels);
    return labels;
  }

  /** The integer of at most 15 digits from `at` in the text. */
  private integer(at: number): number {
    const text = this.text;
    const negative = text.charCodeAt(at) === MINUS;
    let value = 0;
    let i = negative ? at + 1 : at;
    for (let code = text.charCodeAt(i); code >= ZERO && code <= ZERO + 9; code = text.charCodeAt(++i))
      value = value * 10 + (code - ZERO);
    this.integerEnd = i;
    return negative ? -value : value;
  }

  /** Writes the rows waiting: before any other row, and when a run of entries ends. */
  flush(): void {
    this.byteRows?.flush(this.csv);
    if (this.rows.length === 0) return;
    this.csv.ascii(this.rows);
    this.rows = '';
  }
}
