/**
 * A hint never offers what its field then refuses. Every form the bot opens (each command's form
 * from the menu, and the forms commands and clicks open) is filled field by field with each
 * value its hint suggests, and the form must accept it: at every pinned instant, since a time
 * that reads well at 14:00 can be in the future at 08:30 or beyond a window a week later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { investigateForm } from '../../src/operations/logs/investigate.js';
import {
  hintText,
  type ModalField,
  type ModalSpec,
  type ModalValues,
  zoneOptionValue,
} from '../../src/reply/form.js';
import { DEFAULT_INSTANT, PINNED_INSTANTS } from '../support/clock.js';
import {
  buttonsOf,
  type EngineTestbed,
  formIn,
  type Recorded,
  recordingSurface,
  startEngineTestbed,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({
    policyYaml: everyoneMayRun({
      gated: ['pullzone.reset-key'],
      rules: [{ ops: ['db.exec'], required: 1, confirm: true }],
    }),
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await bed?.close();
});

/** Words of a hint that read as a value: a duration (`7d`, `-3h`), a time of day or an ISO time. */
const VALUE_WORD = /^(-?\d+[smhd]|\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:]+)$/;

/** What a field's hint suggests typing: its examples, and any value its own words spell out. */
function suggested(field: ModalField): string[] {
  const words = (hintText(field) ?? '')
    .split(/\s+/)
    .map((word) => word.replace(/^[("]+|[),.;"]+$/g, ''))
    .filter((word) => VALUE_WORD.test(word));
  const examples = 'examples' in field ? (field.examples ?? []) : [];
  return [...new Set([...examples, ...words])];
}

/** The values a form is submitted with when nothing is changed: what each field starts with. */
function untouched(form: ModalSpec): ModalValues {
  const values: ModalValues = {};
  for (const field of form.fields) {
    if (field.initial === undefined) continue;
    switch (field.kind) {
      case 'number':
      case 'datetime':
        values[field.id] = String(field.initial);
        break;
      case 'zone':
        values[field.id] = zoneOptionValue(field.zones, field.initial.kind, field.initial.id);
        break;
      case 'entries':
        values[field.id] = field.initial.join('\n');
        break;
      default:
        values[field.id] = field.initial;
    }
  }
  return values;
}

/** What a command's form needs besides the field tried: the zone it is about, a start before an end. */
const NEEDED: Readonly<Record<string, ModalValues>> = {
  '--to': { '--from': '-6h' },
};
/** What forms need whatever field is tried: the zone they are about, and a digest's time. */
const ZONES: ModalValues = { PULLZONE_ID: '308006', SHIELD_ZONE_ID: '5101', '--at': '09:00' };

interface Opened {
  form: ModalSpec;
  caller?: { userId: string; channelId: string };
}

/** Each suggested value refused, as `form › field: "value" → errors`. */
async function refusals({ form, caller }: Opened): Promise<string[]> {
  const refused: string[] = [];
  for (const field of form.fields) {
    for (const value of suggested(field)) {
      const zones = Object.fromEntries(
        Object.entries(ZONES).filter(([id]) => form.fields.some((candidate) => candidate.id === id)),
      );
      const values = { ...untouched(form), ...zones, ...NEEDED[field.id], [field.id]: value };
      const checked = await bed.runtime.engine.submit({
        userId: caller?.userId ?? 'U0YOU',
        channelId: caller?.channelId ?? 'C0OPS',
        callbackId: form.callbackId,
        privateMetadata: form.privateMetadata,
        values,
        surface: recordingSurface(),
      });
      if ('errors' in checked)
        refused.push(`${form.title} › ${field.label}: "${value}" → ${JSON.stringify(checked.errors)}`);
    }
  }
  return refused;
}

/** The form of every command the menu lists, opened as its button opens it. */
async function menuForms(): Promise<Opened[]> {
  const panel = (await bed.run('')).find((record) => record.kind === 'panel');
  if (panel?.kind !== 'panel') throw new Error('the menu did not open');
  const forms: Opened[] = [];
  for (const button of buttonsOf(panel.reply)) forms.push({ form: formIn(await bed.click(button)) });
  return forms;
}

const requestIdIn = (records: readonly Recorded[]) => {
  const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(records))?.[0];
  if (!id) throw new Error('no approval request was made');
  return id;
};

/** The forms commands and clicks open: a window to pick, settings, a token's access, an approver's. */
async function operationForms(): Promise<Opened[]> {
  const forms: Opened[] = [];
  for (const command of [
    'shield export 5101',
    'shield bot-detection 5101',
    'library create',
    'db tokens create',
    'purge',
  ])
    forms.push({ form: formIn(await bed.run(command)) });
  const logs = (await bed.run('logs 308006')).flatMap((record) =>
    record.kind === 'respond' ? (record.reply.thread ?? []) : [],
  );
  const purge = logs.flatMap(buttonsOf).find((button) => button.actionId === 'purge:form');
  if (!purge) throw new Error('the origin-log summary has no Purge… button');
  forms.push({ form: formIn(await bed.click(purge)) });
  const lead = { userId: 'U0LEAD', channelId: 'C0APPROVALS' };
  const reset = requestIdIn(await bed.run('pullzone reset-key 308006 rotated'));
  forms.push({
    form: formIn(await bed.click({ actionId: 'approvals:reject', value: reset }, lead)),
    caller: lead,
  });
  const write = requestIdIn(await bed.run('db exec DELETE FROM orders WHERE id = 4'));
  forms.push({
    form: formIn(await bed.click({ actionId: 'approvals:approve', value: write }, lead)),
    caller: lead,
  });
  forms.push({
    form: investigateForm({ pullZoneIds: [308006], shieldZoneIds: [], times: [] }, bed.clock()),
  });
  return forms;
}

describe('every value a hint suggests is one its field accepts', () => {
  it.each([{ name: 'an afternoon', at: DEFAULT_INSTANT }, ...PINNED_INSTANTS])(
    'in the form of every command, at $name',
    async ({ at }) => {
      bed.clock.set(at);
      const forms = await menuForms();
      // Every command the menu lists has its form; some of them offer values to try.
      expect(forms.length).toBeGreaterThan(20);
      expect(forms.flatMap(({ form }) => form.fields.flatMap(suggested)).length).toBeGreaterThan(10);
      const refused = (await Promise.all(forms.map(refusals))).flat();
      expect(refused).toEqual([]);
    },
  );

  it('in the forms that commands and clicks open', async () => {
    bed.clock.set(DEFAULT_INSTANT);
    const forms = await operationForms();
    expect(forms.map(({ form }) => form.callbackId)).toEqual([
      'shield.export:window-and-filters',
      'shield.bot-detection:submit',
      'library.create:form',
      'db.tokens.create:access',
      'purge:urls',
      'purge:urls',
      'approvals:reject',
      'approvals:confirm',
      'investigate:run',
    ]);
    const refused = (await Promise.all(forms.map(refusals))).flat();
    expect(refused).toEqual([]);
  });
});
