/**
 * The Shield export form asks for filters only when they are wanted: one optional list, each
 * entry a field, an operator and its values, instead of three slots of three fields each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FILTER_FIELDS } from '../../src/platform/schemas.js';
import { type EngineTestbed, filesIn, formIn, startEngineTestbed } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun() });
});
afterAll(async () => {
  await bed?.close();
});

describe('the Shield export form’s filters', () => {
  it('are one optional list of entries, each asked as a field, an operator and values', async () => {
    const form = formIn(await bed.run('shield export 5101'));
    expect(form.fields.map((field) => field.id)).toEqual(['from', 'to', 'query', 'filters']);
    const filters = form.fields.find((field) => field.id === 'filters');
    expect(filters).toMatchObject({ kind: 'entries', noun: 'filter', optional: true });
    if (filters?.kind !== 'entries') throw new Error('no list of filters');
    expect(filters.parts.map((part) => [part.id, part.kind])).toEqual([
      ['field', 'select'],
      ['op', 'select'],
      ['values', 'text'],
    ]);
    expect(filters.parts[0]).toMatchObject({
      options: EXPORT_FILTER_FIELDS.map((field) => ({ value: field, label: field })),
    });
  });

  it('come filled with those typed with the command', async () => {
    const form = formIn(
      await bed.run(
        'shield export 5101 --query wp-login --filter country:in:DE,FR --filter ip:eq:203.0.113.7',
      ),
    );
    expect(form.fields.find((field) => field.id === 'filters')).toMatchObject({
      initial: ['country:in:DE,FR', 'ip:eq:203.0.113.7'],
    });
  });

  it('are read a line each, and an error names the line at fault', async () => {
    const form = formIn(await bed.run('shield export 5101'));
    const now = Math.floor(bed.clock() / 1000) * 1000;
    const window = { from: String(now - 1_800_000), to: String(now) };
    expect(await bed.submit(form, { ...window, filters: 'country:in:DE,FR\ncolour:eq:red' })).toEqual({
      errors: {
        filters: expect.stringMatching(/^Line 2: the filter field "colour" is not one of feature, /),
      },
    });
    expect(await bed.submit(form, { ...window, filters: 'url:cidr:10.0.0.0/8' })).toEqual({
      errors: { filters: 'The cidr operator applies to the ip field only' },
    });
    const done = await bed.submit(form, { ...window, filters: ' country:in:DE,FR \n\nip:eq:203.0.113.7' });
    if ('errors' in done) throw new Error(`the form was refused: ${JSON.stringify(done.errors)}`);
    const file = filesIn(done.records).find((candidate) =>
      candidate.filename.startsWith('shield-events-5101-'),
    );
    expect(file?.comment).toContain('filters country in DE|FR; ip eq 203.0.113.7');
    // Its audit rows record the filters it ran with, as a typed command's rows do, not their number.
    const [row] = await bed.runtime.services.audit.list({ limit: 1, filter: { operation: 'shield.export' } });
    expect(row?.params).toMatchObject({ filters: ['country:in:DE,FR', 'ip:eq:203.0.113.7'] });
  });

  it('refuse a line break other than a line feed, which a card shows as a new line but one filter runs', async () => {
    const form = formIn(await bed.run('shield export 5101'));
    const now = Math.floor(bed.clock() / 1000) * 1000;
    const window = { from: String(now - 1_800_000), to: String(now) };
    const calls = bed.sandbox.requests.count('shield.export');
    // Read as one filter (action in allow, block, "log<U+2028>ip:eq:…"), shown as two lines.
    for (const separator of ['\u2028', '\u2029']) {
      const outcome = await bed.submit(form, {
        ...window,
        filters: `action:in:allow,block,log${separator}ip:eq:203.0.113.7`,
      });
      expect(outcome).toEqual({
        errors: {
          filters: expect.stringContaining(`U+${separator.charCodeAt(0).toString(16).toUpperCase()}`),
        },
      });
    }
    expect(bed.sandbox.requests.count('shield.export')).toBe(calls);
  });

  it('come under a callback id of their own, which a replica of the three-slot version refuses', async () => {
    // That version read field0…values2 under shield.export:window and ignored the rest: given
    // this form (an upgrade under way, a rollback, a request held by this version and approved on
    // that one) it would export every event, the filters the card showed never sent.
    const form = formIn(await bed.run('shield export 5101'));
    expect(form.callbackId).not.toBe('shield.export:window');
    expect(form.callbackId).toMatch(/^shield\.export:/);
  });

  it('held for approval when they had slots of their own, run with the filters approved', async () => {
    const form = { ...formIn(await bed.run('shield export 5101')), callbackId: 'shield.export:window' };
    const now = Math.floor(bed.clock() / 1000) * 1000;
    const done = await bed.submit(form, {
      from: String(now - 1_800_000),
      to: String(now),
      field0: 'country',
      op0: 'in',
      values0: 'DE,FR',
    });
    if ('errors' in done) throw new Error(`the form was refused: ${JSON.stringify(done.errors)}`);
    const file = filesIn(done.records).find((candidate) =>
      candidate.filename.startsWith('shield-events-5101-'),
    );
    expect(file?.comment).toContain('filters country in DE|FR');
    // A slot at fault is shown on a field that form has.
    expect(
      await bed.submit(form, {
        from: String(now - 1_800_000),
        to: String(now),
        field0: 'colour',
        op0: 'eq',
        values0: 'red',
      }),
    ).toEqual({ errors: { field0: expect.stringContaining('"colour" is not one of') } });
  });
});
