/**
 * Every command has a form made from its definition, and a filled form runs exactly the request
 * the typed command would: same operation, same parsed arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation, operationKey } from '../../src/operations/engine/types.js';
import { commandFormSpec, typedCommandForm } from '../../src/operations/menu/command-forms.js';
import { hintText, type ModalValues } from '../../src/reply/form.js';
import { renderModal } from '../../src/slack/blocks/modal.js';
import { checkViewLimits, formatSchemaErrors, validateModal } from '../support/block-kit.js';
import {
  answers,
  type EngineTestbed,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun(), serviceDatabase: true });
});
afterAll(async () => {
  await bed?.close();
});

/**
 * Each row: the command as Slack delivers it when typed (`<` and `&` arrive escaped), and the
 * same request filled in the command's form. Every registered command has at least one row.
 */
const ROWS: readonly { key: string; typed: string; values: ModalValues }[] = [
  { key: 'help', typed: 'help dns', values: { SUBCOMMAND: 'dns' } },
  { key: 'menu', typed: 'menu', values: {} },
  { key: 'whoami', typed: 'whoami', values: {} },
  { key: 'home', typed: 'home', values: {} },
  { key: 'context', typed: 'context', values: {} },
  { key: 'watches', typed: 'watches', values: {} },
  {
    key: 'watch.logs',
    typed: 'watch logs 308006 --status 5xx --every 2m --for 3h --alert 50/5m',
    values: { PULLZONE_ID: '308006', '--status': '5xx', '--every': '2m', '--for': '3h', '--alert': '50/5m' },
  },
  { key: 'context.clear', typed: 'context clear', values: {} },
  {
    key: 'context.set',
    typed: 'context set pullzone=308006 shieldzone=5101',
    values: { 'pullzone=ID': '308006', 'shieldzone=ID': '5101' },
  },
  {
    key: 'dns',
    typed: 'dns "example com" --page 2 --per-page 5 --lite',
    values: { SEARCH: 'example com', '--page': '2', '--per-page': '5', '--lite': ['yes'] },
  },
  { key: 'dns', typed: 'dns -- -staging', values: { SEARCH: '-staging' } },
  { key: 'pullzones', typed: 'pullzones www --per-page 10', values: { SEARCH: 'www', '--per-page': '10' } },
  { key: 'shield.zones', typed: 'shield zones --page 2', values: { '--page': '2' } },
  { key: 'apikeys', typed: 'apikeys --page 1 --per-page 20', values: { '--page': '1', '--per-page': '20' } },
  { key: 'library.create', typed: 'library create Product demos', values: { NAME: 'Product demos' } },
  {
    key: 'logs',
    typed: 'logs 308006 --from 2026-11-21T10:00 --to 2026-11-21T11:30 --status 502 --zone DE',
    values: {
      PULLZONE_ID: '308006',
      '--from': '2026-11-21T10:00',
      '--to': '2026-11-21T11:30',
      '--status': '502',
      '--zone': 'DE',
    },
  },
  {
    key: 'logs',
    typed: 'logs 308006 yesterday --code http_timeout',
    values: { PULLZONE_ID: '308006', ARG2: 'yesterday', '--code': 'http_timeout' },
  },
  { key: 'logs', typed: 'logs 308006 --from -3h', values: { PULLZONE_ID: '308006', '--from': '-3h' } },
  {
    key: 'shield.export',
    typed:
      'shield export 5101 --last 1h --query \'path "/wp-login" &amp; more\' --filter country:in:DE,FR --filter ip:eq:203.0.113.7',
    values: {
      SHIELD_ZONE_ID: '5101',
      '--last': '1h',
      '--query': 'path "/wp-login" & more',
      '--filter': 'country:in:DE,FR\n  ip:eq:203.0.113.7\n',
    },
  },
  { key: 'shield.enums', typed: 'shield enums Operator', values: { NAME: 'Operator' } },
  { key: 'shield.bot-detection', typed: 'shield bot-detection 5101', values: { SHIELD_ZONE_ID: '5101' } },
  {
    key: 'pullzone.reset-key',
    typed: `pullzone reset-key 308006 "key leaked: it's in a \\"CI\\" log \\\\ twice"`,
    values: { PULLZONE_ID: '308006', REASON: 'key leaked: it\'s in a "CI" log \\ twice' },
  },
  {
    key: 'db.query',
    typed: `db query SELECT id, 'a  "b"' AS x FROM orders WHERE total &lt; 5 -- --page`,
    values: { SQL: `SELECT id, 'a  "b"' AS x FROM orders WHERE total < 5 -- --page` },
  },
  {
    key: 'db.exec',
    typed: "db exec UPDATE orders SET note = 'a &amp; b &amp;lt;' WHERE id = 7",
    values: { SQL: "UPDATE orders SET note = 'a & b &lt;' WHERE id = 7" },
  },
  {
    key: 'db.tokens.create',
    typed: 'db tokens create --read-only --expires 30d --db shop',
    values: { '--read-only': ['yes'], '--expires': '30d', '--db': 'shop' },
  },
  {
    key: 'db.tokens.invalidate',
    typed: 'db tokens invalidate --regenerate',
    values: { '--regenerate': ['yes'] },
  },
  { key: 'approvals', typed: 'approvals --all', values: { '--all': ['yes'] } },
  {
    key: 'approvals.cancel',
    typed: 'approvals cancel ap_3f2c9a1b7d4e6f80',
    values: { REQUEST_ID: 'ap_3f2c9a1b7d4e6f80' },
  },
  { key: 'audit', typed: 'audit --limit 10 --verify', values: { '--limit': '10', '--verify': ['yes'] } },
  { key: 'stats', typed: 'stats 308006 --last 2h', values: { PULLZONE_ID: '308006', '--last': '2h' } },
  {
    key: 'purge',
    typed: 'purge https://www.example.com/a.js https://www.example.com/b.js',
    values: { URL: 'https://www.example.com/a.js\nhttps://www.example.com/b.js' },
  },
  {
    key: 'purge.zone',
    typed: 'purge zone 308006 --tag product-42',
    values: { PULLZONE_ID: '308006', '--tag': 'product-42' },
  },
  {
    key: 'digest.logs',
    typed: 'digest logs 308006 --at 09:00 --tz Europe/Berlin --every weekday',
    values: { PULLZONE_ID: '308006', '--at': '09:00', '--tz': 'Europe/Berlin', '--every': 'weekday' },
  },
  {
    key: 'digest.shield',
    typed: 'digest shield 5101 --at 08:30 --query wp-login --filter action:eq:block',
    values: { SHIELD_ZONE_ID: '5101', '--at': '08:30', '--query': 'wp-login', '--filter': 'action:eq:block' },
  },
  { key: 'digests', typed: 'digests', values: {} },
];

describe('a form for every command', () => {
  it('has a row for every registered command', () => {
    const covered = new Set(ROWS.map((row) => row.key));
    expect(bed.runtime.engine.operations.map(operationKey).filter((key) => !covered.has(key))).toEqual([]);
  });

  it.each(ROWS)('the form of $key submits what `/edge $typed` asks', async ({ key, typed, values }) => {
    const op = bed.runtime.engine.operations.find((candidate) => operationKey(candidate) === key)!;
    const form = commandFormSpec(op);
    // Only fields the form has are filled: a value for a field it lacks would go nowhere.
    const ids = form.fields.map((field) => field.id);
    for (const id of Object.keys(values)) expect(ids).toContain(id);
    const checked = await bed.runtime.engine.submit({
      userId: 'U0YOU',
      channelId: 'C0OPS',
      callbackId: form.callbackId,
      privateMetadata: form.privateMetadata,
      values,
      surface: recordingSurface(),
    });
    // The engine knows the form, and accepts it without running anything yet.
    expect(checked).toHaveProperty('run');
    const asTyped = bed.runtime.engine.resolve(typed);
    expect(asTyped.ok).toBe(true);
    const viaForm = formCommand(op, values);
    expect(viaForm).toEqual(asTyped);
  });

  it('renders every form as a modal Slack accepts, titled with the command', () => {
    for (const op of bed.runtime.engine.operations) {
      const view = renderModal(commandFormSpec(op));
      expect(formatSchemaErrors(validateModal(view)), operationKey(op)).toBe('');
      expect(checkViewLimits(view), operationKey(op)).toEqual([]);
      expect(view.title.text).toBe(op.words.join(' '));
    }
  });

  it('makes a zone id, a time and a duration fields with hints of what to type', () => {
    const logs = commandFormSpec(
      bed.runtime.engine.operations.find((op) => op.words[0] === 'logs')!,
      [],
      Date.parse('2026-11-21T14:20:00Z'),
    );
    const field = (id: string) => logs.fields.find((candidate) => candidate.id === id);
    // A type-ahead picker; left empty, the channel's default pull zone (/edge context).
    expect(field('PULLZONE_ID')).toMatchObject({ kind: 'zone', zones: 'pullzone', optional: true });
    // A time offers one relative to now and a recent one, never a fixed date that ages.
    expect(hintText(field('--from')!)).toContain('HH:MM (today)');
    expect(field('--from')).toMatchObject({ examples: ['-3h', '2026-11-21T13:00'] });
    expect(field('--last')).toMatchObject({ examples: ['2h'] });
    expect(hintText(field('--status')!)).toBe('As typed after --status, e.g. 502 or 5xx.');
    expect(hintText(field('--code')!)).toBe('As typed: --code CODE');
    expect(logs.title.length).toBeLessThanOrEqual(24);
  });
});

describe('choices', () => {
  // A command of its own: none of the registered ones has a closed set of flag values yet.
  const report = defineOperation({
    id: 'audit.list',
    words: ['report'],
    usage: '/edge report [daily | weekly] [--format csv|json]',
    summary: 'a report',
    example: '/edge report weekly --format json',
    flags: { format: { kind: 'string', choices: ['csv', 'json'] } },
    parse: (positionals, flags) => ({ ok: true, args: { positionals, format: flags.format } }),
    run: async () => undefined,
  });

  it('offers the values a flag spec or a usage line lists as a choice, and types the chosen one', () => {
    const form = commandFormSpec(report);
    expect(form.fields).toEqual([
      expect.objectContaining({ id: 'ARG1', kind: 'select', label: 'daily or weekly', optional: true }),
      expect.objectContaining({
        id: '--format',
        kind: 'select',
        options: [
          { value: 'csv', label: 'csv' },
          { value: 'json', label: 'json' },
        ],
      }),
    ]);
    expect(typedCommandForm(report).read({ ARG1: 'weekly', '--format': 'json' })).toEqual({
      command: 'report --format json weekly',
    });
  });
});

describe('a form with a bad value', () => {
  const submitLogs = (values: ModalValues) => {
    const op = bed.runtime.engine.operations.find((candidate) => candidate.words[0] === 'logs')!;
    return bed.submit(commandFormSpec(op), values);
  };

  it.each([
    [{ PULLZONE_ID: 'abc', '--last': '2h' }, 'PULLZONE_ID', 'pull zone id must be a number'],
    [{ PULLZONE_ID: '308006', '--last': '2 hours' }, '--last', 'is not a duration'],
    [{ PULLZONE_ID: '308006', ARG2: '03/04/2026' }, 'ARG2', 'ambiguous'],
    [{ PULLZONE_ID: '308006', '--last': '2h', '--from': '-3h' }, '--last', 'both set the window'],
  ])('shows the error on the field at fault and runs nothing: %j', async (values, field, error) => {
    const result = await submitLogs(values);
    expect(result).toHaveProperty('errors');
    const errors = (result as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]).toContain(error);
  });
});

describe('a zone field', () => {
  const opOf = (key: string) => bed.runtime.engine.operations.find((op) => operationKey(op) === key)!;

  it('takes a pull zone a picker of both kinds names, and refuses a Shield zone', async () => {
    const logs = opOf('logs');
    expect(formCommand(logs, { PULLZONE_ID: 'pullzone:308006', '--last': '2h' })).toEqual(
      bed.runtime.engine.resolve('logs 308006 --last 2h'),
    );
    expect(
      await bed.submit(commandFormSpec(logs), { PULLZONE_ID: 'shieldzone:5101', '--last': '2h' }),
    ).toEqual({
      errors: { PULLZONE_ID: 'Shield zone 5101 is not a pull zone: pick a pull zone.' },
    });
    const export_ = opOf('shield.export');
    expect(formCommand(export_, { SHIELD_ZONE_ID: 'shieldzone:5101', '--last': '1h' })).toEqual(
      bed.runtime.engine.resolve('shield export 5101 --last 1h'),
    );
    expect(typedCommandForm(export_).read({ SHIELD_ZONE_ID: 'pullzone:308006' })).toEqual({
      errors: { SHIELD_ZONE_ID: 'Pull zone 308006 is not a Shield zone: pick a Shield zone.' },
    });
  });

  it('may be left empty for the channel’s default while a day is chosen, as `/edge logs yesterday` may', async () => {
    const channel = { userId: 'U0YOU', channelId: 'C0FORMDEFAULT' };
    await bed.run('context set pullzone=308006', channel);
    const submitted = await bed.submit(commandFormSpec(opOf('logs')), { ARG2: 'yesterday' }, channel);
    if ('errors' in submitted) throw new Error(JSON.stringify(submitted.errors));
    const answer = wordsOf(answers(submitted.records).at(-1)!);
    expect(answer).toContain('pull zone 308006');
    expect(answer).toContain('this channel’s default');
    expect(typedCommandForm(opOf('logs')).read({ ARG2: 'yesterday' })).toEqual({ command: 'logs yesterday' });
  });
});

describe('a form with its target filled in (a next-step button)', () => {
  const opOf = (key: string) => bed.runtime.engine.operations.find((op) => operationKey(op) === key)!;
  const initialOf = (fields: ReturnType<typeof commandFormSpec>['fields'], id: string) =>
    fields.find((field) => field.id === id)?.initial;

  it('fills the positionals in order, the zone as the picker shows it and the rest of the line last', () => {
    const form = commandFormSpec(opOf('pullzone.reset-key'), ['308006', 'key', 'leaked']);
    expect(initialOf(form.fields, 'PULLZONE_ID')).toEqual({ kind: 'pullzone', id: 308006 });
    expect(initialOf(form.fields, 'REASON')).toBe('key leaked');
    expect(formatSchemaErrors(validateModal(renderModal(form)))).toBe('');
    // Submitted as filled in, the form runs the command the button names, with the reason.
    expect(formCommand(opOf('pullzone.reset-key'), { PULLZONE_ID: '308006', REASON: 'key leaked' })).toEqual(
      bed.runtime.engine.resolve('pullzone reset-key 308006 key leaked'),
    );
  });

  it('leaves a field empty when the value given does not fit it', () => {
    const { fields } = commandFormSpec(opOf('pullzone.reset-key'), ['www']);
    expect(initialOf(fields, 'PULLZONE_ID')).toBeUndefined();
    expect(initialOf(fields, 'REASON')).toBeUndefined();
  });
});

describe('what a form shows a person', () => {
  it('labels every field by what it takes, never by a made-up name', () => {
    for (const op of bed.runtime.engine.operations)
      for (const field of commandFormSpec(op).fields)
        expect(field.label, `${operationKey(op)} ${field.id}`).not.toMatch(/\barg\d/i);
    const logs = commandFormSpec(bed.runtime.engine.operations.find((op) => op.words[0] === 'logs')!);
    expect(logs.fields.find((field) => field.id === 'ARG2')?.label).toBe(
      'today, yesterday, MM-dd-yyyy or yyyy-MM-dd',
    );
  });

  it('names a later field by its label when an earlier one must be filled too', () => {
    const report = defineOperation({
      id: 'audit.list',
      words: ['report'],
      usage: '/edge report [NAME] [daily | weekly]',
      summary: 'a report',
      example: '/edge report orders weekly',
      flags: {},
      parse: (positionals) => ({ ok: true, args: { positionals } }),
      run: async () => undefined,
    });
    expect(typedCommandForm(report).read({ ARG2: 'weekly' })).toEqual({
      errors: { NAME: 'Fill this in too, or leave “daily or weekly” empty.' },
    });
  });
});

/** What the form's submission resolves to: its command line, read as the engine reads it. */
function formCommand(op: Parameters<typeof commandFormSpec>[0], values: ModalValues) {
  const read = typedCommandForm(op).read(values);
  if ('errors' in read) throw new Error(JSON.stringify(read.errors));
  return bed.runtime.engine.resolve(read.command);
}
