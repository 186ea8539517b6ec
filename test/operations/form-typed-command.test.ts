/**
 * An `/edge …` line typed into a form's field is a slip, never a value: the form refuses it on
 * that field, saying where commands are typed, and nothing runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECT_CALLBACK } from '../../src/operations/approvals/click.js';
import { commandFormSpec } from '../../src/operations/menu/command-forms.js';
import type { ModalSpec, ModalValues } from '../../src/reply/form.js';
import { type EngineTestbed, formIn, recordingSurface, startEngineTestbed } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun(), serviceDatabase: true });
});
afterAll(async () => {
  await bed?.close();
});

const WHERE =
  'That is an /edge command, not a value for this field: close this form and type the command in the message box.';

/** Validates a form as an adapter does, without running what it stands for. */
const check = (form: ModalSpec, values: ModalValues) =>
  bed.runtime.engine.submit({
    userId: 'U0YOU',
    channelId: 'C0OPS',
    callbackId: form.callbackId,
    privateMetadata: form.privateMetadata,
    values,
    surface: recordingSurface(),
  });

const commandForm = (key: string) =>
  commandFormSpec(bed.runtime.engine.operations.find((op) => op.words.join('.') === key)!);

describe('a command typed into a form', () => {
  it('is refused on its field in an operation’s own form, and no library is made', async () => {
    const form = formIn(await bed.run('library create'));
    const before = bed.sandbox.requests.count();
    // Submitted as an adapter does: accepted, it would run and make a library named so.
    const values = { name: '/edge dns', tier: 'free', codecs: ['x264'], resolutions: ['720p'] };
    expect(await bed.submit(form, values)).toEqual({ errors: { name: WHERE } });
    expect(bed.sandbox.requests.count()).toBe(before);
  });

  it('is refused in every text field of a command’s form, the lone /edge too', async () => {
    expect(await check(commandForm('db.query'), { SQL: '  /edge db query SELECT 1' })).toEqual({
      errors: { SQL: WHERE },
    });
    expect(
      await check(commandForm('shield.export'), {
        SHIELD_ZONE_ID: '5101',
        '--last': '1h',
        '--query': '/edge',
      }),
    ).toEqual({ errors: { '--query': WHERE } });
  });

  it('is a reason like any other in a Reject form, where prose may quote a command', async () => {
    const checked = await bed.runtime.engine.submit({
      userId: 'U0LEAD',
      channelId: 'C0APPROVALS',
      callbackId: REJECT_CALLBACK,
      privateMetadata: 'ap_0123456789abcdef',
      values: { reason: '/edge purge zone would be safer than a key reset' },
      surface: recordingSurface(),
    });
    expect(checked).not.toHaveProperty('errors.reason');
    expect(checked).toHaveProperty('run');
  });

  it('is told apart from a value that only starts like one', async () => {
    const form = formIn(await bed.run('shield export 5101'));
    const now = Math.floor(bed.clock() / 1000) * 1000;
    const checked = await check(form, {
      from: String(now - 1_800_000),
      to: String(now),
      query: '/edge/login',
    });
    expect(checked).toHaveProperty('run');
  });
});
