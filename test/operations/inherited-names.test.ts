/**
 * Words, buttons and forms named after what every JavaScript object inherits (`constructor`,
 * `__proto__`, `toString`) are unknown names like any other: a clear answer, never a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIdIn } from '../support/approval-desk.js';
import {
  answered,
  type EngineTestbed,
  onlyAnswer,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('names every object inherits', () => {
  it.each(NAMES)('"%s" typed as a command is not a command', async (name) => {
    const said = wordsOf(onlyAnswer(await bed.run(name)));
    expect(said).toContain(name);
    expect(said).toContain('is not a command');
    expect(said).not.toContain('went wrong');
  });

  it.each(NAMES)('a button "logs:%s" is no longer supported', async (name) => {
    const said = wordsOf(onlyAnswer(await bed.click({ actionId: `logs:${name}`, value: 'x' })));
    expect(said).toContain('That button is no longer supported.');
  });

  it.each(NAMES)('a form "library.create:%s" is not run', async (name) => {
    const checked = await bed.submit({ callbackId: `library.create:${name}`, privateMetadata: '' }, {});
    expect(JSON.stringify(checked)).not.toContain('went wrong');
  });
});

describe('an approved button named after what every object inherits', () => {
  let held: EngineTestbed;
  beforeAll(async () => {
    held = await startEngineTestbed({ policyYaml: everyoneMayRun({ gated: ['logs.origin'] }) });
  });
  afterAll(async () => {
    await held?.close();
  });

  // Recorded before such names were refused at the click, and approved after.
  it.each(NAMES)('"logs:%s" is not run when approved', async (name) => {
    const request = await held.runtime.services.approvals.peek(
      requestIdIn(answered(await held.run('logs 308006 today'))),
    );
    const surface = recordingSurface();
    const outcome = await held.runtime.engine.replay(
      { entry: 'button', key: 'logs', actionId: `logs:${name}`, value: 'x' },
      { request: request!, surface, correlationId: 'c-inherited' },
    );
    expect(outcome).toEqual({ ok: false, detail: 'that button is no longer supported' });
    expect(surface.records).toEqual([]);
    await held.run(`approvals cancel ${request!.id}`);
  });
});
