/**
 * The Shield summary's words come from the export, which attackers write (a rule name, a country,
 * an action): shown as code on one line, they cannot format the message, forge a line or link.
 */
import { describe, expect, it } from 'vitest';
import { renderShieldSummary } from '../../src/operations/shield/summary-render.js';
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
  const text = JSON.stringify(
    renderReply({ visibility: 'channel', text: 'summary', blocks }, { place: 'below' }),
  );

  it('shows an action and a rule name as one line of code, never as formatting or a link', () => {
    expect(text).toContain('`Block *Top IPs*   9,999 6.6.6.6`');
    expect(text).toContain('`*bold* _it_ ~s~ https://evil.example/login &lt;!channel&gt;`');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toMatch(/\\n\*Top IPs\*\\n/);
  });

  it('keeps each IP on its own row in the code block', () => {
    const code = blocks.find((block) => block.type === 'code');
    expect(code?.type === 'code' && code.text.split('\n')).toEqual(['3  1.2.3.4   999 evil']);
  });
});
