/**
 * The Shield summary's words come from the export, which attackers write (a rule name, a country,
 * an action): shown as code on one line, or as a table's plain-text cell, they cannot format the
 * message, forge a line or link.
 */
import { describe, expect, it } from 'vitest';
import { renderShieldSummary, shieldFurtherBreakdowns } from '../../src/operations/shield/summary-render.js';
import { replyToPlainText } from '../../src/reply/plain.js';
import type { ShieldSummary } from '../../src/reports/shield/summary.js';
import { renderReply } from '../../src/slack/blocks/reply.js';

const hostile: ShieldSummary = {
  events: 3,
  columns: { action: 'Action', ruleName: 'RuleName', ruleId: 'RuleId', ip: 'RemoteIp' },
  byAction: { values: [{ value: 'Block\n*Top IPs*\n  9,999 6.6.6.6', count: 2 }], other: 0 },
  byRule: {
    rules: [{ id: '42', name: '*bold* _it_ ~s~ https://evil.example/login <!channel>', count: 3 }],
    other: 0,
  },
  topIps: { ips: [{ ip: '1.2.3.4\n  999 evil', count: 3, overcount: 0 }] },
};

describe('the Shield summary with hostile export values', () => {
  const blocks = renderShieldSummary(hostile);
  const rendered = renderReply({ visibility: 'channel', text: 'summary', blocks }, { place: 'below' });
  const text = JSON.stringify(rendered);
  /** What Slack reads as mrkdwn: every text but a table's raw_text cells. */
  const mrkdwn = JSON.stringify(rendered.blocks.filter((block) => block.type !== 'table'));

  it('shows an action as one line of code, and a rule name as a plain-text cell: never formatting or a link', () => {
    expect(text).toContain('`Block *Top IPs*   9,999 6.6.6.6`');
    expect(mrkdwn).not.toContain('evil.example');
    expect(mrkdwn).not.toContain('<!channel>');
    expect(text).not.toMatch(/\\n\*Top IPs\*\\n/);
    const table = rendered.blocks.find((block) => block.type === 'table') as unknown as {
      rows: { type: string; text: string }[][];
    };
    expect(table.rows[1]).toEqual([
      { type: 'raw_text', text: '42' },
      { type: 'raw_text', text: '*bold* _it_ ~s~ https://evil.example/login <!channel>' },
      { type: 'raw_number', value: 3, text: '3' },
    ]);
  });

  it('keeps each IP in one cell of its own row, in a message of its own', () => {
    const further = shieldFurtherBreakdowns(hostile, 'zone 5101');
    expect(further).toHaveLength(1);
    const tables = further[0]!.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables.map((table) => table.rows)).toEqual([[['1.2.3.4\n  999 evil', 3]]]);
    // Drawn as text (the console, a refused table), the cell stays on its row.
    const lines = replyToPlainText(further[0]!).split('\n');
    expect(lines.filter((line) => line.includes('1.2.3.4'))).toEqual([expect.stringMatching(/ 3$/)]);
    expect(lines.some((line) => line.trim().startsWith('999'))).toBe(false);
  });
});
