/**
 * Ctrl-C at the console behaves as in a shell. The whole console runs as main.ts composes it, over
 * the sandbox, with its readline in terminal mode: a `\x03` written to its input is a Ctrl-C, as
 * from a TTY.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAVE_HINT, NO_CANCEL_HINT } from '../../src/console/session/interrupt.js';
import { defineOperation } from '../../src/operations/engine/types.js';
import { md } from '../../src/reply/markup.js';
import { ephemeral } from '../../src/reply/model.js';
import { pinnedClock } from '../support/clock.js';
import { startConsole, startSession, type WholeConsoleDriver } from './driver.js';

const CTRL_C = '\x03';
const clock = pinnedClock();
const escaped = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** A console at a TTY, ended and removed after `body` whatever it does. */
async function atTerminal(body: (c: WholeConsoleDriver) => Promise<void>, tmpDir?: string): Promise<void> {
  const c = await startConsole({ clock, interactive: true, tmpDir });
  try {
    await body(c);
  } finally {
    await c.end();
    c.remove();
  }
}

/** Types a line and waits for `answer` after it. */
async function typed(c: WholeConsoleDriver, line: string, answer: RegExp): Promise<string> {
  const from = c.text().length;
  c.send(line);
  return c.waitFor(answer, from);
}

/** The console's own folders in a temporary folder: the session's and the sandbox's. */
const leftovers = (dir: string) =>
  readdirSync(dir).filter((name) => /^edgeops-(console|sandbox)-/.test(name));

describe('Ctrl-C at the console', () => {
  it('clears a half-typed line, and the session goes on as who it was', async () => {
    await atTerminal(async (c) => {
      await typed(c, ':as U0X', /You are now U0X/);
      c.press('/edge pullzone reset-key 308006 half-typed');
      c.press(CTRL_C);
      // Had the line been kept, this would have made it a different command.
      const answer = await typed(c, 'dns', /DNS zones \(\d+\)/);
      expect(answer).not.toContain(LEAVE_HINT);
      await typed(c, ':as', /You are U0X\./);
      const rows = await c.runtime.services.audit.list({ limit: 20 });
      expect(rows.find((row) => row.operation === 'dns.list')?.userId).toBe('U0X');
      expect(rows.some((row) => row.operation === 'pullzone.reset-key')).toBe(false);
    });
  });

  it('on an empty line says how to leave, and a line typed after it makes the next Ctrl-C a first again', async () => {
    await atTerminal(async (c) => {
      let from = c.text().length;
      c.press(CTRL_C);
      await c.waitFor(escaped(LEAVE_HINT), from);
      await typed(c, ':as', /You are U0YOU\./);
      from = c.text().length;
      c.press(CTRL_C);
      await c.waitFor(escaped(LEAVE_HINT), from);
      await typed(c, ':as', /You are U0YOU\./);
    });
  });

  it('in a form clears what was typed at the field, and on an empty field leaves the form as :cancel does', async () => {
    await atTerminal(async (c) => {
      await typed(c, '/edge library create', /── form: /);
      c.press('half a name');
      c.press(CTRL_C);
      // The form goes on: the name is what was typed after the Ctrl-C alone.
      await typed(c, 'kept', /Replication regions/);
      const from = c.text().length;
      c.press(CTRL_C);
      await c.waitFor(/Form cancelled; nothing was submitted\./, from);
      await typed(c, ':as', /You are U0YOU\./);
    });
  });

  it('during a long job cancels it as its Cancel button does, and the session goes on', async () => {
    await atTerminal(async (c) => {
      const sandbox = c.sandbox!;
      // The day's download never answers: only a cancel ends the job.
      sandbox.faults.set('logs.origin', { delayMs: 600_000 });
      try {
        c.send('/edge logs 308006 today');
        await expect.poll(() => c.runtime.services.jobs.running().length, { timeout: 10_000 }).toBe(1);
        const [job] = c.runtime.services.jobs.running();
        const from = c.text().length;
        c.press(CTRL_C);
        const out = await c.waitFor(/was cancelled\./, from);
        expect(out).toContain(`Cancelling ${job!.title}…`);
        expect(out).toContain(`${job!.title} was cancelled.`);
        expect(c.runtime.services.jobs.running()).toEqual([]);
        // Pressed as its Cancel button is: the same action, audited as the requester's click.
        const rows = await c.runtime.services.audit.list({ limit: 20, filter: { operation: 'logs.origin' } });
        expect(rows).toContainEqual(
          expect.objectContaining({
            userId: 'U0YOU',
            params: { action: 'logs:cancel', value: job!.id },
            outcome: 'succeeded',
          }),
        );
        expect(out).not.toContain(LEAVE_HINT);
      } finally {
        sandbox.faults.clear();
      }
      await typed(c, ':as', /You are U0YOU\./);
    });
  });

  it('while a command with no Cancel runs, says it ends on its own, and a second Ctrl-C leaves once it has', async () => {
    let release: (() => void) | undefined;
    const waiting = defineOperation({
      id: 'dns.list',
      words: ['test', 'wait'],
      usage: '/edge test wait',
      summary: 'wait until released',
      example: '/edge test wait',
      flags: {},
      parse: () => ({ ok: true, args: {} }),
      async run(ctx) {
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        await ctx.surface.respond(
          ephemeral('waiting', [{ type: 'text', text: md`Waiting to be released.` }]),
        );
        await released;
        return ephemeral('released', [{ type: 'text', text: md`Released.` }]);
      },
    });
    const t = await startSession([waiting], { interactive: true });
    try {
      let from = t.text().length;
      t.send('test wait');
      await t.waitFor(/Waiting to be released\./, from);
      from = t.text().length;
      t.press(CTRL_C);
      await t.waitFor(escaped(NO_CANCEL_HINT), from);
      from = t.text().length;
      t.press(CTRL_C);
      release!();
      await t.done;
      expect(t.text().slice(from)).toContain('Released.');
    } finally {
      release?.();
      await t.end();
      t.remove();
    }
  });

  it('while a form’s submission runs, says it ends on its own instead of leaving a :cancel for the next form', async () => {
    let release: (() => void) | undefined;
    const slowForm = defineOperation({
      id: 'dns.list',
      words: ['test', 'slow-form'],
      usage: '/edge test slow-form',
      summary: 'a form whose submission waits until released, then opens another form',
      example: '/edge test slow-form',
      flags: {},
      parse: () => ({ ok: true, args: {} }),
      async run(ctx) {
        await ctx.surface.openModal({
          callbackId: 'test.slow-form:first',
          title: 'First form',
          submit: 'Send',
          privateMetadata: '',
          fields: [{ id: 'note', label: 'Note', kind: 'text' }],
        });
        return undefined;
      },
      submissions: {
        async first(ctx) {
          return {
            run: async () => {
              const released = new Promise<void>((resolve) => {
                release = resolve;
              });
              await ctx.surface.respond(
                ephemeral('waiting', [{ type: 'text', text: md`Waiting to be released.` }]),
              );
              await released;
              await ctx.surface.openModal({
                callbackId: 'test.slow-form:second',
                title: 'Second form',
                submit: 'Send',
                privateMetadata: '',
                fields: [{ id: 'more', label: 'More', kind: 'text' }],
              });
              return undefined;
            },
          };
        },
        second: async () => ({
          run: async () => ephemeral('second', [{ type: 'text', text: md`Second form sent.` }]),
        }),
      },
    });
    const t = await startSession([slowForm], { interactive: true });
    try {
      let from = t.text().length;
      t.send('test slow-form');
      await t.waitFor(/Note/, from);
      from = t.text().length;
      t.send('first');
      await t.waitFor(/Waiting to be released\./, from);
      from = t.text().length;
      t.press(CTRL_C);
      await t.waitFor(escaped(NO_CANCEL_HINT), from);
      release!();
      // The form the submission opened is asked, not cancelled by a Ctrl-C pressed before it.
      await t.waitFor(/More/, from);
      t.send('typed');
      await t.waitFor(/Second form sent\./, from);
      expect(t.text().slice(from)).not.toMatch(/Form cancelled|No form is open/);
    } finally {
      release?.();
      await t.end();
      t.remove();
    }
  });

  it('a second Ctrl-C right after the hint leaves, and the session’s temporary folders are gone', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'edgeops-interrupt-'));
    try {
      await atTerminal(async (c) => {
        expect(leftovers(tmp)).not.toEqual([]);
        const from = c.text().length;
        c.press(CTRL_C);
        await c.waitFor(escaped(LEAVE_HINT), from);
        c.press(CTRL_C);
        await c.done;
        expect(c.text().slice(from)).toContain('Bye.');
        expect(leftovers(tmp)).toEqual([]);
      }, tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it(':quit leaves, and the session’s temporary folders are gone', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'edgeops-interrupt-'));
    try {
      await atTerminal(async (c) => {
        expect(leftovers(tmp)).not.toEqual([]);
        c.send(':quit');
        await c.done;
        expect(c.text()).toContain('Bye.');
        expect(leftovers(tmp)).toEqual([]);
      }, tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
