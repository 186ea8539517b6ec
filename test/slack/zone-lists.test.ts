/**
 * Ids you can look up: /edge pullzones and /edge shield zones list what every incident command
 * needs, and their buttons run the next step as if the clicker had typed it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

const POLICY = `
channels: [C0OPS, C0READ]
roles:
  everyone: ["*"]
  oncall: [U0ONCALL]
grants:
  - ops: [pullzone.list, shieldzone.list, logs.origin, shield.export]
    roles: [everyone]
  - ops: [shield.bot-detection]
    roles: [oncall]
`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
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

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}
const buttonsOf = (body: Record<string, unknown>): Button[] =>
  ((body.blocks as { type: string; elements?: Button[] }[]) ?? []).flatMap((block) =>
    block.type === 'actions' ? (block.elements ?? []) : [],
  );

describe('/edge pullzones', () => {
  it('lists every pull zone with its id, hostnames and the Shield zone guarding it', async () => {
    const body = await privateAnswer('pullzones');
    const text = JSON.stringify(body);
    for (const id of h.sandbox.pullZoneIds) expect(text).toContain(`(id ${id})`);
    expect(text).toContain('www-example.b-cdn.net');
    expect(text).toContain('Shield zone 5101');
    expect(h.sandbox.requests.all().at(-1)?.routeId).toMatch(/pullzone.list|shieldzone.list/);
  });

  it('finds pull zones by a search on names and hostnames', async () => {
    const text = JSON.stringify(await privateAnswer('pullzones media'));
    expect(text).toContain('media-cdn');
    expect(text).not.toContain('www-example');
    expect(
      h.sandbox.requests.all().find((r) => r.routeId === 'pullzone.list' && r.query.search === 'media'),
    ).toBeDefined();
  });

  it('gives each zone buttons that run its next steps', async () => {
    const buttons = buttonsOf(await privateAnswer('pullzones www'));
    expect(buttons.map((b) => [b.text.text, b.value])).toEqual(
      expect.arrayContaining([
        ['Logs today', 'logs 308006 today'],
        ['Export events', 'shield export 5101'],
        ['Bot detection', 'shield bot-detection 5101'],
        ['Reset key', 'pullzone reset-key 308006'],
      ]),
    );
    // Unique within their block, as Slack requires.
    expect(new Set(buttons.map((b) => b.action_id)).size).toBe(buttons.length);
  });

  it('a Logs button runs /edge logs for that zone, in the channel it was clicked in', async () => {
    const logs = buttonsOf(await privateAnswer('pullzones www')).find((b) => b.text.text === 'Logs today')!;
    const before = h.sandbox.requests.count('logs.origin');
    await h.click(logs.action_id, logs.value, { channelId: 'C0OPS' });
    const file = await h.fake.waitForUpload((f) => f.filename.startsWith('origin-errors-308006-'), 20_000);
    expect(file.channelId).toBe('C0OPS');
    expect(h.sandbox.requests.count('logs.origin')).toBe(before + 1);
  });

  it('a button runs its command under the policy, as typing it would', async () => {
    const bot = buttonsOf(await privateAnswer('pullzones www')).find((b) => b.text.text === 'Bot detection')!;
    const responseUrl = h.fake.responseUrl();
    await h.click(bot.action_id, bot.value, { channelId: 'C0OPS', responseUrl });
    const denied = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(JSON.stringify(denied.body)).toContain('shield.bot-detection');
    expect(h.fake.callsTo('views.open')).toEqual([]);
    const audit = await h.runtime.services.audit.list({ limit: 5 });
    expect(audit.some((row) => row.operation === 'shield.bot-detection' && row.outcome === 'denied')).toBe(
      true,
    );
  });
});

describe('/edge shield zones', () => {
  it('lists every Shield zone with its pull zone by name and its plan', async () => {
    const text = JSON.stringify(await privateAnswer('shield zones'));
    for (const id of h.sandbox.shieldZoneIds) expect(text).toContain(`Shield zone ${id}`);
    expect(text).toContain('pull zone 308006 (www-example)');
    expect(text).toContain('Basic plan');
    expect(text).toContain('Advanced plan');
  });

  it('an Export button opens the export form for that zone', async () => {
    const exportButton = buttonsOf(await privateAnswer('shield zones')).find(
      (b) => b.value === 'shield export 5101',
    )!;
    await h.click(exportButton.action_id, exportButton.value, { channelId: 'C0OPS' });
    const opened = await h.fake.waitFor('views.open', () => true, 10_000);
    expect(JSON.stringify(opened.args.view)).toContain('shield.export:window');
  });

  it('a user without the grant is refused, naming the rule', async () => {
    const { responseUrl } = await h.command('shield zones', { channelId: 'C0ELSEWHERE' });
    const answer = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(JSON.stringify(answer.body)).toContain('C0OPS');
  });
});
