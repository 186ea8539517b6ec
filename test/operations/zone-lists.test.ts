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

  it('gives each zone buttons that run its next steps', async () => {
    const buttons = buttonsOf(await privateAnswer('pullzones www'));
    expect(buttons.map((b) => [b.text, b.value])).toEqual(
      expect.arrayContaining([
        ['www-example: Logs today', 'logs 308006 today'],
        ['Export events', 'shield export 5101'],
        ['Bot detection', 'shield bot-detection 5101'],
        ['Reset key', 'pullzone reset-key 308006'],
      ]),
    );
    // Unique action ids within a block, as Slack requires, are the adapter's (test/slack/zone-lists.test.ts).
  });

  it('a button runs its command under the policy, as typing it would', async () => {
    const bot = buttonsOf(await privateAnswer('pullzones www')).find((b) => b.text === 'Bot detection')!;
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
    buttonsOf(await privateAnswer('pullzones www')).find((b) => b.text === 'Reset key')!;
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
      ...buttonsOf(await privateAnswer('pullzones')),
      ...buttonsOf(await privateAnswer('shield zones')),
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
    for (const button of buttons.filter((b) => b.text === 'Reset key'))
      expect(changes({ text: button.value })).toBe(true);
  });
});

describe('/edge shield zones', () => {
  it('lists every Shield zone with its pull zone by name and its plan', async () => {
    const text = wordsOf(await privateAnswer('shield zones'));
    for (const id of bed.sandbox.shieldZoneIds) expect(text).toContain(`Shield zone ${id}`);
    expect(text).toContain('pull zone 308006 (www-example)');
    expect(text).toContain('Basic plan');
    expect(text).toContain('Advanced plan');
  });

  it('an Export button opens the export form for that zone', async () => {
    const exportButton = buttonsOf(await privateAnswer('shield zones')).find(
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
