/**
 * Origin error log days, generated on demand: the same seed, pull zone and date always give the
 * same entries, and a day is produced entry by entry while it is streamed, never held whole.
 */
import { Readable } from 'node:stream';
import { createRandom } from './random.js';

export interface OriginLogDaySpec {
  seed: number;
  pullZoneId: number;
  /** UTC midnight of the day, in Unix milliseconds. */
  dayStart: number;
  /** Entries in the whole day. */
  count: number;
  /** Entries stamped after this instant (the sandbox clock's now) are not produced: they have not happened. */
  notAfter: number;
  /** Serialised entries added by a knob, listed before the generated ones (the vendor promises no order). */
  added?: readonly string[];
}

/**
 * Entries a knob added, serialised as the generated ones are; their log ids are fixed by the pull
 * zone, the burst's place among the zone's bursts and the entry's place in it.
 */
export function addedOriginEntries(
  pullZoneId: number,
  burst: number,
  burstSpec: { at: number; count: number; status?: number; code?: string },
): string[] {
  const code = burstSpec.code ?? 'http_timeout';
  const status = burstSpec.status ?? 504;
  const entries: string[] = [];
  for (let i = 0; i < burstSpec.count; i++) {
    const log = `{"RequestUrl":"/api/v1/checkout","PullZoneId":${pullZoneId},"Message":"Added by the sandbox","ErrorCode":"${code}","StatusCode":${status}}`;
    entries.push(
      `{"logId":"added-${pullZoneId}-${burst}-${i}","timestamp":${burstSpec.at},"log":${JSON.stringify(log)},"labels":{"ErrorCode":"${code}","StatusCode":"${status}","ServerZone":"DE"}}`,
    );
  }
  return entries;
}

/** The label values documented for origin errors (reference 06), with the status each one usually carries. */
const ERROR_KINDS: readonly (readonly [
  { code: string; statuses: readonly number[]; message: string },
  number,
])[] = [
  [{ code: 'dns_lookup', statuses: [502], message: 'Origin DNS lookup failed for origin.example.com' }, 12],
  [{ code: 'http_timeout', statuses: [504], message: 'Origin did not respond within 30 seconds' }, 20],
  [
    {
      code: 'http_request_exception',
      statuses: [502],
      message: 'An exception occurred while sending the request to the origin',
    },
    8,
  ],
  [
    {
      code: 'http_request_failure',
      statuses: [500, 502],
      message: 'The origin request failed: connection reset by peer',
    },
    10,
  ],
  [
    { code: 'http_invalid_range', statuses: [416], message: 'The origin returned an invalid range response' },
    4,
  ],
  [
    {
      code: 'http_loop_detected',
      statuses: [508],
      message: 'Request loop detected: the origin points back to the CDN',
    },
    2,
  ],
  [
    {
      code: 'http_invalid_compression',
      statuses: [502],
      message: 'The origin returned an invalid compressed response',
    },
    2,
  ],
  [
    {
      code: 'network_socket_exception',
      statuses: [502],
      message: 'Socket error while connecting to the origin: connection refused',
    },
    10,
  ],
  [
    {
      code: 'network_io_error',
      statuses: [502, 500],
      message: 'Network I/O error while reading the origin response',
    },
    8,
  ],
  [
    {
      code: 'notfound_localdb',
      statuses: [400],
      message: 'The requested file was not found in the local database',
    },
    3,
  ],
  [{ code: 'error', statuses: [500], message: 'Origin error' }, 5],
];

const SERVER_ZONES: readonly (readonly [string, number])[] = [
  ['DE', 18],
  ['UK', 12],
  ['NY', 14],
  ['LA', 9],
  ['SG', 7],
  ['CA', 6],
  ['FR', 6],
  ['JP', 5],
  ['SYD', 4],
  ['WA', 4],
  ['TX', 4],
  ['BR', 3],
  ['HK', 3],
  ['MI', 2],
];

/** Paths that see origin errors; the benchmarks' synthetic days use them too. */
export const SAMPLE_URLS: readonly string[] = [
  '/',
  '/index.html',
  '/assets/app.3f9c1a.js',
  '/assets/styles.8d2e.css',
  '/images/hero.webp',
  '/api/v1/products?page=2',
  '/api/v1/cart',
  '/api/v1/checkout',
  '/video/intro/playlist.m3u8',
  '/video/intro/1080p/segment_00042.ts',
  '/downloads/installer-2.4.1.dmg',
  '/fonts/inter.woff2',
  '/search?q=shoes&sort=price',
  '/wp-login.php',
  '/.env',
  '/blog/2025/edge-caching',
];

/** `log` strings that are not JSON: the entry still carries its labels. */
const MALFORMED_LOGS: readonly ((pullZoneId: number) => string)[] = [
  (id) => `{"RequestUrl":"/api/v1/cart","PullZoneId":${id},"Message":"Origin did not resp`,
  () => 'origin error: upstream connect error or disconnect/reset before headers',
  (id) => `{"RequestUrl": "/images/hero.webp", "PullZoneId": ${id}, "StatusCode": 502,}`,
];

const HOSTILE_URL = '/search?q=<!channel>';

/** Serialised entries of one day, in timestamp order. */
export function* originLogEntries(spec: OriginLogDaySpec): Generator<string> {
  const { count, pullZoneId, dayStart } = spec;
  const random = createRandom(spec.seed, 'origin-log', pullZoneId, dayStart);
  const malformed = new Set(
    count >= 8 ? [Math.floor(count / 4), Math.floor(count / 2) + 1, Math.floor((3 * count) / 4) + 2] : [],
  );
  const hostileAt = Math.floor(count / 3);
  for (let i = 0; i < count; i++) {
    const timestamp = dayStart + Math.floor(((i + random.next()) * 86_400_000) / count);
    if (timestamp > spec.notAfter) return;
    const kind = random.weighted(ERROR_KINDS);
    const status = random.pick(kind.statuses);
    const zone = random.weighted(SERVER_ZONES);
    const url = i === hostileAt ? HOSTILE_URL : random.pick(SAMPLE_URLS);
    const isMalformed = malformed.has(i) || (count > 20_000 && i % 10_007 === 5_003);
    // Built by hand rather than with JSON.stringify of objects: a million-entry day is generated per request.
    const log = isMalformed
      ? random.pick(MALFORMED_LOGS)(pullZoneId)
      : `{"RequestUrl":${JSON.stringify(url)},"PullZoneId":${pullZoneId},"Message":${JSON.stringify(kind.message)},"ErrorCode":"${kind.code}","StatusCode":${status}}`;
    yield `{"logId":"${random.uuid()}","timestamp":${timestamp},"log":${JSON.stringify(log)},"labels":{"ErrorCode":"${kind.code}","StatusCode":"${status}","ServerZone":"${zone}"}}`;
  }
}

/** Roughly this many characters per pushed chunk, so a million entries are not a million writes. */
const CHUNK_CHARS = 64 * 1024;

/** `{"logs":[…]}` produced chunk by chunk as the reader asks for more. */
export function originLogDayStream(spec: OriginLogDaySpec): Readable {
  const entries = (function* () {
    yield* spec.added ?? [];
    yield* originLogEntries(spec);
  })();
  let started = false;
  let first = true;
  let finished = false;
  return new Readable({
    read() {
      if (finished) return;
      let chunk = started ? '' : '{"logs":[';
      started = true;
      while (chunk.length < CHUNK_CHARS) {
        const next = entries.next();
        if (next.done) {
          chunk += ']}';
          finished = true;
          break;
        }
        chunk += first ? next.value : `,${next.value}`;
        first = false;
      }
      this.push(chunk);
      if (finished) this.push(null);
    },
  });
}

/** How many entries the seeded zone has on that day: its base rate ±40 %. */
export function seededDayCount(seed: number, pullZoneId: number, dayStart: number, perDay: number): number {
  if (perDay === 0) return 0;
  const random = createRandom(seed, 'origin-log-count', pullZoneId, dayStart);
  return Math.round(perDay * (0.6 + 0.8 * random.next()));
}
