import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileNotes } from '../../src/reply/files.js';
import { md, trusted } from '../../src/reply/markup.js';
import type { Reply, ReplyBlock, ReplyImage } from '../../src/reply/model.js';
import { renderPlainHome } from '../../src/slack/blocks/home.js';
import { renderPlainReply, renderReply } from '../../src/slack/blocks/reply.js';
import { HOME_MAX_BLOCKS } from '../../src/slack/limits.js';
import { checkMessageLimits, SLACK_REFUSES, validateBlocks } from '../support/block-kit.js';

const reply = (blocks: ReplyBlock[], extra: Partial<Reply> = {}): Reply => ({
  visibility: 'channel',
  text: 'answer',
  blocks,
  ...extra,
});

/** What Slack would refuse in a message: its schema and the rules the schema cannot say. */
const refused = (blocks: unknown[]) => [
  ...checkMessageLimits(blocks)
    .filter((v) => SLACK_REFUSES.has(v.rule))
    .map((v) => v.message),
  ...validateBlocks(blocks).map((e) => `${e.instancePath} ${e.message}`),
];

const json = (value: unknown) => JSON.stringify(value);

describe('rendering a reply for Slack', () => {
  it('shows a code block longer than one section across several sections, every line kept', () => {
    const lines = Array.from(
      { length: 300 },
      (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}`,
    );
    const rendered = renderReply(reply([{ type: 'code', text: lines.join('\n') }]));
    expect(rendered.overflow).toBeUndefined();
    expect(rendered.blocks.length).toBeGreaterThan(1);
    for (const line of lines) expect(json(rendered.blocks)).toContain(line);
    expect(refused(rendered.blocks)).toEqual([]);
  });

  it('sends the whole reply as a file, and says so, when one line is longer than a section', () => {
    const rendered = renderReply(reply([{ type: 'code', text: `short\n${'v'.repeat(5_000)}` }]));
    expect(rendered.overflow).toContain('v'.repeat(5_000));
    expect(rendered.files.map((f) => f.filename)).toEqual(['full-reply.txt']);
    expect(json(rendered.blocks)).toContain(
      '📎 full-reply.txt: the whole answer, which did not fit in a message, attached below.',
    );
    expect(refused(rendered.blocks)).toEqual([]);
  });

  it('never leaves an empty section when the first line of a text is longer than a section', () => {
    const rendered = renderReply(reply([{ type: 'text', text: md`:warning: ${'😀'}${'a'.repeat(4_000)}` }]));
    expect(refused(rendered.blocks)).toEqual([]);
    expect(rendered.overflow).toBeDefined();
  });

  it('shows a dash for empty values and drops empty texts, which Slack refuses', () => {
    const rendered = renderReply(
      reply([
        { type: 'header', text: '  ' },
        { type: 'text', text: trusted('') },
        { type: 'fields', fields: [{ label: 'Name', value: trusted('') }] },
        { type: 'context', text: trusted(' ') },
      ]),
    );
    expect(refused(rendered.blocks)).toEqual([]);
    expect(json(rendered.blocks)).toContain('*Name*\\n—');
  });

  it('gives buttons of one handler in one block their own action ids', () => {
    const rendered = renderReply(
      reply([
        {
          type: 'actions',
          buttons: [
            { text: 'Previous', actionId: 'dns:page', value: '1' },
            { text: 'Next', actionId: 'dns:page', value: '3' },
          ],
        },
      ]),
    );
    const elements = (rendered.blocks[0] as { elements: { action_id: string }[] }).elements;
    expect(elements.map((e) => e.action_id)).toEqual(['dns:page', 'dns:page#2']);
  });

  it('names every file with what it holds and where it went', () => {
    const files = [{ filename: 'a.csv', title: 'A', about: 'all 3 rows' }];
    expect(fileNotes(files, { place: 'below' })).toEqual(['📎 a.csv: all 3 rows, attached below.']);
    expect(fileNotes(files, { place: 'dm', why: 'the bot is not in this channel' })).toEqual([
      '📎 a.csv: all 3 rows, sent to you in a direct message (the bot is not in this channel).',
    ]);
    expect(fileNotes(files, { place: 'below', failed: new Map([['a.csv', 'internal_error']]) })).toEqual([
      '⚠ a.csv could not be delivered (internal_error); run the command again to get it.',
    ]);
  });

  describe('a picture', () => {
    const chart: ReplyImage = {
      filename: 'errors-chart.png',
      title: 'Errors per hour <UTC>',
      png: Buffer.from('png bytes'),
      altText: 'Bar chart: errors per hour.',
      text: '00:00 ██ 2\n01:00 █ 1',
    };
    const withChart = reply([
      { type: 'header', text: 'Origin errors' },
      { type: 'image', image: chart },
      { type: 'text', text: trusted('after') },
    ]);

    it('goes below the message as an upload, named in the message, with no text bars in it', () => {
      const rendered = renderReply(withChart);
      expect(rendered.images).toEqual([chart]);
      expect(json(rendered.blocks)).toContain(
        '📈 Errors per hour &lt;UTC&gt;: the picture is attached below.',
      );
      expect(json(rendered.blocks)).not.toContain('██');
      expect(refused(rendered.blocks)).toEqual([]);
    });

    it('is shown in its place as its title and text form when its upload failed', () => {
      const rendered = renderReply(withChart, {
        place: 'below',
        failed: new Map([['errors-chart.png', 'x']]),
      });
      expect(rendered.images).toEqual([]);
      const text = json(rendered.blocks);
      expect(text).toContain('*Errors per hour &lt;UTC&gt;*');
      expect(text).toContain('00:00 ██ 2');
      expect(text.indexOf('Origin errors')).toBeLessThan(text.indexOf('00:00 ██ 2'));
      expect(text.indexOf('00:00 ██ 2')).toBeLessThan(text.indexOf('after'));
      expect(text).not.toContain('attached below');
      expect(refused(rendered.blocks)).toEqual([]);
    });

    it('goes with the files when they go to a DM, and the message says so', () => {
      const toDm = renderReply(withChart, { place: 'dm', why: 'the bot is not in this channel' });
      expect(toDm.images.map((image) => image.filename)).toEqual(['errors-chart.png']);
      expect(json(toDm.blocks)).toContain(
        '📈 Errors per hour &lt;UTC&gt;: the picture is sent to you in a direct message (the bot is not in this channel).',
      );
      expect(json(toDm.blocks)).not.toContain('01:00 █ 1');
    });

    it('is shown as its text form in plain text', () => {
      const plain = renderPlainReply(withChart);
      expect(plain.images).toEqual([]);
      expect(plain.text).toContain('Errors per hour &lt;UTC&gt;\n00:00 ██ 2\n01:00 █ 1');
    });
  });

  it('falls back to plain text that keeps the answer and the file notes', () => {
    const plain = renderPlainReply(
      reply([{ type: 'text', text: md`*Total*: ${'<!channel>'} 42` }], {
        files: [{ filename: 'a.csv', title: 'A', about: 'all rows' }],
      }),
    );
    expect(plain.text).toContain('Total: &lt;!channel&gt; 42');
    expect(plain.text).toContain('📎 a.csv: all rows, attached below.');
  });

  it('any reply renders into blocks Slack accepts, and what is not shown is in the file', () => {
    const anyText = fc.string({ unit: 'grapheme', maxLength: 4_000 });
    const block: fc.Arbitrary<ReplyBlock> = fc.oneof(
      anyText.map((text) => ({ type: 'header' as const, text })),
      anyText.map((text) => ({ type: 'text' as const, text: md`${text}` })),
      anyText.map((text) => ({ type: 'context' as const, text: md`${text}` })),
      anyText.map((text) => ({ type: 'code' as const, text })),
      fc
        .array(fc.tuple(fc.string({ minLength: 1, maxLength: 30 }), anyText), { maxLength: 14 })
        .map((fields) => ({
          type: 'fields' as const,
          fields: fields.map(([label, value]) => ({ label, value: md`${value}` })),
        })),
      fc.array(fc.constantFrom('a:x', 'a:y', 'b:z'), { maxLength: 30 }).map((ids) => ({
        type: 'actions' as const,
        buttons: ids.map((actionId, i) => ({ text: `b${i}`, actionId, value: String(i) })),
      })),
      fc.tuple(anyText, anyText).map(([title, text]) => ({
        type: 'image' as const,
        image: { filename: 'p.png', title, png: Buffer.alloc(0), altText: 'a picture', text },
      })),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 60 }), (blocks) => {
        // Pictures shown as their text form must fit as well as uploaded ones.
        const asText = renderReply(reply(blocks), { place: 'below', failed: new Map([['p.png', 'x']]) });
        expect(refused(asText.blocks)).toEqual([]);
        const rendered = renderReply(reply(blocks));
        expect(refused(rendered.blocks)).toEqual([]);
        const shown = json(rendered.blocks);
        for (const b of blocks) {
          if (b.type !== 'code' || rendered.overflow !== undefined) continue;
          // Shown code keeps every non-empty line (escaped), unless the reply went to a file.
          for (const line of b.text.split('\n').filter((l) => l.trim() && !/[&<>`]/.test(l)))
            expect(shown).toContain(JSON.stringify(line).slice(1, -1));
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('the Home as plain text, when Slack refuses the rich one', () => {
  const lines = (count: number) =>
    Array.from({ length: count }, (_, i) => `line ${i} ${'x'.repeat(2_900)}`).join('\n');

  it('keeps every word of a Home that fits, in sections without buttons', () => {
    const reply: Reply = {
      text: 'home',
      visibility: 'ephemeral',
      blocks: [
        { type: 'header', text: 'Waiting for you (1)' },
        { type: 'text', text: md`*Reset pull zone 1* · <@U0YOU>` },
        { type: 'actions', buttons: [{ text: 'Approve', actionId: 'approvals:approve', value: 'ap_1' }] },
      ],
    };
    const view = renderPlainHome(reply);
    const words = JSON.stringify(view);
    expect(words).toContain('Waiting for you (1)');
    expect(words).toContain('Reset pull zone 1');
    expect(words).not.toContain('"type":"actions"');
    expect(validateBlocks(view.blocks)).toEqual([]);
  });

  it('keeps a long Home whole, up to the 100 sections a view holds, then says how to see the rest', () => {
    const reply = (count: number): Reply => ({
      text: 'home',
      visibility: 'ephemeral',
      blocks: [{ type: 'text', text: trusted(lines(count)) }],
    });
    // Twenty sections' worth: far more than a message's plain fallback keeps, all of it here.
    const twenty = JSON.stringify(renderPlainHome(reply(20)).blocks);
    for (let i = 0; i < 20; i++) expect(twenty).toContain(`line ${i} `);
    expect(twenty).not.toContain('/edge home');
    expect(twenty).not.toContain('attached');

    const view = renderPlainHome(reply(150));
    expect(view.blocks).toHaveLength(HOME_MAX_BLOCKS);
    expect(JSON.stringify(view.blocks.at(-1))).toContain('type `/edge home` to see all of it');
    expect(JSON.stringify(view.blocks.at(-2))).toContain('line 98 ');
    expect(validateBlocks(view.blocks)).toEqual([]);
  });

  it('stays within 100 blocks at exactly 100 sections, with or without the line naming /edge home', () => {
    const hundred: Reply = {
      text: 'home',
      visibility: 'ephemeral',
      blocks: [{ type: 'text', text: trusted(lines(HOME_MAX_BLOCKS)) }],
    };
    const whole = renderPlainHome(hundred).blocks;
    expect(whole).toHaveLength(HOME_MAX_BLOCKS);
    expect(JSON.stringify(whole.at(-1))).toContain(`line ${HOME_MAX_BLOCKS - 1} `);
    expect(JSON.stringify(whole)).not.toContain('/edge home');

    const withFile = renderPlainHome({
      ...hundred,
      files: [{ filename: 'a.txt', title: 'a', content: 'a' }],
    }).blocks;
    expect(withFile).toHaveLength(HOME_MAX_BLOCKS);
    expect(JSON.stringify(withFile.at(-1))).toContain('type `/edge home` to see all of it');
  });
});
