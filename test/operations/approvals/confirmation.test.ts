/**
 * N-of-M with a typed confirmation, through the engine: a Shield bot-detection change needs two
 * distinct approvers who each type the zone id, and its card shows before → after.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModalSpec, ModalValues } from '../../../src/reply/form.js';
import { type ApprovalDesk, approvalDesk, requestIdIn } from '../../support/approval-desk.js';
import {
  answered,
  type EngineTestbed,
  fieldsOf,
  formIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../../support/engine.js';
import { APPROVALS_POLICY } from '../../support/policies.js';

let bed: EngineTestbed;
let desk: ApprovalDesk;

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: APPROVALS_POLICY });
  desk = approvalDesk(bed);
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

/** Submits a form that must be accepted; what running it recorded. */
async function submitted(form: ModalSpec, values: ModalValues, userId = 'U0YOU'): Promise<Recorded[]> {
  const outcome = await bed.submit(form, values, { userId });
  if ('errors' in outcome) throw new Error(`the form was refused: ${JSON.stringify(outcome.errors)}`);
  return outcome.records;
}

/** Types the zone id into the confirmation of request `id` as `userId`, as the form Approve opens submits it. */
const confirm = (id: string, confirmation: string, userId: string) =>
  bed.submit(
    { callbackId: 'approvals:confirm', privateMetadata: id },
    { confirmation },
    {
      userId,
      channelId: 'C0APPROVALS',
    },
  );

describe('N-of-M with a typed confirmation (Shield bot detection)', () => {
  const form = {
    executionMode: '1',
    requestIntegrity: '2',
    ipAddress: '1',
    fingerprint: '3',
    aggression: '2',
    complex: ['on'],
  };

  it('opens the form, then needs two distinct approvers who each type the zone id', async () => {
    const zone = 5101;
    const opened = formIn(await bed.run(`shield bot-detection ${zone}`));
    expect(opened.callbackId).toBe('shield.bot-detection:submit');
    const card = desk.cardIn(await submitted(opened, form));
    expect(wordsOf(card.reply)).toContain('Update bot detection of Shield zone 5101');
    const id = requestIdIn(wordsOf(card.reply));

    // Approve opens the confirmation form; a wrong id is refused on the field.
    const confirmForm = formIn(await desk.click('approve', id, 'U0SHA'));
    expect(confirmForm.callbackId).toBe('approvals:confirm');
    const wrong = await confirm(id, '5102', 'U0SHA');
    expect('errors' in wrong).toBe(true);
    expect(await desk.stateOf(id)).toBe('pending');

    await confirm(id, '5101', 'U0SHA');
    expect((await bed.runtime.services.approvals.peek(id))?.approvals.length).toBe(1);
    expect(await desk.stateOf(id)).toBe('pending');

    // The same approver again does not count twice.
    await confirm(id, '5101', 'U0SHA');
    expect(await desk.stateOf(id)).toBe('pending');

    await confirm(id, '5101', 'U0SHB');
    expect(await desk.stateOf(id)).toBe('succeeded');
    expect(bed.sandbox.botDetection(zone)).toMatchObject({
      executionMode: 1,
      browserFingerprint: { sensitivity: 3, complexEnabled: true },
    });
  });

  /** The value a form field starts with. */
  const initialOf = (modal: ModalSpec, id: string): unknown => {
    const field = modal.fields.find((f) => f.id === id);
    return field && 'initial' in field && field.initial !== undefined ? field.initial : null;
  };

  const openForm = async (zone: number) => formIn(await bed.run(`shield bot-detection ${zone}`));

  it('starts the form from the zone’s current settings, and the card shows before → after with the changes marked', async () => {
    const zone = bed.sandbox.ids.bigShieldZone;
    await bed.runtime.services.platform.updateBotDetection({
      shieldZoneId: zone,
      executionMode: 1,
      requestIntegrity: { sensitivity: 3 },
      ipAddress: { sensitivity: 3 },
      browserFingerprint: { sensitivity: 2, aggression: 3, complexEnabled: true },
    });
    const modal = await openForm(zone);
    expect(
      ['executionMode', 'requestIntegrity', 'ipAddress', 'fingerprint', 'aggression', 'complex'].map((id) =>
        initialOf(modal, id),
      ),
    ).toEqual(['1', '3', '3', '2', '3', ['on']]);
    expect(JSON.stringify(modal)).toContain('the form shows its current settings');
    // Weaken one check, keep the rest as they are.
    const records = await submitted(modal, {
      executionMode: '1',
      requestIntegrity: '3',
      ipAddress: '1',
      fingerprint: '2',
      aggression: '3',
      complex: ['on'],
    });
    const card = desk.cardIn(records).reply;
    expect(wordsOf(card)).toContain(`Update bot detection of Shield zone ${zone}`);
    const fields = fieldsOf(card);
    expect(fields.get('IP address (changed)')).toBe('High → Low');
    expect(fields.get('Execution mode')).toBe('Challenge (unchanged)');
    expect(fields.get('Complex fingerprinting')).toBe('on (unchanged)');
    // The zone is named by the pull zone it guards, as the platform names it.
    expect(wordsOf(card)).toContain(`${zone}, guarding pull zone 900001 · firehose`);
    expect(wordsOf(card)).not.toContain('current settings unknown');
    await desk.reject(requestIdIn(wordsOf(card)), 'U0SHA');
  });

  it('says in bold on the card that the current settings are unknown when they cannot be read', async () => {
    bed.sandbox.faults.set('shield.botDetection.get', { status: 403 });
    const zone = bed.sandbox.ids.shieldZone;
    const modal = await openForm(zone);
    expect(JSON.stringify(modal)).toContain('its current settings could not be read');
    const card = desk.cardIn(await submitted(modal, form)).reply;
    expect(wordsOf(card)).toContain(`Shield zone ${zone}"`);
    expect(wordsOf(card)).toContain(':warning: *current settings unknown; these values replace them.*');
    expect(fieldsOf(card).get('Execution mode')).toBe('Challenge');
    await desk.reject(requestIdIn(wordsOf(card)), 'U0SHA');
  });

  it('refuses a Shield zone the platform does not know before its form opens', async () => {
    const records = await bed.run('shield bot-detection 4040404');
    expect(answered(records)).toContain('No Shield zone 4040404 was found on the platform');
    expect(records.filter((record) => record.kind === 'form')).toEqual([]);
  });

  it('tells the approver whose approval ran the change that it failed, and why', async () => {
    // A zone on a plan without bot detection: the platform refuses the change when it runs.
    const zone = bed.sandbox.ids.basicShieldZone;
    const card = desk.cardIn(await submitted(await openForm(zone), form)).reply;
    expect(wordsOf(card)).toContain(`Update bot detection of Shield zone ${zone}`);
    const id = requestIdIn(wordsOf(card));
    const outcomes = [];
    for (const user of ['U0SHA', 'U0SHB']) outcomes.push(await confirm(id, String(zone), user));
    expect(await desk.stateOf(id)).toBe('failed');
    const last = outcomes.at(-1)!;
    if ('errors' in last) throw new Error('the confirmation was refused');
    const text = answered(last.records);
    expect(text).toContain(`Shield zone ${zone}`);
    expect(text).toContain('and it failed');
    expect(text).toContain('and it failed: Bot detection is not available on the plan of this Shield zone');
    expect(text).toContain('It was not retried.');
    expect(text).not.toContain('it has run');
  });

  it('shows the platform’s envelope error (success=false, errorKey) as a failure', async () => {
    const modal = await openForm(5102);
    expect(modal.privateMetadata).toBe('5102');
    const card = desk.cardIn(await submitted(modal, form)).reply;
    expect(wordsOf(card)).toContain('Shield zone 5102');
    const id = requestIdIn(wordsOf(card));
    for (const user of ['U0SHA', 'U0SHC']) await confirm(id, '5102', user);
    expect(await desk.stateOf(id)).toBe('failed');
    const request = await bed.runtime.services.approvals.peek(id);
    expect(request?.result?.detail).toContain('invalid_plan_type.bot_detection');
  });
});
