/**
 * `/edge db tokens create` asks for nothing it can assume safely and assumes nothing unsafe: no
 * access flag opens a form with read-only chosen, a token lives 30 days unless "never" is said,
 * and the card shows the expiry like every other date.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/machine.js';
import {
  type EngineTestbed,
  onlyAnswer,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({
    serviceDatabase: true,
    policyYaml: everyoneMayRun({ gated: ['db.tokens.create'], leads: ['U0LEAD'] }),
  });
});
afterAll(async () => {
  await bed?.close();
});

const AT = Date.parse('2026-11-21T14:00:00Z');

/** The request the command stored, then cancelled so that the next test can ask again. */
async function requested(records: Recorded[]): Promise<ApprovalRequest> {
  const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(records))?.[0];
  expect(id, JSON.stringify(records).slice(0, 400)).toBeDefined();
  const request = (await bed.runtime.services.approvals.peek(id!))!;
  await bed.click({ actionId: 'approvals:cancel', value: id! });
  return request;
}

const cardOf = (records: Recorded[]) =>
  records.flatMap((r) =>
    r.kind === 'post' && wordsOf(r.reply).includes('Token expires') ? [wordsOf(r.reply)] : [],
  )[0] ?? '';

describe('/edge db tokens create', () => {
  it('asks in a form, read-only chosen, when neither --read-only nor --full-access is given', async () => {
    bed.clock.set(AT);
    const records = await bed.run('db tokens create');
    const form = records.find((r) => r.kind === 'form');
    expect(form?.kind).toBe('form');
    if (form?.kind !== 'form') return;
    const access = form.modal.fields.find((field) => field.id === 'access');
    expect(access).toMatchObject({ kind: 'select', initial: 'read-only' });
    expect(form.modal.fields.find((field) => field.id === 'expires')).toMatchObject({ initial: '30d' });
    // Nothing is asked of an approver until the form is sent.
    expect(JSON.stringify(records)).not.toContain('Approval requested');

    const sent = await bed.submit(form.modal, { access: 'read-only', expires: '30d' });
    expect('records' in sent).toBe(true);
    if (!('records' in sent)) return;
    const request = await requested(sent.records);
    expect(request.params).toMatchObject({ readOnly: true, expiresAt: '2026-12-21T14:00:00.000Z' });
  });

  it('refuses a form value that is neither a duration nor never, on its field', async () => {
    const records = await bed.run('db tokens create');
    const form = records.find((r) => r.kind === 'form');
    if (form?.kind !== 'form') throw new Error('no form');
    expect(await bed.submit(form.modal, { access: 'full-access', expires: 'forever' })).toEqual({
      errors: { expires: expect.stringContaining('never') },
    });
  });

  it('gives a token 30 days unless never is said, and shows the expiry as a date', async () => {
    bed.clock.set(AT);
    const thirty = await bed.run('db tokens create --read-only');
    expect(cardOf(thirty)).toContain('2026-12-21 14:00 UTC');
    expect((await requested(thirty)).params).toMatchObject({ expiresAt: '2026-12-21T14:00:00.000Z' });

    const never = await bed.run('db tokens create --full-access --expires never');
    expect(cardOf(never)).toContain('never (chosen explicitly');
    expect((await requested(never)).params).toMatchObject({ readOnly: false, expiresAt: null });
  });

  it('refuses both access flags at once, saying to choose one', async () => {
    const answer = wordsOf(onlyAnswer(await bed.run('db tokens create --read-only --full-access')));
    expect(answer).toContain('say one of --read-only or --full-access, not both');
  });
});
