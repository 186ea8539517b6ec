/**
 * The zone picker of every form: Slack asks for options as the user types (block_suggestion),
 * and the answer comes inside the acknowledgement, within Slack's 3 seconds, whatever the
 * platform does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

/** Everyone may read logs and export; only U0YOU may list zones. */
const POLICY = `
roles:
  everyone: ["*"]
  listers: [U0YOU]
grants:
  - ops: [logs.origin, shield.export]
    roles: [everyone]
  - ops: [pullzone.list, shieldzone.list]
    roles: [listers]
`;

interface Option {
  text: { type: string; text: string };
  value: string;
}
interface Answer {
  options?: Option[];
  option_groups?: { label: { text: string }; options: Option[] }[];
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.faults.clear();
  // Past what any earlier case kept: each case starts with nothing known.
  h.clock.advance(61_000);
});

async function typeInto(actionId: string, typed: string, userId?: string) {
  const answer = await h.suggest(actionId, typed, { userId });
  expect(answer.status).toBe(200);
  const body = answer.body as Answer;
  for (const option of [...(body.options ?? []), ...(body.option_groups ?? []).flatMap((g) => g.options)]) {
    expect(option.text.text.length).toBeGreaterThan(0);
    expect(option.text.text.length).toBeLessThanOrEqual(75);
  }
  expect((body.options ?? []).length).toBeLessThanOrEqual(100);
  return { body, elapsedMs: answer.elapsedMs };
}

const values = (body: Answer) => (body.options ?? []).map((option) => option.value);

describe('the zone picker', () => {
  it('offers the pull zones whose name contains what was typed, or whose id starts with it', async () => {
    const byName = await typeInto('pick-zone:pullzone', 'MEDIA');
    expect(byName.body.options).toEqual([
      { text: { type: 'plain_text', text: 'media-cdn · Pull zone 410112' }, value: '410112' },
    ]);
    const byId = await typeInto('pick-zone:pullzone', '4101');
    // What was typed comes first: it may be a zone no list shows.
    expect(values(byId.body)).toEqual(['4101', '410112', '410113', '410114']);
    const all = await typeInto('pick-zone:pullzone', '');
    expect(values(all.body).sort()).toEqual(h.sandbox.pullZoneIds.map(String).sort());
  });

  it('names a Shield zone by the pull zone it guards', async () => {
    const { body } = await typeInto('pick-zone:shieldzone', 'www');
    expect(body.options).toEqual([
      { text: { type: 'plain_text', text: 'www-example · Shield zone 5101' }, value: '5101' },
    ]);
  });

  it('offers both kinds, in two groups, where the form takes either, each value naming its kind', async () => {
    const { body } = await typeInto('pick-zone:any', 'www');
    expect(body.option_groups?.map((group) => [group.label.text, group.options.map((o) => o.value)])).toEqual(
      [
        ['Pull zones', ['pullzone:308006']],
        ['Shield zones', ['shieldzone:5101']],
      ],
    );
    const nothing = await typeInto('pick-zone:any', 'no-such-zone');
    expect(nothing.body).toEqual({ options: [] });
  });

  it('asks the platform at most once a minute, and again after it', async () => {
    const before = h.sandbox.requests.count('pullzone.list');
    await typeInto('pick-zone:pullzone', 'w');
    await typeInto('pick-zone:pullzone', 'ww');
    h.clock.advance(59_000);
    expect(values((await typeInto('pick-zone:pullzone', '308')).body)).toEqual(['308', '308006']);
    expect(h.sandbox.requests.count('pullzone.list')).toBe(before + 1);
    h.clock.advance(2_000);
    await typeInto('pick-zone:pullzone', '308');
    expect(h.sandbox.requests.count('pullzone.list')).toBe(before + 2);
  });

  it('answers with no zones, in time, when the platform fails', async () => {
    h.sandbox.faults.set('pullzone.list', { status: 500 });
    const { body, elapsedMs } = await typeInto('pick-zone:pullzone', 'www');
    expect(body).toEqual({ options: [] });
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('answers with no zones within Slack’s 3 seconds when the platform is held back, then from what arrived', async () => {
    h.sandbox.faults.set('pullzone.list', { delayMs: 2_600, times: 1 });
    const before = h.sandbox.requests.count('pullzone.list');
    const { body, elapsedMs } = await typeInto('pick-zone:pullzone', 'www');
    expect(body).toEqual({ options: [] });
    expect(elapsedMs).toBeLessThan(3_000);
    // The load went on: the next keystrokes are answered from it, with no second request.
    await expect
      .poll(async () => values((await typeInto('pick-zone:pullzone', 'www')).body), { timeout: 5_000 })
      .toEqual(['308006']);
    expect(h.sandbox.requests.count('pullzone.list')).toBe(before + 1);
  });

  it('lists nothing to someone the policy does not let list zones here', async () => {
    const { body } = await typeInto('pick-zone:any', 'www', 'U0BOB');
    expect(body).toEqual({ options: [] });
  });

  it('offers an id typed in full as it is, first, where no listed zone has it', async () => {
    const { body } = await typeInto('pick-zone:pullzone', '123456');
    expect(body.options).toEqual([
      { text: { type: 'plain_text', text: 'Pull zone 123456 (as typed)' }, value: '123456' },
    ]);
    // A listed zone with that id is the offer, by name; the rest follow.
    expect((await typeInto('pick-zone:pullzone', '410112')).body.options?.[0]).toEqual({
      text: { type: 'plain_text', text: 'media-cdn · Pull zone 410112' },
      value: '410112',
    });
    const both = await typeInto('pick-zone:any', '5101');
    expect(both.body.option_groups?.map((group) => group.options.map((o) => [o.text.text, o.value]))).toEqual(
      [
        [['Pull zone 5101 (as typed)', 'pullzone:5101']],
        [['www-example · Shield zone 5101', 'shieldzone:5101']],
      ],
    );
  });

  it('offers a typed id to someone who may not list zones', async () => {
    const { body } = await typeInto('pick-zone:any', '308006', 'U0BOB');
    expect(body.option_groups?.map((group) => group.options.map((o) => [o.text.text, o.value]))).toEqual([
      [['Pull zone 308006 (as typed)', 'pullzone:308006']],
      [['Shield zone 308006 (as typed)', 'shieldzone:308006']],
    ]);
    expect(values((await typeInto('pick-zone:shieldzone', '5101', 'U0BOB')).body)).toEqual(['5101']);
  });

  it('offers a typed id within Slack’s 3 seconds while the platform is held back', async () => {
    h.sandbox.faults.set('pullzone.list', { delayMs: 2_600, times: 1 });
    const { body, elapsedMs } = await typeInto('pick-zone:pullzone', '308006');
    expect(body.options).toEqual([
      { text: { type: 'plain_text', text: 'Pull zone 308006 (as typed)' }, value: '308006' },
    ]);
    expect(elapsedMs).toBeLessThan(3_000);
    h.sandbox.faults.set('shieldzone.list', { status: 500 });
    expect(values((await typeInto('pick-zone:shieldzone', '77')).body)).toEqual(['77']);
  });
});
