/**
 * Ids you can look up: /edge pullzones and /edge shield zones list what every incident command
 * needs, and their buttons run the next step as if the clicker had typed it; a next step that
 * changes something opens its form instead, so that one click never files a change.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RUN_COMMAND_ACTION } from '../../src/reply/model.js';
import {
  buttonsOf,
  type EngineTestbed,
  menuOptionsOf,
  onlyAnswer,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: ZONE_LISTS_POLICY });
});
afterAll(async () => {
  await bed?.close();
});
afterEach(async () => {
  await expect.poll(() => bed.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

const privateAnswer = async (text: string, userId = 'U0YOU') =>
  onlyAnswer(await bed.run(text, { userId, channelId: 'C0OPS' }));

/** Whether the engine takes a command line or a click for a change (its delivery is then recorded first). */
const changes = (input: { text: string } | { actionId: string; value: string }) =>
  bed.runtime.engine.plan({ userId: 'U0YOU', channelId: 'C0OPS', surface: recordingSurface(), ...input })
    .changes;

describe('/edge pullzones', () => {
  it('lists every pull zone as a table row: its id, hostnames and the Shield zone guarding it', async () => {
    const reply = await privateAnswer('pullzones');
    const tables = reply.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.columns).toEqual([
      { header: 'Name', kind: 'text' },
      { header: 'Id', kind: 'text' },
      { header: 'State', kind: 'text' },
      { header: 'Hostnames', kind: 'text' },
      { header: 'Origin', kind: 'text' },
      { header: 'Shield zone', kind: 'text' },
    ]);
    expect(table.rows.map((row) => row[1])).toEqual(bed.sandbox.pullZoneIds.map(String));
    const www = table.rows.find((row) => row[1] === '308006')!;
    expect(www[0]).toBe('www-example');
    expect(www[3]).toContain('www-example.b-cdn.net');
    expect(www[5]).toBe('5101');
    expect(bed.sandbox.requests.all().at(-1)?.routeId).toMatch(/pullzone.list|shieldzone.list/);
  });

  it('finds pull zones by a search on names and hostnames', async () => {
    const text = wordsOf(await privateAnswer('pullzones media'));
    expect(text).toContain('media-cdn');
    expect(text).not.toContain('www-example');
    expect(
      bed.sandbox.requests.all().find((r) => r.routeId === 'pullzone.list' && r.query.search === 'media'),
    ).toBeDefined();
  });

  it('puts each zone’s next steps in one menu below the table, a group named after the zone, and no button in a row', async () => {
    const reply = await privateAnswer('pullzones www');
    expect(menuOptionsOf(reply).map((o) => [o.group, o.text, o.value])).toEqual([
      ['www-example (308006)', 'Logs today', 'logs 308006 today'],
      ['www-example (308006)', 'Export events', 'shield export 5101'],
      ['www-example (308006)', 'Bot detection', 'shield bot-detection 5101'],
      ['www-example (308006)', 'Reset key…', 'pullzone reset-key 308006'],
    ]);
    const kinds = reply.blocks.map((block) => block.type);
    expect(kinds.indexOf('menu')).toBe(kinds.indexOf('table') + 1);
    // The only buttons left are the paging ones closing the message.
    expect(buttonsOf(reply).every((b) => b.actionId.startsWith('pullzones:page'))).toBe(true);
  });

  it('has a menu option for every zone of a full page, within the options a menu takes', async () => {
    const reply = await privateAnswer('pullzones --per-page 20');
    const groups = new Set(menuOptionsOf(reply).map((o) => o.group));
    expect(groups.size).toBe(bed.sandbox.pullZoneIds.length);
    expect(menuOptionsOf(reply).length).toBeLessThanOrEqual(100);
  });

  it('a menu option runs its command under the policy, as typing it would', async () => {
    const bot = menuOptionsOf(await privateAnswer('pullzones www')).find((b) => b.text === 'Bot detection')!;
    const records = await bed.click(bot, { channelId: 'C0OPS' });
    expect(wordsOf(onlyAnswer(records))).toContain('shield.bot-detection');
    expect(records.filter((record) => record.kind === 'form')).toEqual([]);
    const audit = await bed.runtime.services.audit.list({ limit: 5 });
    expect(audit.some((row) => row.operation === 'shield.bot-detection' && row.outcome === 'denied')).toBe(
      true,
    );
  });
});

describe('a next step that changes something', () => {
  const resetKey = async () =>
    menuOptionsOf(await privateAnswer('pullzones www')).find((b) => b.text === 'Reset key…')!;
  const requestsFiled = async () =>
    Object.values(await bed.runtime.approvals.countByState()).reduce((sum, n) => sum + n, 0);

  it('Reset key opens the key-reset form with the zone filled in, and files nothing', async () => {
    const filed = await requestsFiled();
    const records = await bed.click(await resetKey(), { channelId: 'C0OPS' });

    expect(records.map((record) => record.kind)).toEqual(['form']);
    const form = records[0]!.kind === 'form' ? records[0]!.modal : undefined;
    expect(form?.callbackId).toBe('menu.pullzone.reset-key:run');
    expect(form?.fields.find((field) => field.id === 'PULLZONE_ID')).toMatchObject({
      kind: 'zone',
      initial: { kind: 'pullzone', id: 308006 },
    });
    expect(form?.fields.find((field) => field.id === 'REASON')).toMatchObject({
      kind: 'text',
      optional: true,
    });
    expect(await requestsFiled()).toBe(filed);
  });

  it('submitting the form with a reason files the request with that reason', async () => {
    const records = await bed.click(await resetKey(), { channelId: 'C0OPS' });
    const form = records[0]!.kind === 'form' ? records[0]!.modal : undefined;

    const submitted = await bed.submit(
      form!,
      { PULLZONE_ID: '308006', REASON: 'key leaked in a CI log' },
      { channelId: 'C0OPS' },
    );
    expect('records' in submitted).toBe(true);
    const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(submitted))?.[0];
    const request = await bed.runtime.services.approvals.peek(id!);
    expect(request).toMatchObject({
      operation: 'pullzone.reset-key',
      target: '308006',
      reason: 'key leaked in a CI log',
      state: 'pending',
    });
    await bed.click({ actionId: 'approvals:cancel', value: id! }, { channelId: 'C0OPS' });
  });

  it('is the only kind of next step that does: every button that runs at once changes nothing', async () => {
    const buttons = [
      ...menuOptionsOf(await privateAnswer('pullzones')),
      ...menuOptionsOf(await privateAnswer('shield zones')),
    ];
    const runAtOnce = buttons.filter((b) => b.actionId.split('#')[0] === RUN_COMMAND_ACTION);
    expect(runAtOnce.length).toBeGreaterThan(0);
    for (const button of runAtOnce)
      expect({
        [button.value]: changes({ actionId: button.actionId, value: button.value }),
      }).toEqual({
        [button.value]: false,
      });
    // What opens a form instead leads to a change once submitted.
    const forms = buttons.filter((b) => b.text === 'Reset key…');
    expect(forms.length).toBeGreaterThan(0);
    for (const button of forms) expect(changes({ text: button.value })).toBe(true);
  });
});

describe('/edge shield zones', () => {
  it('lists every Shield zone as a table row with its pull zone by name and its plan', async () => {
    const reply = await privateAnswer('shield zones');
    const tables = reply.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.columns.map((c) => [c.header, c.kind])).toEqual([
      ['Shield zone', 'text'],
      ['Pull zone', 'text'],
      ['Pull zone name', 'text'],
      ['Plan', 'text'],
      ['WAF', 'text'],
      ['Learning mode', 'text'],
    ]);
    expect(table.rows.map((row) => row[0])).toEqual(bed.sandbox.shieldZoneIds.map(String));
    expect(table.rows.find((row) => row[0] === '5101')?.slice(1, 3)).toEqual(['308006', 'www-example']);
    const plans = table.rows.map((row) => row[3]);
    expect(plans).toContain('Basic');
    expect(plans).toContain('Advanced');
    expect(new Set(menuOptionsOf(reply).map((o) => o.group))).toContain(
      'Shield zone 5101 (pull zone 308006)',
    );
  });

  it('an Export option opens the export form for that zone', async () => {
    const exportButton = menuOptionsOf(await privateAnswer('shield zones')).find(
      (b) => b.value === 'shield export 5101',
    )!;
    const records = await bed.click(exportButton, { channelId: 'C0OPS' });
    const form = records.find((record) => record.kind === 'form');
    expect(JSON.stringify(form)).toContain('shield.export:window-and-filters');
  });

  it('a user without the grant is refused, naming the rule', async () => {
    const answer = onlyAnswer(await bed.run('shield zones', { channelId: 'C0ELSEWHERE' }));
    expect(wordsOf(answer)).toContain('C0OPS');
  });
});

// Last: the zone it adds would change the counts of the lists above.
describe('a zone with a long name', () => {
  it('cuts a long zone name in its menu group, never the id that follows it', async () => {
    const id = 410_990;
    bed.sandbox.addPullZone(id, `long-${'x'.repeat(120)}`);
    const groups = menuOptionsOf(await privateAnswer('pullzones long-')).map((o) => o.group);
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      expect(group.length).toBeLessThanOrEqual(75);
      expect(group).toMatch(/^long-x+… \(410990\)$/);
    }
  });
});
