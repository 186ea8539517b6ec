/**
 * Forms in the console ask only what is needed: an `/edge …` line typed at a field is offered
 * as a way out of the form rather than taken as the field's value.
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
