/**
 * A synthetic origin-error day shaped like the platform's (reference fixture 06), produced
 * chunk by chunk so a million entries never sit in memory: popular URLs plus a long tail of
 * unique ones, every documented error code, a malformed `log` string every `malformedEvery`.
 */
import { Readable } from 'node:stream';
import { SAMPLE_URLS } from '../src/sandbox/origin-logs.js';

export interface OriginDaySpec {
  entries: number;
  /** UTC midnight of the day, Unix ms. */
  dayStartMs: number;
  pullZoneId?: number;
  seed?: number;
  /** Every n-th entry carries a `log` that is not JSON; 0 for none. */
  malformedEvery?: number;
  /** Share of entries whose URL is unique (a long tail for the top-URL counter). */
  uniqueUrlShare?: number;
}

const KINDS = [
  ['dns_lookup', 502, 'Origin DNS lookup failed for origin.example.com'],
  ['http_timeout', 504, 'Origin did not respond within 30 seconds'],
  ['http_request_exception', 502, 'An exception occurred while sending the request to the origin'],
  ['http_request_failure', 500, 'The origin request failed: connection reset by peer'],
  ['http_invalid_range', 416, 'The origin returned an invalid range response'],
  ['http_loop_detected', 508, 'Request loop detected: the origin points back to the CDN'],
  ['http_invalid_compression', 502, 'The origin returned an invalid compressed response'],
  ['network_socket_exception', 502, 'Socket error while connecting to the origin: connection refused'],
  ['network_io_error', 502, 'Network I/O error while reading the origin response'],
  ['notfound_localdb', 400, 'The requested file was not found in the local database'],
  ['error', 500, 'Origin error'],
] as const;

const ZONES = ['DE', 'UK', 'NY', 'LA', 'SG', 'CA', 'FR', 'JP', 'SYD', 'WA', 'TX', 'BR', 'HK', 'MI'] as const;

const URLS = SAMPLE_URLS;

/** mulberry32: fast, deterministic, good enough for sample data (and the scanner's property test). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function uuid(next: () => number): string {
  const hex = (n: number) =>
    Math.floor(next() * 16 ** n)
      .toString(16)
      .padStart(n, '0');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(6)}${hex(6)}`;
}

/** The serialised entries of the day, in timestamp order. */
export function* originDayEntries(spec: OriginDaySpec): Generator<string> {
  const next = random(spec.seed ?? 1);
  const pullZoneId = spec.pullZoneId ?? 308006;
  const malformedEvery = spec.malformedEvery ?? 10_000;
  const uniqueShare = spec.uniqueUrlShare ?? 0.1;
  for (let i = 0; i < spec.entries; i++) {
    const [code, status, message] = KINDS[Math.floor(next() * KINDS.length)]!;
    const zone = ZONES[Math.floor(next() * ZONES.length)]!;
    const url =
      next() < uniqueShare
        ? `/img/${i.toString(36)}.jpg?v=${uuid(next)}`
        : URLS[Math.floor(next() * URLS.length)]!;
    const malformed = malformedEvery > 0 && i % malformedEvery === malformedEvery - 1;
    const log = malformed
      ? `{"RequestUrl":"${url}","PullZoneId":${pullZoneId},"Message":"Origin did not resp`
      : JSON.stringify({
          RequestUrl: url,
          PullZoneId: pullZoneId,
          Message: message,
          ErrorCode: code,
          StatusCode: status,
        });
    yield JSON.stringify({
      logId: uuid(next),
      timestamp: spec.dayStartMs + Math.floor(((i + next()) * 86_400_000) / spec.entries),
      log,
      labels: { ErrorCode: code, StatusCode: String(status), ServerZone: zone },
    });
  }
}

const CHUNK_CHARS = 64 * 1024;

/** `{"logs":[…]}` as Buffers of about 64 KiB. */
export function* originDayBody(spec: OriginDaySpec): Generator<Buffer> {
  let text = '{"logs":[';
  let first = true;
  for (const entry of originDayEntries(spec)) {
    text += first ? entry : `,${entry}`;
    first = false;
    if (text.length >= CHUNK_CHARS) {
      yield Buffer.from(text);
      text = '';
    }
  }
  yield Buffer.from(`${text}]}`);
}

/** The day as a readable stream, like an HTTP response body. */
export function originDayStream(spec: OriginDaySpec): Readable {
  return Readable.from(originDayBody(spec), { objectMode: false });
}
