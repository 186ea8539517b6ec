import { describe, expect, it } from 'vitest';
import { renderReplyForTerminal } from '../../src/console/render.js';
import { createStyle, wantsColour } from '../../src/console/style.js';
import { md, trusted } from '../../src/reply/markup.js';
import type { Reply } from '../../src/reply/model.js';

const numbered = () => {
  let next = 1;
  return () => next++;
};

const render = (reply: Reply, colour = false, width = 80) =>
  renderReplyForTerminal(reply, { style: createStyle(colour), width, numberButton: numbered() });

const sample: Reply = {
  visibility: 'ephemeral',
  text: 'sample',
  blocks: [
    { type: 'header', text: 'Pull zone 42' },
    { type: 'text', text: md`:white_check_mark: *Done* for ${'<!channel> & co'}` },
    {
      type: 'fields',
      fields: [
        { label: 'Key', value: md`abcd…wxyz` },
        { label: 'Roles', value: md`a\nb` },
      ],
    },
    { type: 'code', text: 'TYPE  NAME\nA     @' },
    { type: 'context', text: trusted('See <https://example.com|the docs>') },
    { type: 'divider' },
    {
      type: 'actions',
      buttons: [
        { text: '◀ Previous', actionId: 'x:page', value: '1' },
        { text: 'Approve', actionId: 'x:approve', value: 'r', style: 'primary' },
      ],
    },
  ],
};

describe('replies as terminal text', () => {
  it('renders every block kind as readable plain text without colour', () => {
    const { lines, overflow } = render(sample);
    expect(lines).toEqual([
      'Pull zone 42',
      '============',
      '✓ Done for <!channel> & co',
      'Key: abcd…wxyz',
      'Roles: a',
      '  b',
      '    TYPE  NAME',
      '    A     @',
      '› See the docs (https://example.com)',
      '─'.repeat(60),
      '[1] ◀ Previous  [2] Approve',
    ]);
    expect(overflow).toBeUndefined();
  });

  it('styles headers, bold text and buttons only when colour is on', () => {
    const plain = render(sample).lines.join('\n');
    const coloured = render(sample, true).lines.join('\n');
    expect(plain).not.toContain('\x1b[');
    expect(coloured).toContain('\x1b[1m\x1b[4mPull zone 42');
    expect(coloured).toContain('\x1b[1mDone\x1b[22m');
    expect(coloured).toContain('\x1b[32m\x1b[1m[2] Approve');
  });

  it('wraps button rows at the terminal width', () => {
    const buttons = Array.from({ length: 6 }, (_, i) => ({
      text: `Records · zone-${i}.example`,
      actionId: 'dns:records',
      value: `${i}`,
    }));
    const { lines } = render(
      { visibility: 'ephemeral', text: '', blocks: [{ type: 'actions', buttons }] },
      false,
      60,
    );
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines.join(' ')).toContain('[6] Records · zone-5.example');
  });

  it('cuts what would not fit in a Slack message and returns the whole reply for a file', () => {
    // About 20,000 characters of code: more than the 12,000 a message holds.
    const rows = Array.from({ length: 400 }, (_, i) => `row ${i} ${'x'.repeat(40)}`).join('\n');
    const { lines, overflow } = render({
      visibility: 'ephemeral',
      text: 'long',
      blocks: [
        { type: 'code', text: rows },
        { type: 'actions', closing: true, buttons: [{ text: 'Next ▶', actionId: 'x:page', value: '2' }] },
      ],
    });
    expect(lines.join('\n').length).toBeLessThan(12_500);
    expect(lines.join('\n')).toContain('row 100 ');
    expect(lines.at(-2)).toContain('The rest did not fit in a message');
    expect(lines.at(-1)).toBe('[1] Next ▶');
    expect(overflow).toContain('row 399');
  });

  it('shows control characters and direction overrides from platform text as marks', () => {
    const { lines } = render({
      visibility: 'channel',
      text: '',
      blocks: [
        { type: 'code', text: 'evil\x1b]0;title\x07 \u202Egnp.exe' },
        { type: 'fields', fields: [{ label: 'UA\x1b[2J', value: md`x\ry` }] },
      ],
    });
    const text = lines.join('\n');
    expect(text).not.toMatch(/[\x1b\x07\r\u202e]/);
    expect(text).toContain('evil\ufffd]0;title\ufffd \ufffdgnp.exe');
  });

  it('shows a picture as its title and text form, in its place', () => {
    const { lines } = render({
      visibility: 'channel',
      text: 'chart',
      blocks: [
        { type: 'header', text: 'Origin errors' },
        {
          type: 'image',
          image: {
            filename: 'chart.png',
            title: 'Errors per hour (UTC)',
            png: Buffer.from('png'),
            altText: 'Bar chart',
            text: '00:00 ██ 2\n01:00 █ 1',
          },
        },
      ],
    });
    expect(lines.slice(2)).toEqual(['Errors per hour (UTC)', '    00:00 ██ 2', '    01:00 █ 1']);
  });

  it('keeps a typed :constructor: or :__proto__: as typed, not as what every object inherits', () => {
    const { lines } = render({
      visibility: 'ephemeral',
      text: '',
      blocks: [{ type: 'text', text: md`:warning: "${':constructor: :__proto__:'}" is not a command.` }],
    });
    expect(lines).toEqual(['⚠ ":constructor: :__proto__:" is not a command.']);
  });

  it('falls back to the reply text when there are no blocks', () => {
    expect(render({ visibility: 'ephemeral', text: 'just text', blocks: [] }).lines).toEqual(['just text']);
  });
});

describe('when to colour', () => {
  it('colours a terminal unless NO_COLOR is set, and never a pipe', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
  });
});

describe('buttons about the blocks above them', () => {
  it('are cut with those blocks, never left under other words', () => {
    const rows = Array.from({ length: 400 }, (_, i) => `row ${i} ${'x'.repeat(40)}`).join('\n');
    const { lines } = render({
      visibility: 'ephemeral',
      text: 'long',
      blocks: [
        { type: 'code', text: rows },
        { type: 'text', text: md`the last request` },
        { type: 'actions', buttons: [{ text: 'Approve', actionId: 'x:approve', value: 'last' }] },
      ],
    });
    expect(lines.join('\n')).not.toContain('Approve');
  });
});

describe('a menu below a table', () => {
  const option = (text: string, value: string) => ({ text, actionId: 'edge:run', value });
  const menuReply = (groups: { label: string; options: ReturnType<typeof option>[] }[]): Reply => ({
    visibility: 'ephemeral',
    text: 'zones',
    blocks: [{ type: 'menu', placeholder: 'Next step for a zone…', groups }],
  });

  it('shows each group on a line, named after its row, with its options numbered like buttons', () => {
    const { lines } = render(
      menuReply([
        {
          label: 'www (1)',
          options: [option('Logs today', 'logs 1 today'), option('Export', 'shield export 9')],
        },
        { label: 'cdn (2)', options: [option('Logs today', 'logs 2 today')] },
      ]),
    );
    expect(lines).toEqual([
      'Next step for a zone…:',
      '  www (1): [1] Logs today  [2] Export',
      '  cdn (2): [3] Logs today',
    ]);
  });

  it('shows at most the options a menu takes, and sends the whole reply to a file when more were asked', () => {
    const many = Array.from({ length: 120 }, (_, i) => ({
      label: `zone ${i}`,
      options: [option('Logs today', `logs ${i} today`)],
    }));
    const { lines, overflow } = render(menuReply(many));
    expect(lines.filter((line) => line.includes('Logs today'))).toHaveLength(100);
    expect(overflow).toBeDefined();
  });

  it('leaves out an option whose value would not fit what Slack carries back, and says the reply was cut', () => {
    const { lines, overflow } = render(
      menuReply([
        {
          label: 'www',
          options: [option('Fits', 'logs 1 today'), option('Too long', `logs ${'9'.repeat(80)}`)],
        },
      ]),
    );
    expect(lines.join('\n')).toContain('[1] Fits');
    expect(lines.join('\n')).not.toContain('Too long');
    expect(overflow).toBeDefined();
  });
});
