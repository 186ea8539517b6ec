import { createHash } from 'node:crypto';
import { type Client, type InStatement, LibsqlError } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import type { SecretRegistry } from '../secrets/registry.js';
import { redactText, removeSecrets } from './audit-redaction.js';
import { retryBusy } from './busy.js';
import { canonicalJson, type JsonValue } from './canonical-json.js';
import type { StateStore } from './store.js';

/** The prev_hash of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** What callers record (PRODUCT §7). `time` defaults to now; params may hold secrets, they are removed. */
export const AuditEntrySchema = z.object({
  time: z.iso.datetime({ offset: true }).optional(),
  userId: z.string(),
  channelId: z.string(),
  operation: z.string().min(1),
  target: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  /** e.g. requested, denied, succeeded, failed, approved, rejected, cancelled, expired, unknown, error. */
  outcome: z.string().min(1),
  approvalId: z.string().nullable(),
  correlationId: z.string().min(1),
  detail: z.string().nullable().optional(),
});
export type AuditEntry = z.input<typeof AuditEntrySchema>;

/** The fields the hash covers: everything in a row but its id and the hashes. */
export interface AuditFields {
  time: string;
  userId: string;
  channelId: string;
  operation: string;
  target: string | null;
  params: Record<string, JsonValue>;
  outcome: string;
  approvalId: string | null;
  correlationId: string;
  detail: string | null;
}

export interface AuditRow extends AuditFields {
  id: number;
  prevHash: string;
  hash: string;
}

export type AuditVerification =
  | { ok: true; count: number }
  /** `count` is the number of intact rows before `brokenAt`. */
  | { ok: false; count: number; brokenAt: number; reason: string };

/** Which rows `/edge audit` asks for; every field given must match. */
export interface AuditFilter {
  userId?: string;
  /** Rows of any of these users. */
  userIds?: readonly string[];
  operation?: string;
  target?: string;
  approvalId?: string;
  /** The rows of one request. */
  correlationId?: string;
  /** ISO 8601: rows at or after this instant. */
  since?: string;
  /** Operations left out (the audit command's own reads). */
  excludeOperations?: readonly string[];
}

export interface AuditLog {
  append(entry: AuditEntry): Promise<AuditRow>;
  /** Newest first, at most 1000; `beforeId` pages further back; `filter` narrows in SQL. */
  list(options: { limit: number; beforeId?: number; filter?: AuditFilter }): Promise<AuditRow[]>;
  /** Walks the chain oldest first, a page per turn of the event loop, and reports the first broken link. */
  verify(): Promise<AuditVerification>;
  /**
   * Hands on the rows of a period a page at a time (never all at once), checking the chain over
   * the whole period as it goes, then filtering; a broken chain is reported and exported all the same.
   */
  exportRows(request: AuditExportRequest): Promise<AuditExportResult>;
}

export interface AuditLogOptions {
  store: StateStore;
  secrets: SecretRegistry;
  /** The store's clock by default. */
  now?: () => Date;
  /** Rows `verify` reads and hashes between two turns of the event loop; small enough to take a few ms. */
  verifyPageRows?: number;
}

/** The audit log could not be written or read; the message never carries row contents. */
export class AuditLogError extends InternalError {
  readonly kind = 'audit-log';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditLogError';
  }
}

/** sha256 over the canonical JSON of the row's fields followed by the previous row's hash, as hex. */
export function hashAuditRow(fields: AuditFields, prevHash: string): string {
  const canonical = canonicalJson({
    time: fields.time,
    userId: fields.userId,
    channelId: fields.channelId,
    operation: fields.operation,
    target: fields.target,
    params: fields.params,
    outcome: fields.outcome,
    approvalId: fields.approvalId,
    correlationId: fields.correlationId,
    detail: fields.detail,
  });
  return createHash('sha256')
    .update(canonical + prevHash)
    .digest('hex');
}

const StoredRowSchema = z.object({
  id: z.number().int(),
  time: z.string(),
  user_id: z.string(),
  channel_id: z.string(),
  operation: z.string(),
  target: z.string().nullable(),
  params: z.string(),
  outcome: z.string(),
  approval_id: z.string().nullable(),
  correlation_id: z.string(),
  detail: z.string().nullable(),
  prev_hash: z.string(),
  hash: z.string(),
});

const ParamsSchema = z.record(z.string(), z.json());
const HashRowSchema = z.object({ hash: z.string() });
const InsertedRowSchema = z.object({ id: z.number().int() });
const SequenceRowSchema = z.object({ seq: z.number().int() });

const COLUMNS =
  'id, time, user_id, channel_id, operation, target, params, outcome, approval_id, correlation_id, detail, prev_hash, hash';

type Decoded = { ok: true; row: AuditRow } | { ok: false; id: number | null; reason: string };

function decodeRow(raw: unknown): Decoded {
  const stored = StoredRowSchema.safeParse(raw);
  if (!stored.success) {
    const id = z.object({ id: z.number().int() }).safeParse(raw);
    return {
      ok: false,
      id: id.success ? id.data.id : null,
      reason: 'the row has missing or mistyped columns',
    };
  }
  const s = stored.data;
  let params: z.infer<typeof ParamsSchema>;
  try {
    const parsed = ParamsSchema.safeParse(JSON.parse(s.params));
    if (!parsed.success) return { ok: false, id: s.id, reason: 'the params column is not a JSON object' };
    params = parsed.data;
  } catch {
    return { ok: false, id: s.id, reason: 'the params column is not valid JSON' };
  }
  return {
    ok: true,
    row: {
      id: s.id,
      time: s.time,
      userId: s.user_id,
      channelId: s.channel_id,
      operation: s.operation,
      target: s.target,
      params,
      outcome: s.outcome,
      approvalId: s.approval_id,
      correlationId: s.correlation_id,
      detail: s.detail,
      prevHash: s.prev_hash,
      hash: s.hash,
    },
  };
}

function isConstraintError(error: unknown): boolean {
  if (!(error instanceof LibsqlError)) return false;
  return [error.code, error.extendedCode ?? ''].some((code) => code.startsWith('SQLITE_CONSTRAINT'));
}

const MAX_APPEND_ATTEMPTS = 50;
/** About 20–50 µs a row to read, decode and hash on a `file:` database: a few ms a page. */
const VERIFY_PAGE = 100;
const LIST_MAX = 1000;

/** The first broken link of a chain: the row where it breaks, and why. */
interface ChainBreak {
  brokenAt: number;
  reason: string;
}

/**
 * Whether the row read just after row `lastId` (whose hash was `expectedPrev`) holds: readable,
 * linked to it, next in line, and hashed over what it says. Undefined when it does.
 */
function brokenLink(decoded: Decoded, expectedPrev: string, lastId: number): ChainBreak | undefined {
  if (!decoded.ok) return { brokenAt: decoded.id ?? lastId + 1, reason: decoded.reason };
  const row = decoded.row;
  if (row.prevHash !== expectedPrev)
    return {
      brokenAt: row.id,
      reason: 'prev_hash does not match the previous row: a row before it was deleted or rewritten',
    };
  // Ids are issued one after another and rows are never deleted (an append that fails
  // takes no id), so a gap is rows deleted: at the end of the chain, before a new row
  // was chained onto what was left, the hashes alone cannot show it.
  if (row.id !== lastId + 1)
    return {
      brokenAt: row.id,
      reason: `ids ${lastId + 1}–${row.id - 1} are missing: rows before this one were deleted`,
    };
  if (hashAuditRow(row, row.prevHash) !== row.hash)
    return { brokenAt: row.id, reason: 'hash does not match the row: the row was changed' };
  return undefined;
}

/** The highest id issued so far; a chain cannot show its own tail being cut off, this counter can. */
async function issuedUpTo(client: Client): Promise<number | undefined> {
  const sequence = await retryBusy(() =>
    client.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'"),
  );
  const seq = SequenceRowSchema.safeParse(sequence.rows[0]);
  return seq.success ? seq.data.seq : undefined;
}

/** The tail's verdict: the chain read must reach as far as ids had been issued before it was read. */
function cutTail(issued: number | undefined, lastId: number): ChainBreak | undefined {
  if (issued === undefined || issued <= lastId) return undefined;
  return {
    brokenAt: lastId + 1,
    reason: `the newest rows were deleted: ids up to ${issued} were issued, ${lastId} is the last left`,
  };
}

/**
 * Raw rows with ids above `afterId` (and at most `upToId`), oldest first, a page at a time,
 * after a turn of the event loop each: a `file:` database answers without yielding, and without
 * these turns a long chain would hold the event loop.
 */
async function* chainPages(
  client: Client,
  afterId: number,
  pageRows: number,
  upToId?: number,
): AsyncGenerator<readonly Record<string, unknown>[]> {
  let lastId = afterId;
  const upTo = upToId === undefined ? '' : ' AND id <= ?';
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const page = await retryBusy(() =>
      client.execute({
        sql: `SELECT ${COLUMNS} FROM audit_log WHERE id > ?${upTo} ORDER BY id LIMIT ?`,
        args: upToId === undefined ? [lastId, pageRows] : [lastId, upToId, pageRows],
      }),
    );
    if (page.rows.length > 0) yield page.rows;
    if (page.rows.length < pageRows) return;
    const id = z.object({ id: z.number().int() }).safeParse(page.rows.at(-1));
    // A row without a readable id cannot be paged past; the check has already said where it broke.
    if (!id.success) return;
    lastId = id.data.id;
  }
}

/**
 * Walks the chain from its first row, a page at a time, yielding to the event loop before each
 * page; says where it first breaks, or how many rows hold.
 */
async function verifyChain(client: Client, verifyPage: number): Promise<AuditVerification> {
  // Read first: rows appended meanwhile (here or on another replica) only lengthen the chain.
  const issued = await issuedUpTo(client);
  let expectedPrev = GENESIS_HASH;
  let count = 0;
  let lastId = 0;
  for await (const page of chainPages(client, 0, verifyPage)) {
    for (const raw of page) {
      const decoded = decodeRow(raw);
      const broken = brokenLink(decoded, expectedPrev, lastId);
      if (broken) return { ok: false, count, ...broken };
      if (!decoded.ok) break;
      expectedPrev = decoded.row.hash;
      lastId = decoded.row.id;
      count++;
    }
  }
  const tail = cutTail(issued, lastId);
  return tail ? { ok: false, count, ...tail } : { ok: true, count };
}

/** The columns of an exported row, in the table's order: every field, with both hashes. */
export const AUDIT_EXPORT_COLUMNS = [
  'id',
  'time',
  'user_id',
  'channel_id',
  'operation',
  'target',
  'params',
  'outcome',
  'approval_id',
  'correlation_id',
  'detail',
  'prev_hash',
  'hash',
] as const;

/** What `/edge audit --export` asks for: the period, then the rows kept of it. */
export interface AuditExportRequest {
  /** ISO 8601: the period starts here and runs to the newest row when the export starts. */
  since: string;
  /** Rows of any of these users; every user when empty. */
  userIds?: readonly string[];
  operation?: string;
  /**
   * Takes each page's kept rows, as stored (AUDIT_EXPORT_COLUMNS, null as ''), oldest first;
   * the next page is read once it resolves. Throwing stops the export.
   */
  write(rows: readonly string[][]): Promise<void>;
  /** Cancels the walk between pages, whether or not a page had rows to write. */
  signal?: AbortSignal;
}

export interface AuditExportResult {
  /** The chain over the whole period (and the link into it), before any filter. */
  verification: AuditVerification;
  /** Rows the period holds, and those the filter kept. */
  inPeriod: number;
  exported: number;
}

const ExportCellSchema = z.union([z.string(), z.number(), z.null()]);

/** A stored row's columns as text, whatever a tampered row holds: the file shows what is there. */
const exportCells = (raw: Record<string, unknown>): string[] =>
  AUDIT_EXPORT_COLUMNS.map((column) => {
    const value = ExportCellSchema.safeParse(raw[column]);
    return value.success && value.data !== null ? String(value.data) : '';
  });

const IdTimeSchema = z.object({ id: z.number().int(), time: z.unknown() });

/**
 * The smallest id from which every row is in the period, found by halving over ids, a few
 * indexed reads (the time column has no index, and a scan would hold the event loop). Rows are
 * appended in time order, so the first row at or after an id tells which side of `since` it is.
 */
async function firstIdSince(client: Client, since: string, upToId: number): Promise<number> {
  let low = 1;
  let high = upToId + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const result = await retryBusy(() =>
      client.execute({
        sql: 'SELECT id, time FROM audit_log WHERE id >= ? AND id <= ? ORDER BY id LIMIT 1',
        args: [middle, upToId],
      }),
    );
    const row = IdTimeSchema.safeParse(result.rows[0]);
    if (!row.success || (typeof row.data.time === 'string' && row.data.time >= since)) high = middle;
    else low = row.data.id + 1;
  }
  return low;
}

/**
 * The rows of a period, oldest first, a page per turn of the event loop: the chain is checked
 * over every row of the period (from the link into its first row), whatever the filter keeps,
 * and a break is reported, not a reason to stop.
 */
async function exportPeriod(
  client: Client,
  pageRows: number,
  request: AuditExportRequest,
): Promise<AuditExportResult> {
  const issued = (await issuedUpTo(client)) ?? 0;
  const first = await firstIdSince(client, request.since, issued);
  // The row before the period is read too: its hash is what the period's first row links to.
  const afterId = Math.max(0, first - 2);
  const users = new Set(request.userIds ?? []);
  let expectedPrev: string | undefined = afterId === 0 ? GENESIS_HASH : undefined;
  let lastId = afterId;
  let broken: ChainBreak | undefined;
  let inPeriod = 0;
  let intact = 0;
  let exported = 0;
  for await (const page of chainPages(client, afterId, pageRows, issued)) {
    request.signal?.throwIfAborted();
    const kept: string[][] = [];
    for (const raw of page) {
      const decoded = decodeRow(raw);
      const cells = exportCells(raw);
      // The row before the period vouches for itself only: its link to older rows is not this period's.
      const linkedTo = expectedPrev ?? (decoded.ok ? decoded.row.prevHash : '');
      broken ??= brokenLink(decoded, linkedTo, lastId);
      expectedPrev = cells[12]!;
      lastId = Number(cells[0]) || lastId + 1;
      if (lastId < first) continue;
      inPeriod++;
      if (!broken) intact++;
      const [, time, userId, , operation] = cells;
      if (time! < request.since) continue;
      if (users.size > 0 && !users.has(userId!)) continue;
      if (request.operation !== undefined && operation !== request.operation) continue;
      kept.push(cells);
    }
    if (kept.length > 0) {
      exported += kept.length;
      await request.write(kept);
    }
  }
  broken ??= cutTail(issued, lastId);
  const verification: AuditVerification = broken
    ? { ok: false, count: intact, ...broken }
    : { ok: true, count: intact };
  return { verification, inPeriod, exported };
}

export function createAuditLog(options: AuditLogOptions): AuditLog {
  const { store, secrets } = options;
  const client = store.client;
  const now = options.now ?? store.now;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const verifyPage = Math.max(1, Math.trunc(options.verifyPageRows ?? VERIFY_PAGE));

  // Appends from this process go one at a time, so they never race each other for the chain's end.
  let queue: Promise<unknown> = Promise.resolve();
  // The end of the chain as this process last saw it; another replica may have moved it on.
  let knownLastHash: string | null = null;

  const readLastHash = async (): Promise<string> => {
    const result = await retryBusy(() =>
      client.execute('SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1'),
    );
    const row = result.rows[0];
    return row === undefined ? GENESIS_HASH : HashRowSchema.parse(row).hash;
  };

  const insertAfter = (fields: AuditFields, prevHash: string, hash: string): InStatement => ({
    // Inserts only if prevHash is still the chain's end: a compare-and-swap inside one write batch.
    sql: `INSERT INTO audit_log (time, user_id, channel_id, operation, target, params, outcome,
            approval_id, correlation_id, detail, prev_hash, hash)
          SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
          WHERE COALESCE((SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1), ?) = ?
          RETURNING id`,
    args: [
      fields.time,
      fields.userId,
      fields.channelId,
      fields.operation,
      fields.target,
      canonicalJson(fields.params),
      fields.outcome,
      fields.approvalId,
      fields.correlationId,
      fields.detail,
      prevHash,
      hash,
      GENESIS_HASH,
      prevHash,
    ],
  });

  const appendNow = async (fields: AuditFields): Promise<AuditRow> => {
    let prevHash = knownLastHash ?? (await readLastHash());
    for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt++) {
      const hash = hashAuditRow(fields, prevHash);
      let insertedId: number | null = null;
      try {
        const [result] = await retryBusy(() => client.batch([insertAfter(fields, prevHash, hash)], 'write'));
        const row = result?.rows[0];
        if (row !== undefined) insertedId = InsertedRowSchema.parse(row).id;
      } catch (error) {
        // The unique prev_hash index refusing a second successor is a lost race like any other.
        if (!isConstraintError(error))
          throw new AuditLogError('could not write the audit row', { cause: error });
      }
      if (insertedId !== null) {
        knownLastHash = hash;
        return { id: insertedId, ...fields, prevHash, hash };
      }
      if (attempt > 1) await sleep(Math.random() * 5 * attempt);
      prevHash = await readLastHash();
    }
    throw new AuditLogError('could not append to the audit chain: other writers kept moving its end');
  };

  return {
    async append(entry) {
      const result = AuditEntrySchema.safeParse(entry);
      if (!result.success) {
        const field = result.error.issues[0]?.path.join('.') ?? 'entry';
        throw new AuditLogError(`audit entry is invalid at ${field}`, { cause: result.error });
      }
      const parsed = result.data;
      const fields: AuditFields = {
        time: parsed.time ?? now().toISOString(),
        userId: secrets.redact(parsed.userId),
        channelId: secrets.redact(parsed.channelId),
        operation: secrets.redact(parsed.operation),
        target: redactText(parsed.target, secrets),
        params: removeSecrets(parsed.params, secrets),
        outcome: secrets.redact(parsed.outcome),
        approvalId: redactText(parsed.approvalId, secrets),
        correlationId: secrets.redact(parsed.correlationId),
        detail: redactText(parsed.detail ?? null, secrets),
      };
      const run = queue.then(() => appendNow(fields));
      queue = run.catch(() => undefined);
      return run;
    },

    async list({ limit, beforeId, filter = {} }) {
      const bounded = Number.isFinite(limit) ? Math.min(Math.max(Math.trunc(limit), 1), LIST_MAX) : LIST_MAX;
      const where = ['id < ?'];
      const args: (string | number)[] = [beforeId ?? Number.MAX_SAFE_INTEGER];
      const equal = (column: string, value: string | undefined) => {
        if (value === undefined) return;
        where.push(`${column} = ?`);
        args.push(value);
      };
      equal('user_id', filter.userId);
      if (filter.userIds && filter.userIds.length > 0) {
        where.push(`user_id IN (${filter.userIds.map(() => '?').join(', ')})`);
        args.push(...filter.userIds);
      }
      equal('operation', filter.operation);
      equal('target', filter.target);
      equal('approval_id', filter.approvalId);
      equal('correlation_id', filter.correlationId);
      if (filter.since !== undefined) {
        where.push('time >= ?');
        args.push(filter.since);
      }
      const excluded = filter.excludeOperations ?? [];
      if (excluded.length > 0) {
        where.push(`operation NOT IN (${excluded.map(() => '?').join(', ')})`);
        args.push(...excluded);
      }
      const result = await retryBusy(() =>
        client.execute({
          sql: `SELECT ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
          args: [...args, bounded],
        }),
      );
      return result.rows.map((raw) => {
        const decoded = decodeRow(raw);
        if (!decoded.ok)
          throw new AuditLogError(`audit row ${decoded.id ?? '?'} is unreadable: ${decoded.reason}`);
        return decoded.row;
      });
    },

    verify: () => verifyChain(client, verifyPage),
    exportRows: (request) => exportPeriod(client, verifyPage, request),
  };
}
