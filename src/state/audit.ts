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
  operation?: string;
  target?: string;
  approvalId?: string;
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

/**
 * Walks the chain from its first row, a page at a time, yielding to the event loop before each
 * page; says where it first breaks, or how many rows hold.
 */
async function verifyChain(client: Client, verifyPage: number): Promise<AuditVerification> {
  // A chain cannot show its own tail being cut off; the AUTOINCREMENT counter still remembers it.
  const sequence = await retryBusy(() =>
    client.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'"),
  );
  const seq = SequenceRowSchema.safeParse(sequence.rows[0]);
  let expectedPrev = GENESIS_HASH;
  let count = 0;
  let lastId = 0;
  for (;;) {
    // A `file:` database answers without yielding: without this turn, the whole chain would hold the event loop.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const page = await retryBusy(() =>
      client.execute({
        sql: `SELECT ${COLUMNS} FROM audit_log WHERE id > ? ORDER BY id LIMIT ?`,
        args: [lastId, verifyPage],
      }),
    );
    for (const raw of page.rows) {
      const decoded = decodeRow(raw);
      if (!decoded.ok)
        return { ok: false, count, brokenAt: decoded.id ?? lastId + 1, reason: decoded.reason };
      const row = decoded.row;
      if (row.prevHash !== expectedPrev)
        return {
          ok: false,
          count,
          brokenAt: row.id,
          reason: 'prev_hash does not match the previous row: a row before it was deleted or rewritten',
        };
      // Ids are issued one after another and rows are never deleted (an append that fails
      // takes no id), so a gap is rows deleted: at the end of the chain, before a new row
      // was chained onto what was left, the hashes alone cannot show it.
      if (row.id !== lastId + 1)
        return {
          ok: false,
          count,
          brokenAt: row.id,
          reason: `ids ${lastId + 1}–${row.id - 1} are missing: rows before this one were deleted`,
        };
      if (hashAuditRow(row, row.prevHash) !== row.hash)
        return {
          ok: false,
          count,
          brokenAt: row.id,
          reason: 'hash does not match the row: the row was changed',
        };
      expectedPrev = row.hash;
      lastId = row.id;
      count++;
    }
    if (page.rows.length < verifyPage) break;
  }
  // The chain must reach at least as far as ids were issued before it was read: the
  // counter was read first, so rows appended meanwhile (here or on another replica) only
  // lengthen the chain and are never taken for a tail that was cut off.
  if (seq.success && seq.data.seq > lastId)
    return {
      ok: false,
      count,
      brokenAt: lastId + 1,
      reason: `the newest rows were deleted: ids up to ${seq.data.seq} were issued, ${lastId} is the last left`,
    };
  return { ok: true, count };
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
      equal('operation', filter.operation);
      equal('target', filter.target);
      equal('approval_id', filter.approvalId);
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
  };
}
