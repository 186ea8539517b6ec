/**
 * The Shield export modal as Slack receives it: a modal cannot ask whether to add a filter, so
 * its filters are one optional field, a filter a line, the way to write one in its hint; not
 * three slots of three inputs each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSchemaErrors, validateModal } from '../support/block-kit.js';
import { type Harness, startHarness } from '../support/harness.js';

interface InputBlock {
  type: string;
  block_id?: string;
  optional?: boolean;
  hint?: { text: string };
  element?: { type: string; multiline?: boolean; initial_value?: string };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function opened(command: string): Promise<{ blocks: InputBlock[] }> {
  h.fake.reset();
  await h.command(command);
  const call = await h.fake.waitFor('views.open', () => true, 10_000);
  const view = call.args.view as { blocks: InputBlock[] };
  expect(formatSchemaErrors(validateModal(view))).toBe('');
  return view;
}

describe('the Shield export modal', () => {
  it('shows its filters as one optional field, a filter a line, and how to write one', async () => {
    const { blocks } = await opened('shield export 5101');
    const inputs = blocks.filter((block) => block.type === 'input');
    expect(inputs.map((block) => block.block_id)).toEqual(['from', 'to', 'query', 'filters']);
    const filters = inputs.at(-1)!;
    expect(filters).toMatchObject({ optional: true, element: { type: 'plain_text_input', multiline: true } });
    expect(filters.element?.initial_value).toBeUndefined();
    expect(filters.hint?.text).toMatch(
      /^One a line, as field:operator:values; every filter must match\. Fields: feature, /,
    );
    expect(filters.hint?.text).toMatch(
      /Operators: eq, in, contains, cidr, wildcard \(cidr for ip only\), e\.g\. country:in:DE,FR\.$/,
    );
  });

  it('comes with the filters typed with the command, a line each', async () => {
    const { blocks } = await opened(
      'shield export 5101 --filter country:in:DE,FR --filter ip:eq:203.0.113.7',
    );
    const filters = blocks.find((block) => block.block_id === 'filters');
    expect(filters?.element?.initial_value).toBe('country:in:DE,FR\nip:eq:203.0.113.7');
  });
});
