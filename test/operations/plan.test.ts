/**
 * One engine call per request: plan() routes a command line or a click once and says whether it
 * changes something, so that an adapter records the delivery of a change before it runs; nothing
 * runs, answers or is audited until run() is called. The line is split once, from plan to run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RUN_COMMAND_ACTION } from '../../src/reply/model.js';
import {
  type EngineTestbed,
  onlyAnswer,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

const split = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../../src/operations/engine/tokenize.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/operations/engine/tokenize.js')>();
  return {
    ...actual,
    tokenize: (text: string) => {
      split.lines.push(text);
      return actual.tokenize(text);
    },
  };
});

/** Only U0LEAD may change a channel's defaults. */
const POLICY = `
roles:
  leads: [U0LEAD]
grants:
  - ops: [context.set, audit.list]
    roles: [leads]
`;

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY });
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  split.lines.length = 0;
});

const auditRowsIn = async (channelId: string) =>
  (await bed.runtime.services.audit.list({ limit: 200 })).filter((row) => row.channelId === channelId);

describe('engine.plan', () => {
  it('knows a change for one before anything runs, and runs it only when asked', async () => {
    const surface = recordingSurface();
    const plan = bed.runtime.engine.plan({
      userId: 'U0LEAD',
      channelId: 'C0PLAN',
      text: 'context set pullzone=308006',
      surface,
    });
    expect(plan.changes).toBe(true);
    expect(surface.records).toEqual([]);
    expect(await auditRowsIn('C0PLAN')).toEqual([]);

    await plan.run();
    expect(wordsOf(onlyAnswer(surface.records))).toContain('pull zone none → 308006');
    expect((await auditRowsIn('C0PLAN')).map((row) => row.outcome)).toContain('started');
  });

  it('takes a read for what it is: a change to nobody', () => {
    const plan = bed.runtime.engine.plan({
      userId: 'U0YOU',
      channelId: 'C0OPS',
      text: 'context',
      surface: recordingSurface(),
    });
    expect(plan.changes).toBe(false);
  });

  it('splits a command line once, from plan to run', async () => {
    const surface = recordingSurface();
    const plan = bed.runtime.engine.plan({ userId: 'U0YOU', channelId: 'C0OPS', text: 'context', surface });
    await plan.run();
    expect(wordsOf(onlyAnswer(surface.records))).toContain('This channel’s defaults');
    expect(split.lines).toEqual(['context']);
  });

  it('plans a next-step button as the command it runs', () => {
    const click = (value: string) =>
      bed.runtime.engine.plan({
        userId: 'U0LEAD',
        channelId: 'C0OPS',
        actionId: `${RUN_COMMAND_ACTION}#1`,
        value,
        surface: recordingSurface(),
      });
    expect(click('context set pullzone=308006').changes).toBe(true);
    expect(click('context').changes).toBe(false);
  });
});
