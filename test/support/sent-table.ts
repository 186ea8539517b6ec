/**
 * The table a reply sends to Slack, read from the Block Kit it renders to: its header row, each
 * column's cell type and alignment, its rows, the notes under it and the files beside it.
 */
import type { Reply, ReplyFile } from '../../src/reply/model.js';
import { renderReply } from '../../src/slack/blocks/reply.js';
import {
  checkMessageLimits,
  SLACK_REFUSES,
  schemasAvailable,
  secondTable,
  validateBlocks,
} from './block-kit.js';

interface TableCell {
  type: string;
  text?: string;
  value?: number;
}

export interface SentTable {
  headers: string[];
  /** Each column's cell type in the data rows: one type, or the types seen, joined by '|'. */
  types: string[];
  align: string[];
  /** The data rows as shown: a cell's text, or a number cell's value. */
  rows: (string | number)[][];
  /** Every word of the message, its notes included. */
  text: string;
  files: ReplyFile[];
  /** What Slack would refuse in the message: its schema, its limits, a second table. */
  refused: string[];
}

const isTable = (block: unknown): block is { rows: TableCell[][]; column_settings?: { align?: string }[] } =>
  typeof block === 'object' && block !== null && (block as { type?: string }).type === 'table';

/** The one table of the message the reply renders to; fails when it has none or more than one. */
export function sentTable(reply: Reply): SentTable {
  const rendered = renderReply(reply);
  const tables = (rendered.blocks as unknown[]).filter(isTable);
  if (tables.length !== 1) throw new Error(`the message has ${tables.length} tables, not one`);
  const [header = [], ...body] = tables[0]!.rows;
  const cell = (c: TableCell) => (c.type === 'raw_number' ? c.value! : (c.text ?? ''));
  return {
    headers: header.map((c) => c.text ?? ''),
    types: header.map((_, i) => [...new Set(body.map((row) => row[i]?.type))].join('|')),
    align: (tables[0]!.column_settings ?? []).map((s) => s.align ?? 'left'),
    rows: body.map((row) => row.map(cell)),
    text: JSON.stringify(rendered.blocks),
    files: rendered.files,
    refused: [
      ...checkMessageLimits(rendered.blocks, rendered.text)
        .filter((v) => SLACK_REFUSES.has(v.rule))
        .map((v) => v.message),
      ...(schemasAvailable
        ? validateBlocks(rendered.blocks).map((e) => `${e.instancePath} ${e.message}`)
        : []),
      ...(secondTable(rendered.blocks) ? ['two tables'] : []),
    ],
  };
}
