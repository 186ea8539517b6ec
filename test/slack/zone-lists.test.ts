/**
 * Where a zone list's buttons put their answers in Slack. What the lists say, and what their
 * buttons run, is checked through the engine in test/operations/zone-lists.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: ZONE_LISTS_POLICY });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await expect.poll(() => h.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

async function privateAnswer(text: string, userId = 'U0YOU') {
  const { responseUrl } = await h.command(text, { userId, channelId: 'C0OPS' });
  return (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body;
}

interface Option {
  text: { text: string };
  value: string;
}
interface Menu {
  type: string;
  action_id: string;
  option_groups: { label: { text: string }; options: Option[] }[];
}
const blocksOf = (body: Record<string, unknown>) =>
  (body.blocks as { type: string; elements?: Menu[] }[] | undefined) ?? [];
const menusOf = (body: Record<string, unknown>): Menu[] =>
  blocksOf(body).flatMap((block) =>
    block.type === 'actions' ? (block.elements ?? []).filter((e) => e.type === 'static_select') : [],
  );

describe('/edge pullzones', () => {
  it('draws the zones as a table and their next steps as one menu below it, grouped by zone', async () => {
    const body = await privateAnswer('pullzones www');
    const types = blocksOf(body).map((block) => block.type);
    expect(types.filter((type) => type === 'table')).toHaveLength(1);
    const menus = menusOf(body);
    expect(menus).toHaveLength(1);
    const group = menus[0]!.option_groups.find((g) => g.label.text === 'www-example (308006)')!;
    expect(group.options.map((o) => o.text.text)).toEqual([
      'Logs today',
      'Export events',
      'Bot detection',
      'Reset key…',
    ]);
    // Slack's option values are at most 75 characters: each carries the button it stands for.
    for (const option of group.options) expect(option.value.length).toBeLessThanOrEqual(75);
  });

  it('picking Logs today runs /edge logs for that zone, in the channel it was picked in', async () => {
    const menu = menusOf(await privateAnswer('pullzones www'))[0]!;
    const logs = menu.option_groups[0]!.options.find((o) => o.text.text === 'Logs today')!;
    const before = h.sandbox.requests.count('logs.origin');
    await h.pick(menu.action_id, { text: logs.text.text, value: logs.value }, { channelId: 'C0OPS' });
    const file = await h.fake.waitForUpload((f) => f.filename.startsWith('origin-errors-308006-'), 20_000);
    expect(file.channelId).toBe('C0OPS');
    // Today, and yesterday for the comparison with the hours before.
    expect(h.sandbox.requests.count('logs.origin')).toBe(before + 2);
  });

  it('a picked value no menu of ours made runs nothing and says so', async () => {
    const before = h.sandbox.requests.all().length;
    await h.pick('edge:menu', { text: 'Forged', value: 'no-space-here' }, { channelId: 'C0OPS' });
    const answer = await h.fake.waitForResponse(
      (post) => JSON.stringify(post.body).includes('no longer supported'),
      10_000,
    );
    expect(answer).toBeDefined();
    expect(h.sandbox.requests.all().length).toBe(before);
  });
});
