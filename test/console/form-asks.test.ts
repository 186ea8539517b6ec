/**
 * Forms in the console ask only what is needed: the Shield export asks whether to add a filter
 * before asking for one, and an `/edge …` line typed at a field is offered as a way out of the
 * form rather than taken as the field's value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type WholeConsoleDriver } from './driver.js';

let c: WholeConsoleDriver;
beforeAll(async () => {
  c = await startConsole();
});
afterAll(async () => {
  await c?.end();
  c?.remove();
});

describe('the Shield export form in the console', () => {
  it('asks once whether to add a filter, and exports without one when told no', async () => {
    // From, To and Search keep their defaults; Enter at the question adds no filter.
    const out = await c.type('/edge shield export 5101', '', '', '', '');
    expect(out.match(/Add a filter\? \(y\/N\)/g)).toHaveLength(1);
    expect(out).not.toMatch(/Filter \d/);
    expect(out).toMatch(/Shield events of zone 5101: [\d,]+ rows?/);
  });

  it('asks a filter’s field, operator and values only once one is wanted', async () => {
    const out = await c.type('/edge shield export 5101', '', '', '', 'y', 'country', 'in', 'DE,FR', 'n');
    expect(out).toContain('Filter 1: field');
    expect(out).toContain('Filter 1: operator');
    expect(out).toContain('Filter 1: values, separated by commas');
    expect(out).toContain('Add another filter? (y/N)');
    expect(out).not.toContain('Filter 2');
    expect(out).toContain('filters country in DE|FR');
  });
});

describe('an /edge command typed into a form in the console', () => {
  it('asks whether to leave the form, then runs the command and submits nothing', async () => {
    const out = await c.type('/edge library create', '/edge dns shop', 'y');
    expect(out).toContain('That looks like a command. Leave this form and run it? (y/N)');
    expect(out).toContain('Form left; nothing was submitted.');
    expect(out).toContain('shop-example.com');
    expect(out).not.toContain('Replication regions');
    expect(out).not.toContain('library “/edge');
  });

  it('stays in the form when told no, and asks the field again', async () => {
    const out = await c.type('/edge library create', '/edge dns', '', ':cancel');
    expect(out).toContain('Staying in the form: a value cannot start with /edge. (back at Name)');
    expect(out).not.toContain('DNS zones');
    expect(out).toContain('Form cancelled; nothing was submitted.');
  });
});
