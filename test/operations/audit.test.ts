/** `/edge audit` through the engine: every command leaves a row, and the hash chain verifies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../src/reply/model.js';
import { cellField } from '../../src/reply/table.js';
import { renderReply } from '../../src/slack/blocks/reply.js';
import { validateBlocks } from '../support/block-kit.js';
import { type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

/** The requests of an audit answer's table, by column: each cell as its text (a member as their id). */
const requestsOf = (reply: Reply) =>
  reply.blocks.flatMap((block) =>
    block.type === 'table'
      ? block.table.rows.map((row) =>
          Object.fromEntries(
            block.table.columns.map((column, i) => [column.header, cellField(row[i] ?? '')]),
          ),
        )
      : [],
  );

describe('/edge audit', () => {
  it('writes an audit row for each command and the chain verifies', async () => {
    onlyAnswer(await bed.run('dns'));
    bed.sandbox.faults.set('dnszone.list', { status: 503, times: 3 });
    onlyAnswer(await bed.run('dns'));
    const answer = onlyAnswer(await bed.run('audit --limit 5 --verify'));
    expect(JSON.stringify(answer.blocks)).toContain('The hash chain verifies');
    const rows = await bed.runtime.services.audit.list({ limit: 100 });
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'succeeded')).toBe(true);
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'failed')).toBe(true);
  });

  it('shows one line per request, and leaves its own reads out unless --all', async () => {
    await bed.run('audit');
    onlyAnswer(await bed.run('apikeys', { userId: 'U0ANN' }));
    const requests = requestsOf(onlyAnswer(await bed.run('audit --limit 50')));
    expect(requests.some((r) => r.Operation === 'apikey.list' && r.Steps === 'succeeded')).toBe(true);
    // The started row of a finished request is folded into its outcome.
    expect(requests.filter((r) => r.Steps === 'started')).toEqual([]);
    expect(requests.filter((r) => r.Operation === 'audit.list')).toEqual([]);
    const all = requestsOf(onlyAnswer(await bed.run('audit --limit 50 --all')));
    expect(all.some((r) => r.Operation === 'audit.list')).toBe(true);
  });

  it('narrows by user, as an id or as Slack delivers a mention, by operation and by target', async () => {
    onlyAnswer(await bed.run('dns', { userId: 'U0BEA' }));
    for (const user of ['U0BEA', '<@U0BEA|bea>', '&lt;@U0BEA|bea&gt;']) {
      const answer = onlyAnswer(await bed.run(`audit --user ${user}`));
      const requests = requestsOf(answer);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((r) => r.User === 'U0BEA')).toBe(true);
      expect(wordsOf(answer)).toContain('Showing user <@U0BEA>');
    }
    const byOp = requestsOf(onlyAnswer(await bed.run('audit --op apikey.list')));
    expect(byOp.length).toBeGreaterThan(0);
    expect(byOp.every((r) => r.Operation === 'apikey.list')).toBe(true);
    expect(requestsOf(onlyAnswer(await bed.run('audit --target nothing-has-this')))).toEqual([]);
  });

  it('takes --since as a duration or a time, and --request as an approval id', async () => {
    const start = bed.clock();
    onlyAnswer(await bed.run('dns', { userId: 'U0OLD' }));
    bed.clock.set(start + 3 * 3_600_000);
    onlyAnswer(await bed.run('dns', { userId: 'U0NEW' }));
    const recent = requestsOf(onlyAnswer(await bed.run('audit --since 1h --limit 200')));
    expect(recent.some((r) => r.User === 'U0NEW')).toBe(true);
    expect(recent.some((r) => r.User === 'U0OLD')).toBe(false);
    const sinceStart = requestsOf(
      onlyAnswer(await bed.run(`audit --since ${new Date(start).toISOString()} --limit 200`)),
    );
    expect(sinceStart.some((r) => r.User === 'U0OLD')).toBe(true);
    expect(requestsOf(onlyAnswer(await bed.run('audit --request ap_0123456789abcdef')))).toEqual([]);
  });

  it('is a table of requests, users as members; past 100 rows every row is in a CSV the message names', async () => {
    for (let i = 0; i < 150; i++)
      await bed.runtime.services.audit.append({
        userId: 'U0TAB',
        channelId: 'C0OPS',
        operation: 'dns.list',
        target: `zone-${i}`,
        params: {},
        outcome: 'succeeded',
        approvalId: null,
        correlationId: `c-table-${i}`,
      });
    const answer = onlyAnswer(await bed.run('audit --user U0TAB --limit 150'));
    const tables = answer.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.columns).toEqual([
      { header: 'Id', kind: 'text' },
      { header: 'Time (UTC)', kind: 'text' },
      { header: 'User', kind: 'text' },
      { header: 'Operation', kind: 'text' },
      { header: 'Target', kind: 'text' },
      { header: 'Steps', kind: 'text' },
      { header: 'Correlation', kind: 'text' },
    ]);
    expect(table.rows).toHaveLength(150);
    expect(table.rows[0]).toEqual([
      expect.stringMatching(/^\d+$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      { user: 'U0TAB' },
      'dns.list',
      'zone-149',
      'succeeded',
      'c-table-149',
    ]);
    const csv = answer.files?.find((file) => file.filename === table.file);
    expect(csv?.about).toBe('all 150 rows');
    const records = String(csv?.content).trim().split('\r\n');
    expect(records[0]).toBe('Id,Time (UTC),User,Operation,Target,Steps,Correlation');
    expect(records).toHaveLength(151);
    expect(records[150]).toMatch(/,U0TAB,dns\.list,zone-0,succeeded,c-table-0$/);

    // What Slack is sent: the headers and the first 99 rows, users as members, text left and
    // wrapped, and the note naming the CSV.
    const rendered = renderReply(answer);
    const drawn = rendered.blocks.find((block) => block.type === 'table') as unknown as {
      rows: unknown[][];
      column_settings: unknown[];
    };
    expect(drawn.rows).toHaveLength(100);
    expect(drawn.rows[0]![2]).toEqual({ type: 'raw_text', text: 'User' });
    expect(drawn.rows[1]![2]).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U0TAB' }] }],
    });
    expect(drawn.column_settings).toEqual(Array(7).fill({ align: 'left', is_wrapped: true }));
    expect(JSON.stringify(rendered.blocks)).toContain(
      'Showing the first 99 of 150 rows; every row is in the attached CSV',
    );
    expect(rendered.overflow).toBeUndefined();
    expect(validateBlocks(rendered.blocks)).toEqual([]);
  });

  it('attaches the selection as CSV with --csv', async () => {
    const answer = onlyAnswer(await bed.run('audit --op dns.list --csv'));
    const file = answer.files?.[0];
    expect(file?.filename).toMatch(/^audit-newest-\d+\.csv$/);
    const content = String(file?.content);
    expect(content.split('\r\n')[0]).toContain('id,time,user');
    expect(content).toContain('dns.list');
    expect(content).not.toContain('apikey.list');
  });

  it('runs one hash-chain check per person at a time', async () => {
    const audit = bed.runtime.services.audit;
    const verify = audit.verify;
    let entered = () => {};
    const inFirst = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first check is held open inside the chain until the others have been asked.
    audit.verify = async () => {
      entered();
      await held;
      return verify();
    };
    try {
      const first = bed.run('audit --verify', { userId: 'U0VER' });
      await inFirst;
      audit.verify = verify;
      const second = onlyAnswer(await bed.run('audit --verify', { userId: 'U0VER' }));
      expect(wordsOf(second)).toContain('Your earlier check of the hash chain is still running');
      expect(wordsOf(second)).not.toContain('The hash chain verifies');
      const someoneElse = onlyAnswer(await bed.run('audit --verify', { userId: 'U0OTHER' }));
      expect(wordsOf(someoneElse)).toContain('The hash chain verifies');
      release();
      expect(wordsOf(onlyAnswer(await first))).toContain('The hash chain verifies');
      const afterwards = onlyAnswer(await bed.run('audit --verify', { userId: 'U0VER' }));
      expect(wordsOf(afterwards)).toContain('The hash chain verifies');
    } finally {
      audit.verify = verify;
      release();
    }
  });

  it.each([
    ['audit --op dns.lst', 'did you mean --op dns.list?'],
    ['audit --user everyone', '--user takes a Slack member id'],
    ['audit --user @ann', 'a name such as @ann cannot be looked up'],
    ['audit --request 42', '--request takes an approval request id'],
    ['audit --since yesterdayish', '--since:'],
  ])('%s says what to type instead', async (command, said) => {
    expect(wordsOf(onlyAnswer(await bed.run(command)))).toContain(said);
  });
});
