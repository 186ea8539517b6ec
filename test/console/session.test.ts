import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation, type MessageRef } from '../../src/operations/engine/types.js';
import { md } from '../../src/reply/markup.js';
import { ephemeral, inChannel, type Reply } from '../../src/reply/model.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { type ConsoleDriver, startSession } from './driver.js';

/** A form like the library one: validation in the submission handler, work in `run`. */
const formOperation = defineOperation({
  id: 'library.create',
  words: ['test', 'form'],
  usage: '/edge test form [NAME]',
  summary: 'open a test form',
  example: '/edge test form demo',
  flags: {},
  parse: (positionals) => ({ ok: true, args: { name: positionals[0] } }),
  async run(ctx, { name }) {
    await ctx.surface.openModal({
      callbackId: 'test.form:create',
      title: 'New video library',
      submit: 'Create',
      privateMetadata: 'meta-7',
      fields: [
        { id: 'name', label: 'Name', kind: 'text', initial: name },
        {
          id: 'tier',
          label: 'Tier',
          kind: 'select',
          initial: 'basic',
          options: [
            { value: 'basic', label: 'Basic' },
            { value: 'premium', label: 'Premium' },
          ],
        },
        {
          id: 'resolutions',
          label: 'Resolutions',
          kind: 'multiselect',
          options: ['240p', '720p', '2160p'].map((value) => ({ value, label: value })),
        },
        { id: 'replicas', label: 'Replicas', kind: 'number', min: 1, max: 5, optional: true },
        { id: 'note', label: 'Note', kind: 'text', optional: true },
      ],
    });
    return undefined;
  },
  submissions: {
    async create(ctx, values, metadata) {
      const resolutions = Array.isArray(values.resolutions) ? values.resolutions : [];
      if (values.tier !== 'premium' && resolutions.includes('2160p'))
        return { errors: { resolutions: '2160p needs the Premium tier' } };
      return {
        target: String(values.name),
        run: async () =>
          inChannel('created', [
            {
              type: 'text',
              text: md`created ${String(values.name)} (${String(values.tier)}; ${resolutions.join('+')}; replicas ${String(values.replicas)}; note ${String(values.note)}) by ${ctx.userId} with ${metadata}`,
            },
          ]),
      };
    },
  },
});

/** An approval-like card: posted in another channel, updated when a button is pressed. */
const cards = new Map<string, MessageRef>();
const card = (state: string): Reply =>
  inChannel(`request ${state}`, [
    { type: 'header', text: 'Approval request' },
    { type: 'fields', fields: [{ label: 'State', value: md`${state}` }] },
    {
      type: 'actions',
      buttons: [
        {
          text: 'Approve',
          actionId: 'test.card:approve',
          value: 'r1',
          style: 'primary',
          confirm: { title: 'Approve?', text: 'This runs the change.', confirm: 'Approve', deny: 'Back' },
        },
        { text: 'Reject', actionId: 'test.card:reject', value: 'r1', style: 'danger' },
      ],
    },
  ]);
const cardOperation = defineOperation({
  id: 'approvals.list',
  words: ['test', 'card'],
  usage: '/edge test card',
  summary: 'post a test card',
  example: '/edge test card',
  flags: {},
  parse: () => ({ ok: true, args: {} }),
  async run(ctx) {
    const ref = await ctx.surface.postToChannel('C0APPROVALS', card('pending'));
    if (ref) cards.set('r1', ref);
    return ephemeral('sent', [{ type: 'text', text: md`Request sent for approval.` }]);
  },
  actions: {
    async approve(ctx, value) {
      const ref = cards.get(value);
      if (ref) await ctx.surface.update(ref, card(`approved by ${ctx.userId}`));
      return ephemeral('done', [{ type: 'text', text: md`${ctx.userId} approved in ${ctx.channelId}` }]);
    },
    async reject() {
      return undefined;
    },
  },
});

/** Files in memory and on disk, and a secret for the requester's DM. */
const temporary = join(tmpdir(), `edgeops-console-export-${process.pid}.csv`);
const filesOperation = defineOperation({
  id: 'shield.export',
  words: ['test', 'files'],
  usage: '/edge test files',
  summary: 'attach files',
  example: '/edge test files',
  flags: {},
  parse: () => ({ ok: true, args: {} }),
  async run(ctx) {
    writeFileSync(temporary, 'timestamp,ip\n2026-11-21T14:00:00Z,192.0.2.1\n');
    await ctx.surface.sendDirect(ctx.userId, {
      visibility: 'dm',
      text: 'key',
      blocks: [{ type: 'code', text: 'new-key-123456789' }],
    });
    return {
      ...inChannel('export', [{ type: 'text', text: md`Export ready \u001b[31mred\u001b[0m` }]),
      files: [
        { filename: 'summary.txt', title: 'Summary', content: 'two rows', comment: '2 rows' },
        { filename: '../../shield events.csv', title: 'Events', path: temporary },
        { filename: 'summary.txt', title: 'Summary again', content: 'again' },
      ],
    };
  },
});

let s: ConsoleDriver & { runtime: Runtime };
beforeAll(async () => {
  s = await startSession([formOperation, cardOperation, filesOperation]);
});
afterAll(async () => {
  await s?.end();
  s?.remove();
});

describe('forms in the console', () => {
  it('asks field by field, takes defaults on Enter, and re-asks only the fields with errors', async () => {
    const out = await s.type('test form demo', '', '', '1,3', '', '', '1, 720p');
    expect(out).toContain('── form: New video library ──');
    expect(out).toMatch(/Name \(text\) \[demo\]/);
    expect(out).toMatch(/Tier \(choose one: its number or value\) \[Basic\]\n {2}1\) Basic\n {2}2\) Premium/);
    expect(out).toContain('✗ 2160p needs the Premium tier');
    // Only the field at fault comes back: Name is asked once.
    expect(out.match(/Name \(text\)/g)).toHaveLength(1);
    expect(out.match(/Resolutions \(choose any/g)).toHaveLength(2);
    expect(out).toContain('posted in #C0CONSOLE');
    expect(out).toContain(
      'created demo (basic; 240p+720p; replicas undefined; note undefined) by U0YOU with meta-7',
    );
    const rows = await s.runtime.services.audit.list({ limit: 5 });
    expect(rows[0]).toMatchObject({ operation: 'library.create', target: 'demo', outcome: 'succeeded' });
  });

  it('checks numbers and choices at the field before submitting', async () => {
    const out = await s.type('test form', '', 'x', 'gold', 'premium', '2160p', '9', '2', 'keep');
    expect(out).toContain('This field is required');
    expect(out).toContain('✗ choose 1–2 or one of the values');
    expect(out).toContain('✗ the most is 5');
    expect(out).toContain('created x (premium; 2160p; replicas 2; note keep)');
  });

  it('leaves the form on :cancel and submits nothing', async () => {
    const out = await s.type('test form gone', ':cancel');
    expect(out).toContain('Form cancelled; nothing was submitted.');
    expect(out).not.toContain('created gone');
    // The command that opened the form is audited; a submission would be, with its target.
    const rows = await s.runtime.services.audit.list({ limit: 200 });
    expect(rows.some((row) => row.params.name === 'gone')).toBe(true);
    expect(rows.filter((row) => row.target === 'gone')).toEqual([]);
  });
});

describe('the console keeps up inside forms', () => {
  it(':back goes to the field before, and its answer can be changed', async () => {
    const out = await s.type('test form', 'first', ':back', 'second', '', '1', '', '');
    expect(out.match(/Name \(text\)/g)).toHaveLength(2);
    expect(out).toContain('created second (basic; 240p;');
  });

  it('runs console commands typed at a field and asks that field again', async () => {
    const out = await s.type('test form kept', ':buttons', ':in C0INCIDENT', '', '', '1', '', '');
    expect(out).toContain('(back at Name)');
    expect(out).toContain('Commands now go to #C0INCIDENT');
    // The form was opened in the console's channel; it is submitted there, whole.
    expect(out).toContain('created kept (basic; 240p;');
    await s.type(':in C0CONSOLE');
  });

  it('refuses :click inside a form until it is done or cancelled', async () => {
    const out = await s.type('test form held', ':click 1', ':cancel');
    expect(out).toContain('Finish this form, or :cancel it, before pressing a button.');
    expect(out).toContain('Form cancelled; nothing was submitted.');
  });
});

describe(':in moves the channel commands are typed in', () => {
  it('runs commands in the channel chosen, says where, and refuses what is not a channel id', async () => {
    expect(await s.type(':in')).toContain('You are typing in #C0CONSOLE');
    expect(await s.type(':in nowhere')).toContain('is not a Slack channel id');
    await s.type(':in #C0INCIDENT');
    await s.type('dns');
    const rows = await s.runtime.services.audit.list({ limit: 5, filter: { operation: 'dns.list' } });
    expect(rows[0]?.channelId).toBe('C0INCIDENT');
    expect(await s.type(':in C0CONSOLE')).toContain('Commands now go to #C0CONSOLE');
  });
});

describe('messages in other channels, updates and approvals', () => {
  it('posts the card in the approvals channel, and an approver’s click updates it', async () => {
    const out = await s.type('test card');
    expect(out).toMatch(/── #(\d+) · posted in #C0APPROVALS ──\nApproval request\n=+\nState: pending/);
    expect(out).toContain('only you (U0YOU) see this');
    const approve = /\[(\d+)\] Approve/.exec(out)![1]!;
    await s.type(':as U0LEAD');
    const clicked = await s.type(`:click ${approve}`, 'y');
    expect(clicked).toContain('Approve?\nThis runs the change.');
    const cardId = /── #(\d+) · posted in #C0APPROVALS/.exec(out)![1];
    expect(clicked).toContain(`── updated message #${cardId} · posted in #C0APPROVALS ──`);
    expect(clicked).toContain('State: approved by U0LEAD');
    expect(clicked).toContain('U0LEAD approved in C0APPROVALS');
    expect(await s.type(`:click ${approve}`)).toContain('has since been replaced or updated');
    await s.type(':as U0YOU');
  });

  it('sends nothing when a confirmation is declined', async () => {
    const out = await s.type('test card');
    const approve = /\[(\d+)\] Approve/.exec(out)![1]!;
    const declined = await s.type(`:click ${approve}`, 'n');
    expect(declined).toContain('Not sent.');
    expect(declined).not.toContain('approved in');
  });
});

describe('files and direct messages', () => {
  it('writes reply files to the out folder under safe, unique names and removes temporary files', async () => {
    const out = await s.type('test files');
    expect(out).toContain('DM to U0YOU');
    expect(out).toContain('    new-key-123456789');
    expect(out).toContain('📎 out/summary.txt (Summary, 8 bytes) — 2 rows');
    expect(out).toContain('📎 out/shield_events.csv (Events, ');
    expect(out).toContain('📎 out/summary-2.txt (Summary again, 5 bytes)');
    expect(readdirSync(s.outDir).sort()).toEqual(['shield_events.csv', 'summary-2.txt', 'summary.txt']);
    expect(readFileSync(join(s.outDir, 'shield_events.csv'), 'utf8')).toContain('192.0.2.1');
    expect(existsSync(temporary)).toBe(false);
  });

  it('never lets platform text drive the terminal', () => {
    expect(s.text()).not.toContain('\u001b');
    expect(s.text()).toContain('Export ready \ufffd[31mred\ufffd[0m');
  });
});

/** Long work with a progress message whose Cancel button stops it, like an export. */
let stopWork: (() => void) | undefined;
const slowOperation = defineOperation({
  id: 'shield.export',
  words: ['test', 'slow'],
  usage: '/edge test slow',
  summary: 'run until cancelled',
  example: '/edge test slow',
  flags: {},
  parse: () => ({ ok: true, args: {} }),
  async run(ctx) {
    await ctx.surface.respond(
      ephemeral('working', [
        { type: 'text', text: md`Working…` },
        { type: 'actions', buttons: [{ text: 'Cancel', actionId: 'test.slow:cancel', value: 'job' }] },
      ]),
    );
    await new Promise<void>((resolve) => {
      stopWork = resolve;
    });
    return ephemeral('stopped', [{ type: 'text', text: md`Stopped by request.` }]);
  },
  actions: {
    async cancel() {
      stopWork?.();
      return ephemeral('cancelling', [{ type: 'text', text: md`Cancelling.` }]);
    },
  },
});

describe('a person at a terminal', () => {
  it('can press a Cancel button while the command that showed it is still running', async () => {
    const t = await startSession([slowOperation], { interactive: true });
    try {
      t.send('test slow');
      const progress = await t.waitFor(/\[(\d+)\] Cancel/);
      const cancel = /\[(\d+)\] Cancel/.exec(progress)![1];
      t.send(`:click ${cancel}`);
      await t.waitFor(/Stopped by request\./);
      expect(t.text().indexOf('Cancelling.')).toBeLessThan(t.text().indexOf('Stopped by request.'));
    } finally {
      stopWork?.();
      await t.end();
      t.remove();
    }
  });
});
