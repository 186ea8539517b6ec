import { describe, expect, it } from 'vitest';
import {
  blockTextLength,
  checkMessageLimits,
  checkViewLimits,
  formatSchemaErrors,
  schemasAvailable,
  validateBlocks,
  validateModal,
} from './block-kit.js';

const approvalMessage = [
  { type: 'header', text: { type: 'plain_text', text: 'Approval needed: pullzone.reset-key' } },
  {
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: '*Target*\npull zone 42' },
      { type: 'mrkdwn', text: '*Requested by*\n<@U0YOU>' },
    ],
  },
  {
    type: 'actions',
    block_id: 'approval',
    elements: [
      {
        type: 'button',
        action_id: 'approval.approve',
        style: 'primary',
        text: { type: 'plain_text', text: 'Approve' },
        value: 'req-1',
        confirm: {
          title: { type: 'plain_text', text: 'Reset the key?' },
          text: { type: 'mrkdwn', text: 'The old key stops working at once.' },
          confirm: { type: 'plain_text', text: 'Reset' },
          deny: { type: 'plain_text', text: 'Cancel' },
        },
      },
      {
        type: 'button',
        action_id: 'approval.reject',
        style: 'danger',
        text: { type: 'plain_text', text: 'Reject' },
      },
    ],
  },
];

const section = (text: string, blockId?: string) => ({
  type: 'section',
  ...(blockId ? { block_id: blockId } : {}),
  text: { type: 'mrkdwn', text },
});

describe.skipIf(!schemasAvailable)('schema validation', () => {
  it('accepts an approval card', () => {
    expect(formatSchemaErrors(validateBlocks(approvalMessage))).toBe('');
  });

  it('rejects a section text over 3000 characters, naming where', () => {
    const errors = validateBlocks([section('x'.repeat(3001))]);
    expect(formatSchemaErrors(errors)).toContain('/0/text/text must NOT have more than 3000 characters');
  });

  it('reports only the errors of the block type actually used', () => {
    const errors = formatSchemaErrors(
      validateBlocks([
        section('ok'),
        { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      ]),
    );
    expect(errors).toContain('/1/text/text must NOT have more than 150 characters');
    expect(errors).not.toContain('/0');
  });

  it('rejects a modal with a 25-character title or an input but no submit', () => {
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Name' },
      element: { type: 'plain_text_input' },
    };
    const long = validateModal({
      type: 'modal',
      title: { type: 'plain_text', text: 'x'.repeat(25) },
      blocks: [input],
      submit: { type: 'plain_text', text: 'Create' },
    });
    expect(formatSchemaErrors(long)).toContain('/title/text');
    const noSubmit = validateModal({
      type: 'modal',
      title: { type: 'plain_text', text: 'New video library' },
      blocks: [input],
    });
    expect(formatSchemaErrors(noSubmit)).toContain("must have required property 'submit'");
  });
});

describe('checkMessageLimits', () => {
  it('passes an ordinary card', () => {
    expect(checkMessageLimits(approvalMessage, 'Approval needed')).toEqual([]);
  });

  it('allows 50 blocks and flags the 51st', () => {
    const blocks = (n: number) => Array.from({ length: n }, () => ({ type: 'divider' }));
    expect(checkMessageLimits(blocks(50))).toEqual([]);
    expect(checkMessageLimits(blocks(51)).map((v) => v.rule)).toEqual(['max-blocks']);
  });

  it('counts text across all blocks against the 12,000-character budget', () => {
    const blocks = [
      section('a'.repeat(3000)),
      section('b'.repeat(3000)),
      section('c'.repeat(3000)),
      section('d'.repeat(3000)),
    ];
    expect(blockTextLength(blocks)).toBe(12_000);
    expect(checkMessageLimits(blocks)).toEqual([]);
    expect(checkMessageLimits([...blocks, section('e')]).map((v) => v.rule)).toEqual(['text-budget']);
  });

  it('flags top-level text Slack would truncate', () => {
    expect(checkMessageLimits([], 'x'.repeat(40_001)).map((v) => v.rule)).toEqual(['message-text']);
  });

  it('flags a repeated block_id', () => {
    const violations = checkMessageLimits([section('a', 'zone'), section('b', 'zone')]);
    expect(violations).toEqual([
      expect.objectContaining({ rule: 'duplicate-block-id', path: '/1/block_id' }),
    ]);
  });

  it('flags an action_id repeated inside one block but not across blocks', () => {
    const button = (value: string) => ({
      type: 'button',
      action_id: 'dns.records',
      value,
      text: { type: 'plain_text', text: 'Records' },
    });
    const perLine = [
      { ...section('zone a'), accessory: button('a') },
      { ...section('zone b'), accessory: button('b') },
    ];
    expect(checkMessageLimits(perLine)).toEqual([]);
    const twice = [{ type: 'actions', elements: [button('a'), button('b')] }];
    expect(checkMessageLimits(twice).map((v) => v.rule)).toEqual(['duplicate-action-id']);
  });

  it('flags option values over 75 characters, which the schema lets through', () => {
    const option = (value: string) => ({ text: { type: 'plain_text', text: 'zone' }, value });
    const select = (value: string) => [
      { type: 'actions', elements: [{ type: 'static_select', action_id: 'pick', options: [option(value)] }] },
    ];
    expect(checkMessageLimits(select('v'.repeat(75)))).toEqual([]);
    expect(checkMessageLimits(select('v'.repeat(76))).map((v) => v.rule)).toEqual(['option-value-length']);
  });
});

describe('checkViewLimits', () => {
  it('allows 100 blocks in a modal and flags the 101st', () => {
    const view = (n: number) => ({
      type: 'modal',
      blocks: Array.from({ length: n }, () => ({ type: 'divider' })),
    });
    expect(checkViewLimits(view(100))).toEqual([]);
    expect(checkViewLimits(view(101)).map((v) => v.rule)).toEqual(['max-blocks']);
  });
});
