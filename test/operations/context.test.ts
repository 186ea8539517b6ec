/**
 * A channel's defaults: `/edge context set` stores the zone ids its commands take when none is
 * typed, anyone sees them with `/edge context`, and every answer that took one says so.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModalSpec } from '../../src/reply/form.js';
import type { Reply } from '../../src/reply/model.js';
import { answers, type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';

/** Everyone reads logs and exports; only U0LEAD may change a channel's defaults. */
const POLICY = `
roles:
  everyone: ["*"]
  leads: [U0LEAD]
grants:
  - ops: [logs.origin, shield.export, watch.logs, pullzone.list, shieldzone.list, audit.list]
    roles: [everyone]
  - ops: [context.set]
    roles: [leads]
`;

const LEAD = { userId: 'U0LEAD', channelId: 'C0OPS' };

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY });
});
afterAll(async () => {
  await bed?.close();
});
afterEach(async () => {
  await expect.poll(() => bed.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

const said = async (text: string, caller: { userId?: string; channelId?: string } = LEAD) =>
  wordsOf(onlyAnswer(await bed.run(text, caller)));

const footer = (reply: Reply) => {
  const last = reply.blocks.at(-1);
  return last?.type === 'context' ? String(last.text) : undefined;
};

const auditRows = async (operation: string) =>
  (await bed.runtime.services.audit.list({ limit: 200 })).filter((row) => row.operation === operation);

describe('/edge context', () => {
  it('says a channel has no defaults, and how to set them', async () => {
    const text = await said('context', { userId: 'U0YOU', channelId: 'C0EMPTY' });
    expect(text).toContain('Pull zone: none');
    expect(text).toContain('/edge context set pullzone=ID');
  });

  it('stores the defaults of the channel it is typed in, and shows them to anyone there', async () => {
    const set = await said('context set pullzone=308006 shieldzone=5101', {
      userId: 'U0LEAD',
      channelId: 'C0SET',
    });
    expect(set).toContain('pull zone none → 308006');
    expect(set).toContain('Shield zone none → 5101');
    const shown = await said('context', { userId: 'U0YOU', channelId: 'C0SET' });
    expect(shown).toContain('Pull zone: *308006*');
    expect(shown).toContain('Shield zone: *5101*');
    expect(await said('context', { userId: 'U0YOU', channelId: 'C0EMPTY' })).toContain('Shield zone: none');
  });

  it('audits every change with what it replaced', async () => {
    const channel = { userId: 'U0LEAD', channelId: 'C0AUDIT' };
    await said('context set pullzone=308006 shieldzone=5101', channel);
    await said('context set pullzone=410112', channel);
    await said('context set shieldzone=', channel);
    await said('context clear', channel);
    const changes = (await auditRows('context.set'))
      .filter((row) => row.channelId === 'C0AUDIT' && row.outcome === 'changed')
      .reverse()
      .map((row) => [row.userId, row.target, row.params]);
    expect(changes).toEqual([
      ['U0LEAD', 'C0AUDIT', { before: {}, after: { pullzone: 308006, shieldzone: 5101 } }],
      [
        'U0LEAD',
        'C0AUDIT',
        { before: { pullzone: 308006, shieldzone: 5101 }, after: { pullzone: 410112, shieldzone: 5101 } },
      ],
      ['U0LEAD', 'C0AUDIT', { before: { pullzone: 410112, shieldzone: 5101 }, after: { pullzone: 410112 } }],
      ['U0LEAD', 'C0AUDIT', { before: { pullzone: 410112 }, after: {} }],
    ]);
    expect(await said('context', channel)).toContain('Pull zone: none');
  });

  it('needs the context.set grant to change them, and records the refusal', async () => {
    const refused = await said('context set pullzone=308006', { userId: 'U0YOU', channelId: 'C0DENY' });
    expect(refused).toContain('Not allowed');
    expect(refused).toContain('context.set');
    const cleared = await said('context clear', { userId: 'U0YOU', channelId: 'C0DENY' });
    expect(cleared).toContain('Not allowed');
    expect(await said('context', { userId: 'U0YOU', channelId: 'C0DENY' })).toContain('Pull zone: none');
    const denied = (await auditRows('context.set')).filter(
      (row) => row.channelId === 'C0DENY' && row.outcome === 'denied',
    );
    expect(denied).toHaveLength(2);
  });

  it('refuses a zone the platform does not know, naming it and where ids are listed, and keeps the defaults', async () => {
    const channel = { userId: 'U0LEAD', channelId: 'C0MISSING' };
    await said('context set pullzone=308006', channel);
    const pull = await said('context set pullzone=999999', channel);
    expect(pull).toContain('No pull zone 999999 was found');
    expect(pull).toContain('/edge pullzones');
    const shield = await said('context set shieldzone=9999', channel);
    expect(shield).toContain('No Shield zone 9999 was found');
    expect(shield).toContain('/edge shield zones');
    // Ids of up to 15 digits, as every command reads them: looked up, not refused as typed wrong.
    expect(await said('context set pullzone=123456789012345', channel)).toContain(
      'No pull zone 123456789012345 was found',
    );
    expect(await said('context set pullzone=1234567890123456', channel)).toContain(
      'give the pull zone id as a number',
    );
    expect(await said('context', channel)).toContain('Pull zone: *308006*');
  });

  it('says what to type instead of a word it cannot read', async () => {
    expect(await said('context set')).toContain('/edge context set pullzone=308006 shieldzone=5101');
    expect(await said('context set pulzone=308006')).toContain('did you mean pullzone?');
    expect(await said('context set pullzone=www')).toContain('give the pull zone id as a number');
    expect(await said('context set pullzone')).toContain('write NAME=ID');
    expect(await said('context set pullzone=1 pullzone=2')).toContain('pullzone is given twice');
    expect(await said('context show')).toContain('/edge context set pullzone=ID shieldzone=ID');
  });
});

describe('commands that take the channel’s default', () => {
  const channel = { userId: 'U0YOU', channelId: 'C0DEFAULTS' };
  beforeAll(async () => {
    await said('context set pullzone=308006 shieldzone=5101', { ...channel, userId: 'U0LEAD' });
  });

  it('/edge logs without an id takes the default pull zone and says so in its footer', async () => {
    const reply = onlyAnswer(await bed.run('logs today --last 1h', channel));
    expect(wordsOf(reply)).toContain('pull zone 308006');
    expect(footer(reply)).toBe('Pull zone 308006 is this channel’s default (/edge context).');
    const started = (await auditRows('logs.origin')).find(
      (row) => row.channelId === 'C0DEFAULTS' && row.outcome === 'started',
    );
    expect(started?.target).toBe('308006');
  });

  it('a typed id wins over the default, and the answer says nothing of it', async () => {
    const reply = onlyAnswer(await bed.run('logs 410112 --last 1h', channel));
    expect(wordsOf(reply)).toContain('pull zone 410112');
    expect(wordsOf(reply)).not.toContain('this channel’s default');
  });

  it('/edge shield export without an id takes the default Shield zone, and so does its form', async () => {
    const reply = onlyAnswer(await bed.run('shield export --last 1h', channel));
    expect(wordsOf(reply)).toContain('zone 5101');
    expect(footer(reply)).toBe('Shield zone 5101 is this channel’s default (/edge context).');

    const records = await bed.run('shield export', channel);
    const form = records.find((record) => record.kind === 'form') as { modal: ModalSpec } | undefined;
    expect(form?.modal.intro).toContain('this channel’s default');
    const now = bed.clock();
    const submitted = await bed.submit(
      form!.modal,
      { from: String(now - 3_600_000), to: String(now) },
      channel,
    );
    if ('errors' in submitted) throw new Error(JSON.stringify(submitted.errors));
    const exported = answers(submitted.records).at(-1)!;
    expect(footer(exported)).toBe('Shield zone 5101 is this channel’s default (/edge context).');
  });

  it('/edge watch logs without an id watches the default pull zone', async () => {
    const records = await bed.run('watch logs --status 5xx --for 1h', channel);
    const started = (await auditRows('watch.logs')).find(
      (row) => row.channelId === 'C0DEFAULTS' && row.outcome === 'started',
    );
    expect(started?.target).toBe('308006');
    expect(JSON.stringify(records)).toContain('308006');
    const noDefault = await said('watch logs --status 5xx', { userId: 'U0YOU', channelId: 'C0NODEFAULT' });
    expect(noDefault).toContain('/edge context set pullzone=ID');
  });

  it('without an id or a default, asks for the id and says how to set one', async () => {
    const logs = await said('logs --last 1h', { userId: 'U0YOU', channelId: 'C0NODEFAULT' });
    expect(logs).toContain('give the pull zone id, e.g. /edge logs 308006');
    expect(logs).toContain('/edge context set pullzone=ID');
    const shield = await said('shield export --last 1h', { userId: 'U0YOU', channelId: 'C0NODEFAULT' });
    expect(shield).toContain('/edge context set shieldzone=ID');
  });
});
