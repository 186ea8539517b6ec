import { describe, expect, it } from 'vitest';
import { askForm, type FormIO, parseFormTime } from '../../src/console/form.js';
import { createStyle } from '../../src/console/style.js';
import { type ModalSpec, zoneField } from '../../src/reply/form.js';

const NOW = Date.UTC(2026, 10, 21, 14, 0, 0);
const now = () => NOW;

/** Answers from a script; the end of the script is the end of input. */
function scripted(answers: string[]): FormIO & { printed: string[] } {
  const printed: string[] = [];
  return {
    printed,
    read: async () => answers.shift(),
    print: (text) => printed.push(text),
  };
}

const spec = (fields: ModalSpec['fields']): ModalSpec => ({
  callbackId: 'x:form',
  title: 'Form',
  submit: 'Go',
  privateMetadata: '',
  fields,
});

const style = createStyle(false);

describe('asking a form on the terminal', () => {
  it('returns values in the shapes the Slack adapter reads from a view', async () => {
    const io = scripted(['7', '2', '1, vp9', '', '2026-11-21T13:30', '', '']);
    const answer = await askForm(
      spec([
        { id: 'count', label: 'Count', kind: 'number', min: 1 },
        {
          id: 'mode',
          label: 'Mode',
          kind: 'select',
          options: [
            { value: '0', label: 'Log' },
            { value: '1', label: 'Block' },
          ],
        },
        {
          id: 'codecs',
          label: 'Codecs',
          kind: 'multiselect',
          options: [
            { value: 'x264', label: 'x264' },
            { value: 'vp9', label: 'VP9' },
            { value: 'av1', label: 'AV1' },
          ],
        },
        {
          id: 'flags',
          label: 'Flags',
          kind: 'checkboxes',
          options: [{ value: 'jit', label: 'JIT' }],
          initial: ['jit'],
        },
        { id: 'from', label: 'From', kind: 'datetime' },
        { id: 'to', label: 'To', kind: 'datetime', initial: NOW },
        { id: 'note', label: 'Note', kind: 'text', optional: true },
      ]),
      io,
      { style, now },
    );
    expect(answer).toEqual({
      kind: 'filled',
      values: {
        count: '7',
        mode: '1',
        codecs: ['x264', 'vp9'],
        flags: ['jit'],
        from: String(Date.UTC(2026, 10, 21, 13, 30)),
        to: String(NOW),
        note: undefined,
      },
    });
    expect(io.printed.join('\n')).toContain('To (date and time');
    expect(io.printed.join('\n')).toContain('[2026-11-21T14:00:00.000Z]');
  });

  it('clears an optional field with "-" and leaves an optional multi-select empty', async () => {
    const answer = await askForm(
      spec([
        { id: 'query', label: 'Query', kind: 'text', optional: true, initial: 'old' },
        {
          id: 'tags',
          label: 'Tags',
          kind: 'multiselect',
          optional: true,
          options: [{ value: 'a', label: 'A' }],
        },
      ]),
      scripted(['-', '']),
      { style, now },
    );
    expect(answer).toEqual({ kind: 'filled', values: { query: undefined, tags: [] } });
  });

  it('reads several lines for a multi-line field, up to a line holding only "."', async () => {
    const answer = await askForm(
      spec([{ id: 'sql', label: 'SQL', kind: 'text', multiline: true }]),
      scripted(['SELECT *', '  FROM orders', '.']),
      { style, now },
    );
    expect(answer).toEqual({ kind: 'filled', values: { sql: 'SELECT *\n  FROM orders' } });
  });

  it('asks only the fields named, keeping the other answers and showing the error', async () => {
    const io = scripted(['fixed']);
    const answer = await askForm(
      spec([
        { id: 'a', label: 'A', kind: 'text' },
        { id: 'b', label: 'B', kind: 'text' },
      ]),
      io,
      { style, now, values: { a: 'kept', b: 'bad' }, only: new Set(['b']), errors: { b: 'B is wrong' } },
    );
    expect(answer).toEqual({ kind: 'filled', values: { a: 'kept', b: 'fixed' } });
    expect(io.printed.join('\n')).toContain('✗ B is wrong');
    expect(io.printed.join('\n')).not.toContain('A (text)');
  });

  it('ends without values at :cancel or at the end of input', async () => {
    const fields: ModalSpec['fields'] = [{ id: 'a', label: 'A', kind: 'text' }];
    expect(await askForm(spec(fields), scripted([':cancel']), { style, now })).toEqual({ kind: 'cancelled' });
    expect(await askForm(spec(fields), scripted([]), { style, now })).toEqual({ kind: 'ended' });
  });
});

describe('times in forms', () => {
  it('reads ISO 8601 (UTC without a zone), Unix milliseconds, now and relative times', () => {
    expect(parseFormTime('2026-11-21T14:00:00Z', now)).toEqual({ ok: true, ms: NOW });
    expect(parseFormTime('2026-11-21 15:00', now)).toEqual({ ok: true, ms: NOW + 3_600_000 });
    expect(parseFormTime('2026-11-21T16:00:00+02:00', now)).toEqual({ ok: true, ms: NOW });
    expect(parseFormTime(String(NOW + 999), now)).toEqual({ ok: true, ms: NOW });
    expect(parseFormTime('now', now)).toEqual({ ok: true, ms: NOW });
    expect(parseFormTime('-3h', now)).toEqual({ ok: true, ms: NOW - 3 * 3_600_000 });
    expect(parseFormTime('yesterday-ish', now).ok).toBe(false);
    expect(parseFormTime('-3x', now).ok).toBe(false);
  });
});

describe('a zone field on the terminal', () => {
  it('takes the id typed, as Slack’s picker submits it, and says how to find one', async () => {
    const io = scripted(['www-example', '0', ' 308006 ', '']);
    const answer = await askForm(
      spec([
        zoneField({ id: 'zone', label: 'Pull zone', zones: 'pullzone' }),
        zoneField({
          id: 'shield',
          label: 'Shield zone',
          zones: 'shieldzone',
          initial: { kind: 'shieldzone', id: 5101 },
        }),
      ]),
      io,
      { style, now },
    );
    expect(answer).toEqual({ kind: 'filled', values: { zone: '308006', shield: '5101' } });
    const printed = io.printed.join('\n');
    expect(printed).toContain('/edge pullzones lists them');
    expect(printed).toContain('/edge shield zones lists them');
    expect(printed).toContain('give a pull zone id as a whole number, e.g. 308006');
  });

  it('takes a zone with its kind, as Slack’s picker of both kinds submits it, and refuses the other kind', async () => {
    const io = scripted(['shieldzone:5101', 'pullzone:308006', 'shieldzone:5101', '5101']);
    const answer = await askForm(
      spec([
        zoneField({ id: 'pull', label: 'Pull zone', zones: 'pullzone' }),
        zoneField({ id: 'either', label: 'Zone', zones: 'any' }),
        zoneField({ id: 'bare', label: 'Zone', zones: 'any' }),
      ]),
      io,
      { style, now },
    );
    expect(answer).toEqual({
      kind: 'filled',
      values: { pull: '308006', either: 'shieldzone:5101', bare: '5101' },
    });
    expect(io.printed.join('\n')).toContain('give a pull zone id, not a Shield zone');
  });
});

describe('a list of entries on the terminal', () => {
  const filters = (initial?: string[]): ModalSpec =>
    spec([
      {
        id: 'filters',
        label: 'Filters',
        kind: 'entries',
        noun: 'filter',
        optional: true,
        parts: [
          {
            id: 'field',
            label: 'field',
            kind: 'select',
            options: ['country', 'ip'].map((value) => ({ value, label: value })),
          },
          { id: 'op', label: 'operator', kind: 'select', options: [{ value: 'in', label: 'in' }] },
          { id: 'values', label: 'values', kind: 'text' },
        ],
        hint: 'One a line, as field:operator:values.',
        ...(initial ? { initial } : {}),
      },
    ]);

  it('asks whether to add one, and nothing more when none is wanted', async () => {
    const io = scripted(['']);
    expect(await askForm(filters(), io, { style, now })).toEqual({
      kind: 'filled',
      values: { filters: undefined },
    });
    const printed = io.printed.join('\n');
    expect(printed).toContain('Filters (one filter at a time, optional)');
    // The line format is for where lines are typed; here each part is asked.
    expect(printed).not.toContain('field:operator:values');
    expect(printed).not.toContain('Filter 1');
  });

  it('asks each part of an entry, then whether to add another, and joins them a line each', async () => {
    const io = scripted(['y', 'country', '1', 'DE,FR', 'yes', '2', 'in', '203.0.113.7', 'n']);
    expect(await askForm(filters(), io, { style, now })).toEqual({
      kind: 'filled',
      values: { filters: 'country:in:DE,FR\nip:in:203.0.113.7' },
    });
    const printed = io.printed.join('\n');
    expect(printed).toContain('Filter 1: field');
    expect(printed).toContain('Filter 2: values');
  });

  it('goes back from an entry’s first part to the question, and from the question to the field before', async () => {
    const form = filters();
    const withNote = {
      ...form,
      fields: [{ id: 'note', label: 'Note', kind: 'text' as const }, ...form.fields],
    };
    const io = scripted(['', 'y', ':back', 'n']);
    expect(await askForm(withNote, io, { style, now, values: { note: 'first' } })).toEqual({
      kind: 'filled',
      values: { note: 'first', filters: undefined },
    });
    expect(io.printed.join('\n').match(/Filter 1: field/g)).toHaveLength(1);
    expect(await askForm(withNote, scripted(['first', ':back', 'again', 'n']), { style, now })).toEqual({
      kind: 'filled',
      values: { note: 'again', filters: undefined },
    });
  });

  it('keeps the entries given before on Enter, or starts the list again', async () => {
    expect(await askForm(filters(['country:in:DE']), scripted(['']), { style, now })).toEqual({
      kind: 'filled',
      values: { filters: 'country:in:DE' },
    });
    const io = scripted(['n', 'y', 'ip', 'in', '10.0.0.1', '']);
    expect(await askForm(filters(['country:in:DE']), io, { style, now })).toEqual({
      kind: 'filled',
      values: { filters: 'ip:in:10.0.0.1' },
    });
    expect(io.printed.join('\n')).toContain('[country:in:DE]');
  });
});

describe('an /edge command typed at a field', () => {
  const fields: ModalSpec['fields'] = [
    { id: 'name', label: 'Name', kind: 'text' },
    { id: 'count', label: 'Count', kind: 'number', optional: true },
  ];

  it('asks whether to leave the form, and leaves it to run the command when told so', async () => {
    const io = scripted(['/edge dns shop', 'y']);
    expect(await askForm(spec(fields), io, { style, now })).toEqual({
      kind: 'command',
      line: '/edge dns shop',
    });
    expect(io.printed.join('\n')).not.toContain('✗');
  });

  it('stays in the form otherwise, and asks the same field again, whatever its kind', async () => {
    const prompts: string[] = [];
    const answers = ['/edge dns', '', 'demo', '/EDGE', 'n', '3'];
    const io: FormIO & { printed: string[] } = {
      printed: [],
      read: async (prompt) => {
        prompts.push(prompt);
        return answers.shift();
      },
      print(text) {
        this.printed.push(text);
      },
    };
    expect(await askForm(spec(fields), io, { style, now })).toEqual({
      kind: 'filled',
      values: { name: 'demo', count: '3' },
    });
    expect(prompts.filter((prompt) => prompt.includes('Leave this form and run it? (y/N)'))).toHaveLength(2);
    expect(io.printed.join('\n')).toContain(
      'Staying in the form: a value cannot start with /edge. (back at Name)',
    );
    expect(io.printed.join('\n')).toContain('(back at Count)');
  });
});
