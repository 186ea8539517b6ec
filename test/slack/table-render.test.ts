import { describe, expect, it } from 'vitest';
import { renderReplyForTerminal } from '../../src/console/render.js';
import { createStyle } from '../../src/console/style.js';
import type { Reply, ReplyBlock, ReplyTable } from '../../src/reply/model.js';
import { OVERFLOW_FILENAME, replyToPlainText } from '../../src/reply/plain.js';
import { renderPlainReply, renderReply, renderReplyWithoutTables } from '../../src/slack/blocks/reply.js';
import { checkMessageLimits, SLACK_REFUSES, secondTable, validateBlocks } from '../support/block-kit.js';

const reply = (blocks: ReplyBlock[], files: Reply['files'] = []): Reply => ({
  visibility: 'ephemeral',
  text: 'zones',
  blocks,
  files,
});

const zones = (count: number, file?: string): ReplyTable => ({
  columns: [
    { header: 'Name', kind: 'text' },
    { header: 'Id', kind: 'text' },
    { header: 'Requests', kind: 'number' },
  ],
  rows: Array.from({ length: count }, (_, i) => [`zone-${i}`, `${1000 + i}`, i * 10]),
  ...(file ? { file } : {}),
});

const csv = { filename: 'zones.csv', title: 'Zones', content: 'Name,Id\n', about: 'every zone' };

/** What Slack would refuse in a message: its schema, its limits, and the one-table rule. */
const refused = (blocks: unknown[]) => [
  ...checkMessageLimits(blocks)
    .filter((v) => SLACK_REFUSES.has(v.rule))
    .map((v) => v.message),
  ...validateBlocks(blocks).map((e) => `${e.instancePath} ${e.message}`),
  ...(secondTable(blocks) ? ['two tables'] : []),
];

const tablesOf = (blocks: unknown[]) =>
  blocks.filter((b): b is { type: 'table'; rows: Record<string, unknown>[][]; column_settings: unknown[] } =>
    Boolean(b && typeof b === 'object' && (b as { type?: string }).type === 'table'),
  );

describe('a table in a Slack message', () => {
  it('is a table block: headers as its first row, ids as raw_text, numbers as raw_number aligned right', () => {
    const rendered = renderReply(reply([{ type: 'table', table: zones(2) }]));
    const [table] = tablesOf(rendered.blocks);
    expect(table?.rows[0]).toEqual([
      { type: 'raw_text', text: 'Name' },
      { type: 'raw_text', text: 'Id' },
      { type: 'raw_text', text: 'Requests' },
    ]);
    expect(table?.rows[2]).toEqual([
      { type: 'raw_text', text: 'zone-1' },
      { type: 'raw_text', text: '1001' },
      { type: 'raw_number', value: 10, text: '10' },
    ]);
    expect(table?.column_settings).toEqual([
      { align: 'left', is_wrapped: true },
      { align: 'left', is_wrapped: true },
      { align: 'right' },
    ]);
    expect(refused(rendered.blocks)).toEqual([]);
  });

  it('keeps platform text as text: no mrkdwn escaping, no mention, an empty cell as a dash', () => {
    const table: ReplyTable = {
      columns: [{ header: 'Name', kind: 'text' }],
      rows: [['<!channel> *bold* & <https://x|y>'], ['']],
    };
    const [block] = tablesOf(renderReply(reply([{ type: 'table', table }])).blocks);
    expect(block?.rows[1]).toEqual([{ type: 'raw_text', text: '<!channel> *bold* & <https://x|y>' }]);
    expect(block?.rows[2]).toEqual([{ type: 'raw_text', text: '—' }]);
  });

  it('draws a link as a rich_text cell of our words, and a member as a user element: nothing in them is mrkdwn', () => {
    const url = 'https://example.slack.com/archives/C0APPROVALS/p1700000000000003?thread_ts=1.2&cid=C0';
    const table: ReplyTable = {
      columns: [
        { header: 'Request', kind: 'text' },
        { header: 'Requester', kind: 'text' },
      ],
      rows: [
        [{ text: '<!channel> *ap_1*', url }, { user: 'U0ANN' }],
        [{ text: 'ap_2', url: 'javascript:alert(1)' }, { user: '<!here>' }],
      ],
    };
    const rendered = renderReply(reply([{ type: 'table', table }]));
    const [block] = tablesOf(rendered.blocks);
    expect(block?.rows[1]).toEqual([
      {
        type: 'rich_text',
        elements: [
          { type: 'rich_text_section', elements: [{ type: 'link', url, text: '<!channel> *ap_1*' }] },
        ],
      },
      {
        type: 'rich_text',
        elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U0ANN' }] }],
      },
    ]);
    // A URL that is not plain https, or an id that is not a member's, is shown as text.
    expect(block?.rows[2]).toEqual([
      { type: 'raw_text', text: 'ap_2' },
      { type: 'raw_text', text: '<!here>' },
    ]);
    expect(refused(rendered.blocks)).toEqual([]);
    // Drawn as text, a link is its words and its URL, escaped in a code block like any cell.
    const asText = JSON.stringify(renderReplyWithoutTables(reply([{ type: 'table', table }])).blocks);
    expect(asText).toContain(`&lt;!channel&gt; *ap_1* (${url.replace('&', '&amp;')})`);
    expect(replyToPlainText(reply([{ type: 'table', table }]))).toContain(
      `<!channel> *ap_1* (${url})  @U0ANN`,
    );
  });

  it('over 100 rows shows the first 99 under its headers and says every row is in the attached CSV', () => {
    const rendered = renderReply(reply([{ type: 'table', table: zones(250, 'zones.csv') }], [csv]));
    const [table] = tablesOf(rendered.blocks);
    expect(table?.rows).toHaveLength(100);
    expect(JSON.stringify(rendered.blocks)).toContain(
      'Showing the first 99 of 250 rows; every row is in the attached CSV',
    );
    expect(rendered.files.map((f) => f.filename)).toEqual(['zones.csv']);
    expect(rendered.overflow).toBeUndefined();
    expect(refused(rendered.blocks)).toEqual([]);
  });

  it('rows cut without a CSV of their own send the whole answer as a file, and say so', () => {
    const rendered = renderReply(reply([{ type: 'table', table: zones(250) }]));
    expect(tablesOf(rendered.blocks)[0]?.rows).toHaveLength(100);
    expect(JSON.stringify(rendered.blocks)).toContain('the whole answer is in the attached file');
    expect(rendered.files[0]?.filename).toBe(OVERFLOW_FILENAME);
    expect(rendered.overflow).toContain('zone-249');
  });

  it('rows longer than the message budget are fewer, still named in the note', () => {
    const wide: ReplyTable = {
      columns: [{ header: 'Host', kind: 'text' }],
      rows: Array.from({ length: 90 }, (_, i) => [`${'h'.repeat(300)}-${i}`]),
      file: 'zones.csv',
    };
    const rendered = renderReply(reply([{ type: 'table', table: wide }], [csv]));
    const shown = (tablesOf(rendered.blocks)[0]?.rows.length ?? 0) - 1;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(90);
    expect(JSON.stringify(rendered.blocks)).toContain(`Showing the first ${shown} of 90 rows`);
  });

  it('never carries two tables: a second one is shown as aligned text', () => {
    const rendered = renderReply(
      reply([
        { type: 'table', table: zones(2) },
        { type: 'table', table: zones(3) },
      ]),
    );
    expect(tablesOf(rendered.blocks)).toHaveLength(1);
    expect(JSON.stringify(rendered.blocks)).toContain('zone-2');
    expect(refused(rendered.blocks)).toEqual([]);
  });

  it('without tables, and as plain text, is aligned text with numbers right-aligned', () => {
    const table = zones(11);
    const coded = renderReplyWithoutTables(reply([{ type: 'table', table }]));
    expect(tablesOf(coded.blocks)).toHaveLength(0);
    const text = JSON.stringify(coded.blocks);
    expect(text).toContain('Name     Id    Requests');
    expect(text).toContain('zone-1   1001        10');
    expect(renderPlainReply(reply([{ type: 'table', table }])).text).toContain('zone-10  1010       100');
    expect(replyToPlainText(reply([{ type: 'table', table }]))).toContain('zone-10  1010       100');
  });
});

describe('a table drawn as text', () => {
  it('keeps every cell whole: in code blocks, in plain text and in the console', () => {
    const hostnames = Array.from({ length: 6 }, (_, i) => `edge-${i}.www-example.example.com`).join(', ');
    const table: ReplyTable = {
      columns: [
        { header: 'Name', kind: 'text' },
        { header: 'Hostnames', kind: 'text' },
      ],
      rows: [['www-example', hostnames]],
    };
    const shown = reply([{ type: 'table', table }]);
    expect(JSON.stringify(renderReplyWithoutTables(shown).blocks)).toContain(hostnames);
    expect(renderPlainReply(shown).text).toContain(hostnames);
    const terminal = renderReplyForTerminal(shown, {
      style: createStyle(false),
      width: 80,
      numberButton: () => 1,
    });
    expect(terminal.lines.join('\n')).toContain(hostnames);
  });
});

describe('a table in the console', () => {
  it('is aligned text under its headers, numbers right-aligned, the rows past 99 named', () => {
    const out = renderReplyForTerminal(reply([{ type: 'table', table: zones(120, 'zones.csv') }], [csv]), {
      style: createStyle(false),
      width: 80,
      numberButton: () => 1,
    });
    expect(out.lines[0]).toBe('    Name     Id    Requests');
    expect(out.lines).toContain('    zone-10  1010       100');
    expect(out.lines.filter((line) => line.includes('zone-'))).toHaveLength(99);
    expect(out.lines.join('\n')).toContain('Showing the first 99 of 120 rows');
  });
});
