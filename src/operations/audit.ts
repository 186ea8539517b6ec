import { z } from 'zod';
import { joinMarkup, md, mention, nest, trusted } from '../reply/markup.js';
import { ephemeral, type ReplyBlock } from '../reply/model.js';
import { counted } from '../reply/words.js';
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

/** Longest a target is shown in the message; the file has it whole. */
const MAX_VALUE_CHARS = 40;
/** Rows per section, well inside a section's 3,000 characters. */
const LINES_PER_BLOCK = 15;

const chunk = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

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
    // One line a row, so that the user shows as a mention (a code block would show a raw id).
    let cut = false;
    const shortened = (value: string) => {
      if (value.length <= MAX_VALUE_CHARS) return value;
      cut = true;
      return `${value.slice(0, MAX_VALUE_CHARS - 1)}…`;
    };
    const rowLines = rows.map(
      (row) =>
        md`\`${String(row.id)}\` ${row.time.replace('T', ' ').slice(0, 19)} · ${nest(mention(row.userId))} · \`${row.operation}\`${row.target ? ` · ${shortened(row.target)}` : ''} · *${row.outcome}* · ${row.correlationId}`,
    );
    const blocks: ReplyBlock[] = [
      { type: 'header' as const, text: `Audit log (newest ${rows.length})` },
      ...(rows.length > 0
        ? chunk(rowLines, LINES_PER_BLOCK).map((part) => ({ type: 'text' as const, text: joinMarkup(part) }))
        : [{ type: 'text' as const, text: trusted('_No entries yet._') }]),
    ];
    // Parameters and details never fit a table row: the file has every field of every row.
    const withFile = cut || rows.some((row) => Object.keys(row.params).length > 0 || row.detail);
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
          ? md`:white_check_mark: The hash chain verifies: ${counted(result.count, 'row')}, no link broken.`
          : md`:rotating_light: The hash chain is broken at row ${result.brokenAt}: ${result.reason}. ${counted(result.count, 'row')} checked before it.`,
      });
    }
    const reply = ephemeral(`Audit log: ${counted(rows.length, 'row')}`, blocks);
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
          title: `Audit log, newest ${counted(rows.length, 'row')}`,
          content: [header, ...lines].map(csvRecord).join(''),
          about: `the newest ${counted(rows.length, 'row')} with every field`,
        },
      ],
    };
  },
});
