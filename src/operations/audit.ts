import { z } from 'zod';
import { md, trusted } from '../reply/markup.js';
import { ephemeral, type ReplyBlock } from '../reply/model.js';
import { tableWithCuts } from '../reply/table.js';
import { csvRecord } from '../reports/csv-safety.js';
import { defineOperation, parseWith } from './types.js';

const AuditArgsSchema = z.object({
  limit: z
    .number()
    .int({ error: '--limit must be a whole number' })
    .min(1, { error: '--limit must be between 1 and 200' })
    .max(200, { error: '--limit must be between 1 and 200' })
    .default(20),
  verify: z.boolean(),
});

/** `/edge audit [--limit N] [--verify]`: the newest audit rows; --verify checks the hash chain. */
export const audit = defineOperation({
  id: 'audit.list',
  words: ['audit'],
  usage: '/edge audit [--limit N] [--verify]',
  summary: 'show the newest audit entries, or verify the hash chain',
  example: '/edge audit --limit 10 --verify',
  flags: { limit: { kind: 'number' }, verify: { kind: 'boolean' } },
  parse: (positionals, flags) =>
    positionals.length > 0
      ? { ok: false, error: `unexpected argument "${positionals[0]}"` }
      : parseWith(AuditArgsSchema, { limit: flags.limit, verify: flags.verify }),
  async run(ctx, { limit, verify }) {
    const rows = await ctx.services.audit.list({ limit });
    const table = tableWithCuts(
      ['ID', 'TIME (UTC)', 'USER', 'OPERATION', 'TARGET', 'OUTCOME', 'CORRELATION'],
      rows.map((row) => [
        String(row.id),
        row.time.replace('T', ' ').slice(0, 19),
        row.userId,
        row.operation,
        row.target ?? '',
        row.outcome,
        row.correlationId,
      ]),
      { maxColumnWidth: 28 },
    );
    const blocks: ReplyBlock[] = [
      { type: 'header' as const, text: `Audit log (newest ${rows.length})` },
      rows.length > 0
        ? { type: 'code' as const, text: table.text }
        : { type: 'text' as const, text: trusted('_No entries yet._') },
    ];
    // Parameters and details never fit a table row: the file has every field of every row.
    const withFile = table.cut || rows.some((row) => Object.keys(row.params).length > 0 || row.detail);
    if (withFile)
      blocks.push({
        type: 'context',
        text: trusted('Long values are cut here; the file has every field in full.'),
      });
    if (verify) {
      const result = await ctx.services.audit.verify();
      blocks.push({
        type: 'text',
        text: result.ok
          ? md`:white_check_mark: The hash chain verifies: ${result.count} rows, no link broken.`
          : md`:rotating_light: The hash chain is broken at row ${result.brokenAt}: ${result.reason}. ${result.count} rows checked before it.`,
      });
    }
    const reply = ephemeral(`Audit log: ${rows.length} rows`, blocks);
    if (!withFile) return reply;
    const header = [
      'id',
      'time',
      'user',
      'channel',
      'operation',
      'target',
      'params',
      'outcome',
      'approval',
      'correlation',
      'detail',
    ];
    const lines = rows.map((row) => [
      String(row.id),
      row.time,
      row.userId,
      row.channelId,
      row.operation,
      row.target ?? '',
      JSON.stringify(row.params),
      row.outcome,
      row.approvalId ?? '',
      row.correlationId,
      row.detail ?? '',
    ]);
    return {
      ...reply,
      files: [
        {
          filename: `audit-newest-${rows.length}.csv`,
          title: `Audit log, newest ${rows.length} rows`,
          content: [header, ...lines].map(csvRecord).join(''),
          about: `the newest ${rows.length} rows with every field`,
        },
      ],
    };
  },
});
