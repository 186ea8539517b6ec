/**
 * The origin-log summary on two threads: while the report worker reads the entries and writes the
 * CSV (worker.ts), a second one counts their texts (text-counts.ts), the part that costs most
 * after the reading. The reader hands each entry's texts over in batches of numbers: a label is
 * sent once and then by its number, a URL as text. The counter answers with its counts at the end.
 * Everything is counted in the order of the body, so the counts are exactly those of one thread.
 */
import type { MessagePort } from 'node:worker_threads';
import { CounterTaskSchema } from '../tasks.js';
import { OriginTextCounts, type TextCounter, type TextCounts, TextCountsSchema } from './text-counts.js';

/** Entries' texts per message. */
const BATCH_EVENTS = 4096;
/** Numbers per text event: place (0 for an entry read), status, error code, server zone, URL length. */
const EVENT = 5;
/** Labels sent once and then by number; past this many distinct ones, the rest are sent as text. */
const LABEL_IDS = 4096;
/** Longer labels are always sent as text: the numbered ones stay within LABEL_IDS × this. */
const LABEL_ID_CHARS = 256;
/** A text absent; a text sent as text, of length n, is -2 - n. */
const ABSENT = -1;

interface TextsMessage {
  type: 'texts';
  /** Labels numbered from the last one sent on. */
  labels: string[];
  events: Int32Array;
  length: number;
  /** The texts sent as text, one after the other. */
  inline: string;
}

/** The reader's side: a TextCounter whose counting is done by the counter thread at the other end of `port`. */
export class TextCountsSender implements TextCounter {
  private readonly ids = new Map<string, number>();
  private labels: string[] = [];
  private events = new Int32Array(BATCH_EVENTS * EVENT);
  private length = 0;
  private inline = '';

  constructor(private readonly port: MessagePort) {}

  seen(errorCode: string | undefined, serverZone: string | undefined): void {
    this.push(0, ABSENT, this.label(errorCode), this.label(serverZone), 0);
  }

  counted(place: number, status: string, errorCode: string, serverZone: string, url: string): void {
    const statusCode = this.label(status);
    const errorCodeCode = this.label(errorCode);
    const serverZoneCode = this.label(serverZone);
    this.inline += url;
    this.push(place, statusCode, errorCodeCode, serverZoneCode, url.length);
  }

  /** Sends what is left, and gives the counts once the counter has counted everything. */
  finish(): Promise<TextCounts> {
    this.send();
    const counts = new Promise<TextCounts>((resolve, reject) => {
      this.port.on('message', (raw: unknown) => {
        const reply = raw as { type?: unknown; counts?: unknown };
        if (reply.type === 'counts') resolve(TextCountsSchema.parse(reply.counts));
      });
      this.port.on('close', () => reject(new Error('the origin-log counter stopped before it answered')));
    });
    this.port.postMessage({ type: 'end' });
    return counts;
  }

  /** Stops the counter: after a failure, or once its counts are in. */
  close(): void {
    this.port.close();
  }

  private label(text: string | undefined): number {
    if (text === undefined) return ABSENT;
    const id = this.ids.get(text);
    if (id !== undefined) return id;
    if (this.ids.size < LABEL_IDS && text.length <= LABEL_ID_CHARS) {
      const next = this.ids.size;
      this.ids.set(text, next);
      this.labels.push(text);
      return next;
    }
    this.inline += text;
    return -2 - text.length;
  }

  private push(place: number, status: number, errorCode: number, serverZone: number, url: number): void {
    const at = this.length;
    const events = this.events;
    events[at] = place;
    events[at + 1] = status;
    events[at + 2] = errorCode;
    events[at + 3] = serverZone;
    events[at + 4] = url;
    this.length = at + EVENT;
    if (this.length === events.length) this.send();
  }

  private send(): void {
    if (this.length === 0 && this.labels.length === 0) return;
    const message: TextsMessage = {
      type: 'texts',
      labels: this.labels,
      events: this.events,
      length: this.length,
      inline: this.inline,
    };
    this.port.postMessage(message, [this.events.buffer]);
    this.labels = [];
    this.events = new Int32Array(BATCH_EVENTS * EVENT);
    this.length = 0;
    this.inline = '';
  }
}

/** Counts one batch of texts, as the reader's TextCounter was told them. */
function count(counts: OriginTextCounts, labels: string[], message: TextsMessage): void {
  labels.push(...message.labels);
  const { events, length, inline } = message;
  let at = 0;
  const text = (code: number): string | undefined => {
    if (code >= 0) return labels[code];
    if (code === ABSENT) return undefined;
    const value = inline.slice(at, at - 2 - code);
    at += -2 - code;
    return value;
  };
  for (let i = 0; i < length; i += EVENT) {
    const place = events[i]!;
    if (place === 0) {
      counts.seen(text(events[i + 2]!), text(events[i + 3]!));
      continue;
    }
    const status = text(events[i + 1]!) ?? '';
    const errorCode = text(events[i + 2]!) ?? '';
    const serverZone = text(events[i + 3]!) ?? '';
    const url = inline.slice(at, at + events[i + 4]!);
    at += events[i + 4]!;
    counts.counted(place, status, errorCode, serverZone, url);
  }
}

function isTexts(raw: unknown): raw is TextsMessage {
  if (typeof raw !== 'object' || raw === null) return false;
  const { type, labels, events, length, inline } = raw as Record<string, unknown>;
  return (
    type === 'texts' &&
    Array.isArray(labels) &&
    labels.every((label) => typeof label === 'string') &&
    events instanceof Int32Array &&
    Number.isSafeInteger(length) &&
    (length as number) <= events.length &&
    typeof inline === 'string'
  );
}

/** The counter thread: counts what the reader sends until it says the body is read, then answers. */
export default async function countOriginTextsInWorker(input: unknown): Promise<boolean> {
  const { port, comparisons } = CounterTaskSchema.parse(input);
  const counts = new OriginTextCounts(comparisons);
  const labels: string[] = [];
  try {
    // True once the reader said the body is read; false when it went away first (it failed or was cancelled).
    return await new Promise<boolean>((resolve, reject) => {
      port.on('message', (raw: unknown) => {
        try {
          if (isTexts(raw)) count(counts, labels, raw);
          else if ((raw as { type?: unknown } | null)?.type === 'end') {
            port.postMessage({ type: 'counts', counts: counts.counts() });
            resolve(true);
          }
        } catch (error) {
          reject(error);
        }
      });
      port.on('close', () => resolve(false));
    });
  } finally {
    port.close();
  }
}
