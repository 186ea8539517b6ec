/**
 * `/edge shield export` through the engine: the summary beside the CSV counts what the CSV holds,
 * by action, country, ASN, rule, top IPs and per bucket, and says what an export has no column
 * for. The rules are its one table; the top IPs are a table in the next message of the thread.
 * Where Slack puts it (the headline's thread) and its escaping are in test/slack/shield-summary.test.ts.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Reply, ReplyFile, ReplyTable } from '../../src/reply/model.js';
import {
  type EngineTestbed,
  fieldsOf,
  fileText,
  headlineIn,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

/**
 * Runs the export; the CSV, the summary that carries it in the thread of the headline, and the
 * further messages of that thread.
 */
async function exportWithSummary(
  command: string,
): Promise<{ file: ReplyFile; summary: Reply; further: Reply[] }> {
  const headline = headlineIn(await bed.run(command));
  expect(wordsOf(headline)).toContain('Shield events* · zone 5101');
  const summary = headline.thread?.find((reply) =>
    (reply.files ?? []).some((file) => file.filename.startsWith('shield-events-5101-')),
  );
  if (!summary) throw new Error('no summary with the CSV in the thread of the headline');
  const file = summary.files!.find((candidate) => candidate.filename.startsWith('shield-events-5101-'))!;
  return { file, summary, further: headline.thread!.filter((reply) => reply !== summary) };
}

/** The tables of a reply. */
const tablesOf = (reply: Reply): ReplyTable[] =>
  reply.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));

/** The one table of a reply, after the text block that is `*title*`. */
function tableAfter(reply: Reply, title: string): ReplyTable {
  const at = reply.blocks.findIndex((block) => block.type === 'text' && block.text === title);
  expect(at, `a section titled ${title}`).toBeGreaterThanOrEqual(0);
  const next = reply.blocks[at + 1];
  if (next?.type !== 'table') throw new Error(`no table after ${title}`);
  expect(tablesOf(reply)).toHaveLength(1);
  return next.table;
}

/** `` `Block` ×317 · `Log` ×253 `` → [['Block', 317], ['Log', 253]]: platform values are shown as code. */
const counted = (text: string) =>
  text.split(' · ').map((part) => {
    const [, value = '', n = ''] = /^`(.*)` ×([\d,]+)$/.exec(part) ?? [];
    return [value, Number(n.replaceAll(',', ''))] as const;
  });

/** The block after the text block that is `*title*`: a code block. */
function codeAfter(reply: Reply, title: RegExp): string[] {
  const at = reply.blocks.findIndex((block) => block.type === 'text' && title.test(block.text));
  expect(at, `a section titled ${title}`).toBeGreaterThanOrEqual(0);
  const next = reply.blocks[at + 1];
  if (next?.type !== 'code') throw new Error(`no code block after ${title}`);
  return next.text.split('\n');
}

function countBy(rows: Record<string, string>[], key: (row: Record<string, string>) => string) {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  return counts;
}

describe('/edge shield export: the summary beside the CSV', () => {
  it('posts counts by action, country, ASN, rule, top IPs and per bucket that match the CSV it carries', async () => {
    const { file, summary, further } = await exportWithSummary('shield export 5101 --last 2h');
    // The CSV counted independently, as a reader of the file would.
    const rows = parseCsv(fileText(file), { columns: true }) as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(100);
    const fields = fieldsOf(summary);
    expect(fields.get('Events')).toBe(rows.length.toLocaleString('en-US'));

    for (const [label, column] of [
      ['By action', 'action'],
      ['By country', 'country'],
      ['By ASN', 'asn'],
    ] as const) {
      const truth = countBy(rows, (row) => row[column]!);
      const shown = counted(fields.get(label)!);
      expect(shown.length).toBe(Math.min(10, truth.size));
      for (const [value, n] of shown) expect(n, `${label} ${value}`).toBe(truth.get(value));
      // The busiest values, most first.
      const busiest = [...truth.values()].sort((a, b) => b - a).slice(0, shown.length);
      expect(shown.map(([, n]) => n)).toEqual(busiest);
    }

    // The rules: the summary's one table, ids and names as text, the events as a number.
    const rules = countBy(rows, (row) => `${row.ruleId} ${row.ruleName}`);
    const ruleTable = tableAfter(summary, '*By rule*');
    expect(ruleTable.columns).toEqual([
      { header: 'Rule id', kind: 'text' },
      { header: 'Rule name', kind: 'text' },
      { header: 'Events', kind: 'number' },
    ]);
    expect(ruleTable.rows).toHaveLength(Math.min(10, rules.size));
    for (const [id, name, n] of ruleTable.rows) expect(n, `${id} ${name}`).toBe(rules.get(`${id} ${name}`));
    if (rules.size > 10) expect(wordsOf(summary)).toContain(`+${rules.size - 10} more rules.`);

    // The IPs: a table of their own, in the next message of the thread.
    expect(further).toHaveLength(1);
    const ips = countBy(rows, (row) => row.ip!);
    const ipTable = tableAfter(further[0]!, '*Top IPs*');
    expect(ipTable.columns.slice(0, 2)).toEqual([
      { header: 'IP', kind: 'text' },
      { header: 'Events', kind: 'number' },
    ]);
    const topIps = ipTable.rows.map(([ip, n]) => [Number(n), String(ip)] as const);
    expect(topIps).toHaveLength(10);
    for (const [n, ip] of topIps) expect(n, ip).toBe(ips.get(ip));
    expect(topIps.at(-1)![0]).toBeGreaterThanOrEqual(
      Math.max(...[...ips].filter(([ip]) => !topIps.some(([, shown]) => shown === ip)).map(([, n]) => n)),
    );

    // Two hours of events: 5-minute buckets, from the first event's bucket to the last one's.
    const bars = codeAfter(summary, /^\*Events per 5 minutes \(UTC\)\*$/);
    const times = rows.map((row) => Date.parse(row.timestamp!));
    const bucket = 5 * 60_000;
    const start = Math.floor(Math.min(...times) / bucket) * bucket;
    const perBucket = countBy(rows, (row) =>
      String(Math.floor((Date.parse(row.timestamp!) - start) / bucket)),
    );
    expect(bars).toHaveLength(Math.floor((Math.max(...times) - start) / bucket) + 1);
    bars.forEach((line, i) => {
      const label = new Date(start + i * bucket).toISOString().slice(11, 16);
      expect(line.startsWith(`${label} `), line).toBe(true);
      expect(Number(line.split(' ').at(-1)!.replaceAll(',', '')), line).toBe(perBucket.get(String(i)) ?? 0);
    });
  });

  it('leaves out what an export has no column for, and says so', async () => {
    bed.sandbox.faults.set('shield.export', {
      status: 200,
      body: 'Time,ACTION,Url\r\n2026-11-21T13:10:00Z,Block,/a\r\n2026-11-21T13:20:00Z,block,/b\r\n2026-11-21T13:30:00Z,Block,"=cmd"\r\n',
      times: 1,
    });
    const { file, summary, further } = await exportWithSummary('shield export 5101 --last 2h');
    expect(parseCsv(fileText(file))).toHaveLength(4);
    const fields = fieldsOf(summary);
    expect([...fields.keys()]).toEqual(['Events', 'First – last event', 'By action']);
    expect(counted(fields.get('By action')!)).toEqual([
      ['Block', 2],
      ['block', 1],
    ]);
    const text = JSON.stringify(summary.blocks);
    expect(text).not.toContain('Top IPs');
    expect(text).not.toContain('By rule');
    expect(tablesOf(summary)).toEqual([]);
    expect(further).toEqual([]);
    expect(text).toContain('The export has no rule id, rule name, country, ASN, IP columns');
    // Twenty minutes of events: one-minute buckets, the first event's to the last one's.
    const bars = codeAfter(summary, /^\*Events per minute \(UTC\)\*$/);
    expect(bars).toHaveLength(21);
    expect(bars.map((line) => Number(line.split(' ').at(-1)))).toEqual([
      1,
      ...Array(9).fill(0),
      1,
      ...Array(9).fill(0),
      1,
    ]);
  });
});
