/**
 * Tables in Slack: an answer with a table lands as a table block; where the workspace refuses
 * tables, the same answer lands with code blocks, and for an hour its answers go that way at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTableMemory, TABLES_REFUSED_FOR_MS } from '../../src/slack/tables.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  // The refusals this file asks for are expected; any other is not (checked after each test).
  h = await startHarness({ policyYaml: ZONE_LISTS_POLICY, allowRefusals: true });
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  h.fake.refuseTables(false);
  expect(h.fake.refusals.filter((r) => r.problems.join() !== 'this workspace takes no tables')).toEqual([]);
});

type Block = { type: string; text?: { text?: string } };
const blocksOf = (body: Record<string, unknown>) => (body.blocks as Block[] | undefined) ?? [];
const tablesIn = (body: Record<string, unknown>) => blocksOf(body).filter((b) => b.type === 'table');

/** Every message and response the fake took or refused: none carries two tables. */
function expectOneTableAtMost() {
  const bodies = [
    ...h.fake.responses.map((post) => post.body),
    ...h.fake.refusedResponses.map((post) => post.body),
    ...h.fake.calls.filter((call) => call.method.startsWith('chat.')).map((call) => call.args),
  ];
  for (const body of bodies) expect(tablesIn(body).length).toBeLessThanOrEqual(1);
}

async function pullZones() {
  const refusedBefore = h.fake.refusedResponses.length;
  const { responseUrl } = await h.command('pullzones', { channelId: 'C0OPS' });
  const shown = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
  return { shown: shown.body, refused: h.fake.refusedResponses.slice(refusedBefore) };
}

const refusalLogs = () => h.logs.filter((line) => line.includes('Slack refused a table'));

describe('an answer with a table', () => {
  it('lands as one table block with the zones as rows', async () => {
    const { shown, refused } = await pullZones();
    expect(refused).toEqual([]);
    const [table] = tablesIn(shown) as unknown as { rows: { text: string }[][] }[];
    expect(table?.rows[0]?.map((cell) => cell.text)).toEqual([
      'Name',
      'Id',
      'State',
      'Hostnames',
      'Origin',
      'Shield zone',
    ]);
    expect(table?.rows.map((row) => row[1]?.text)).toContain('308006');
    expectOneTableAtMost();
  });

  it('where Slack refuses tables, lands again with code blocks; for an hour goes that way at once, logged once', async () => {
    h.fake.refuseTables('invalid_attachments');
    const logsBefore = refusalLogs().length;

    const first = await pullZones();
    expect(first.refused.map((post) => tablesIn(post.body).length)).toEqual([1]);
    expect(tablesIn(first.shown)).toEqual([]);
    const code = blocksOf(first.shown).find((b) => b.text?.text?.startsWith('```'));
    expect(code?.text?.text).toContain('www-example');
    expect(code?.text?.text).toContain('308006');
    expect(refusalLogs().length).toBe(logsBefore + 1);
    expect(refusalLogs().at(-1)).toContain('invalid_attachments');

    // Within the hour: no table tried, nothing refused, nothing logged again.
    h.clock.advance(TABLES_REFUSED_FOR_MS - 60_000);
    const second = await pullZones();
    expect(second.refused).toEqual([]);
    expect(tablesIn(second.shown)).toEqual([]);
    expect(refusalLogs().length).toBe(logsBefore + 1);

    // An hour after the refusal, a table is tried again.
    h.fake.refuseTables(false);
    h.clock.advance(60_000);
    const third = await pullZones();
    expect(tablesIn(third.shown)).toHaveLength(1);
    expectOneTableAtMost();
  });
});

describe('the memory of refused tables', () => {
  it('is per workspace and lasts an hour by the injected clock', () => {
    const clock = pinnedClock();
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    const memory = createTableMemory({ now: clock, logger });
    memory.remember('T1', 'invalid_blocks');
    memory.remember('T1', 'invalid_blocks');
    expect(memory.refused('T1')).toBe(true);
    expect(memory.refused('T2')).toBe(false);
    expect(warnings).toHaveLength(1);
    clock.advance(TABLES_REFUSED_FOR_MS - 1);
    expect(memory.refused('T1')).toBe(true);
    clock.advance(1);
    expect(memory.refused('T1')).toBe(false);
  });
});
