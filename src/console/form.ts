/**
 * A form (ModalSpec) asked field by field on the terminal. Enter keeps the default, `-` clears
 * an optional field, `:cancel` leaves the form. Values come back exactly as the Slack adapter
 * reads them from a view: strings, string lists, numbers and times as strings (times in ms).
 */

import {
  hintText,
  isCommandLine,
  type ModalField,
  type ModalOption,
  type ModalSpec,
  type ModalValues,
  readZoneChoice,
  ZONE_KIND_WORDS,
  type ZonePick,
  zoneOptionValue,
} from '../reply/form.js';
import { markupToPlain } from '../reply/markup.js';
import { parseDuration } from '../time/duration.js';
import { type Style, safeForTerminal } from './style.js';

export interface FormIO {
  read(prompt: string): Promise<string | undefined>;
  print(text: string): void;
}

export type FormAnswer =
  | { kind: 'filled'; values: ModalValues }
  | { kind: 'cancelled' }
  | { kind: 'ended' }
  /** An `/edge …` line typed at a field, and the person chose to leave the form to run it. */
  | { kind: 'command'; line: string };

export interface AskFormOptions {
  style: Style;
  now: () => number;
  /** Answers so far (a second round after validation errors); they become the defaults. */
  values?: ModalValues;
  /** Ask only these fields; the others keep `values`. */
  only?: ReadonlySet<string>;
  /** Validation errors to show at their fields. */
  errors?: Record<string, string>;
  /**
   * Runs a console command typed at a field (`:buttons`, `:as U0LEAD`, `:help`); the field is
   * asked again after it. Returns true when the command leaves the console (`:quit`).
   */
  command?: (line: string) => Promise<boolean>;
}

type Parsed = { ok: true; value: string | string[] } | { ok: false; error: string };

const CANCEL = ':cancel';
const BACK = ':back';
const CLEAR = '-';
const MULTILINE_END = '.';

const isMulti = (
  field: ModalField,
): field is Extract<ModalField, { options: ModalOption[]; initial?: string[] }> =>
  field.kind === 'multiselect' || field.kind === 'checkboxes';

function initialValue(field: ModalField): string | string[] | undefined {
  switch (field.kind) {
    case 'text':
      return field.initial ? field.initial : undefined;
    case 'number':
    case 'datetime':
      return field.initial === undefined ? undefined : String(field.initial);
    case 'zone':
      return field.initial && zoneOptionValue(field.zones, field.initial.kind, field.initial.id);
    case 'select':
      return field.initial;
    case 'multiselect':
    case 'checkboxes':
      return field.initial && field.initial.length > 0 ? field.initial : undefined;
    case 'entries':
      return field.initial && field.initial.length > 0 ? field.initial.join('\n') : undefined;
  }
}

function describe(field: ModalField): string {
  switch (field.kind) {
    case 'text':
      return field.multiline
        ? `text, several lines ending with a line holding only "${MULTILINE_END}"`
        : 'text';
    case 'number': {
      const range =
        field.min !== undefined && field.max !== undefined
          ? `, ${field.min}–${field.max}`
          : field.min !== undefined
            ? `, at least ${field.min}`
            : field.max !== undefined
              ? `, at most ${field.max}`
              : '';
      return `whole number${range}`;
    }
    case 'select':
      return 'choose one: its number or value';
    case 'multiselect':
    case 'checkboxes':
      return 'choose any: numbers or values, separated by commas';
    case 'datetime':
      return 'date and time: ISO 8601 (UTC unless a zone is given), Unix ms, "now" or "-3h"';
    case 'zone':
      return `${ZONE_IDS[field.zones]}; ${ZONE_LISTS[field.zones]} lists them`;
    case 'entries':
      return `one ${field.noun} at a time`;
  }
}

const ZONE_IDS: Record<ZonePick, string> = {
  pullzone: 'a pull zone id',
  shieldzone: 'a Shield zone id',
  any: 'a pull zone or Shield zone id',
};

const ZONE_LISTS: Record<ZonePick, string> = {
  pullzone: '/edge pullzones',
  shieldzone: '/edge shield zones',
  any: '/edge pullzones or /edge shield zones',
};

const optionLabel = (field: ModalField, value: string) =>
  'options' in field ? (field.options.find((o) => o.value === value)?.label ?? value) : value;

function shownValue(field: ModalField, value: string | string[]): string {
  if (Array.isArray(value)) return value.map((v) => optionLabel(field, v)).join(', ');
  if (field.kind === 'entries') return value.split('\n').join('; ');
  if (field.kind === 'datetime') return new Date(Number(value)).toISOString();
  return optionLabel(field, value);
}

function pickOption(options: ModalOption[], answer: string): ModalOption | undefined {
  if (/^\d+$/.test(answer)) {
    const byNumber = options[Number(answer) - 1];
    if (byNumber) return byNumber;
  }
  const lower = answer.toLowerCase();
  return (
    options.find((o) => o.value === answer) ??
    options.find((o) => o.value.toLowerCase() === lower || o.label.toLowerCase() === lower)
  );
}

/** Times as the command line takes them (PRODUCT §4); whole seconds, as Slack's picker sends. */
export function parseFormTime(
  answer: string,
  now: () => number,
): { ok: true; ms: number } | { ok: false; error: string } {
  let ms: number;
  if (answer.toLowerCase() === 'now') ms = now();
  else if (answer.startsWith('-')) {
    const duration = parseDuration(answer.slice(1));
    if (!duration.ok) return { ok: false, error: `"${answer}" is not a time before now (e.g. -3h, -90m)` };
    ms = now() - duration.ms;
  } else if (/^\d+$/.test(answer)) ms = Number(answer);
  else {
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(answer);
    const iso =
      /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(answer) && !hasZone ? `${answer.replace(' ', 'T')}Z` : answer;
    ms = /^\d{4}-\d{2}-\d{2}/.test(answer) ? Date.parse(iso) : Number.NaN;
  }
  if (!Number.isFinite(ms) || ms < 0) return { ok: false, error: `"${answer}" is not a time I can read` };
  return { ok: true, ms: Math.floor(ms / 1000) * 1000 };
}

function parseAnswer(field: ModalField, answer: string, now: () => number): Parsed {
  switch (field.kind) {
    case 'text':
    case 'entries':
      return { ok: true, value: answer };
    case 'number': {
      if (!/^-?\d+$/.test(answer)) return { ok: false, error: 'give a whole number' };
      const value = Number(answer);
      if (field.min !== undefined && value < field.min)
        return { ok: false, error: `the least is ${field.min}` };
      if (field.max !== undefined && value > field.max)
        return { ok: false, error: `the most is ${field.max}` };
      return { ok: true, value: String(value) };
    }
    case 'select': {
      const option = pickOption(field.options, answer);
      return option
        ? { ok: true, value: option.value }
        : { ok: false, error: `choose 1–${field.options.length} or one of the values` };
    }
    case 'multiselect':
    case 'checkboxes': {
      const chosen: string[] = [];
      for (const part of answer
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const option = pickOption(field.options, part);
        if (!option) return { ok: false, error: `"${part}" is not one of the choices` };
        if (!chosen.includes(option.value)) chosen.push(option.value);
      }
      return { ok: true, value: chosen };
    }
    case 'datetime': {
      const time = parseFormTime(answer, now);
      return time.ok ? { ok: true, value: String(time.ms) } : time;
    }
    case 'zone': {
      // As Slack's picker would submit it: the number alone, e.g. 308006, or with its kind
      // (shieldzone:5101) where the field takes both.
      const zone = readZoneChoice(answer);
      if (zone === undefined)
        return { ok: false, error: `give ${ZONE_IDS[field.zones]} as a whole number, e.g. 308006` };
      if (zone.kind && field.zones !== 'any' && zone.kind !== field.zones)
        return { ok: false, error: `give ${ZONE_IDS[field.zones]}, not a ${ZONE_KIND_WORDS[zone.kind]}` };
      return {
        ok: true,
        value: zone.kind ? zoneOptionValue(field.zones, zone.kind, zone.id) : String(zone.id),
      };
    }
  }
}

type Asked =
  | { kind: 'value'; value: string | string[] | undefined }
  | { kind: 'cancelled' }
  | { kind: 'ended' }
  | { kind: 'back' }
  | { kind: 'command'; line: string };

/** A line typed at a form's prompt: an answer, or what the form does instead (`again`: ask anew). */
type Typed = { kind: 'answer'; answer: string } | { kind: 'again' } | Exclude<Asked, { kind: 'value' }>;

const YES = /^y(es)?$/i;
const NO = /^(n(o)?)?$/i;

/**
 * Reads one line at a form's prompt. The form's own commands, console commands (`:buttons`) and
 * an `/edge …` line are dealt with here: the last is never a value, so the person is asked
 * whether they meant to leave the form and run it.
 */
async function readAnswer(
  io: FormIO,
  options: AskFormOptions,
  prompt: string,
  label: string,
): Promise<Typed> {
  const { style } = options;
  const answer = await io.read(prompt);
  if (answer === undefined) return { kind: 'ended' };
  const text = answer.trim();
  if (text === CANCEL) return { kind: 'cancelled' };
  if (text === BACK) return { kind: 'back' };
  // Any other console command runs here and the field is asked again.
  if (/^:[a-z]/i.test(text) && options.command) {
    if (await options.command(text)) return { kind: 'ended' };
    io.print(style.dim(`  (back at ${safeForTerminal(label)})`));
    return { kind: 'again' };
  }
  if (isCommandLine(text)) {
    const leave = await io.read('  That looks like a command. Leave this form and run it? (y/N) ');
    if (leave === undefined) return { kind: 'ended' };
    if (YES.test(leave.trim())) return { kind: 'command', line: text };
    io.print(
      style.dim(
        `  Staying in the form: a value cannot start with /edge. (back at ${safeForTerminal(label)})`,
      ),
    );
    return { kind: 'again' };
  }
  return { kind: 'answer', answer };
}

/** Asks one field; undefined in `value` means left empty. */
async function askField(
  field: ModalField,
  io: FormIO,
  options: AskFormOptions,
  fallback: string | string[] | undefined,
): Promise<Asked> {
  const { style } = options;
  const optional = field.optional ?? false;
  const error = options.errors?.[field.id];
  const lines: string[] = [];
  if (error) lines.push(style.red(`  ✗ ${safeForTerminal(error)}`));
  const shownDefault = fallback === undefined ? '' : ` [${safeForTerminal(shownValue(field, fallback))}]`;
  lines.push(
    `${style.bold(safeForTerminal(field.label))} ${style.dim(`(${describe(field)}${optional ? ', optional' : ''})`)}${shownDefault}`,
  );
  if (field.kind === 'entries') {
    io.print(lines.join('\n'));
    return askEntries(field, io, options, typeof fallback === 'string' ? fallback : undefined);
  }
  const hint = hintText(field);
  if (hint) lines.push(style.dim(`  ${safeForTerminal(hint)}`));
  if ('options' in field)
    field.options.forEach((o, i) => {
      // The value is worth showing only when the label does not already say it.
      const said = o.label.toLowerCase() === o.value.toLowerCase() || o.label.endsWith(`(${o.value})`);
      const value = said ? '' : style.dim(` (${safeForTerminal(o.value)})`);
      lines.push(`  ${i + 1}) ${safeForTerminal(o.label)}${value}`);
    });
  io.print(lines.join('\n'));

  for (;;) {
    const typed = await readAnswer(io, options, '  > ', field.label);
    if (typed.kind === 'again') continue;
    if (typed.kind !== 'answer') return typed;
    let { answer } = typed;
    if (field.kind === 'text' && field.multiline && answer.trim() !== '') {
      const more: string[] = [answer];
      for (;;) {
        const next = await io.read('  … ');
        if (next === undefined) return { kind: 'ended' };
        if (next.trim() === CANCEL) return { kind: 'cancelled' };
        if (next === MULTILINE_END) break;
        more.push(next);
      }
      answer = more.join('\n');
    }
    if (answer.trim() === '') {
      if (fallback !== undefined) return { kind: 'value', value: fallback };
      if (optional) return { kind: 'value', value: isMulti(field) ? [] : undefined };
      io.print(style.red(`  This field is required (or type ${CANCEL} to leave the form).`));
      continue;
    }
    if (answer.trim() === CLEAR && optional) return { kind: 'value', value: isMulti(field) ? [] : undefined };
    // Text keeps its spaces; every other kind is read trimmed.
    const parsed = parseAnswer(field, field.kind === 'text' ? answer : answer.trim(), options.now);
    if (!parsed.ok) {
      io.print(style.red(`  ✗ ${parsed.error}`));
      continue;
    }
    if (Array.isArray(parsed.value) && parsed.value.length === 0 && !optional) {
      io.print(style.red('  Choose at least one.'));
      continue;
    }
    return { kind: 'value', value: parsed.value };
  }
}

type EntriesField = Extract<ModalField, { kind: 'entries' }>;

/**
 * A list asked entry by entry: "Add a filter? (y/N)", its parts, then "Add another filter?";
 * a list given before (a second round) is kept or started again. Entries come back one a line.
 */
async function askEntries(
  field: EntriesField,
  io: FormIO,
  options: AskFormOptions,
  fallback: string | undefined,
): Promise<Asked> {
  const { style } = options;
  const entries: string[] = [];
  if (fallback !== undefined) {
    for (;;) {
      const typed = await readAnswer(io, options, `  Keep these ${field.noun}s? (Y/n) `, field.label);
      if (typed.kind === 'again') continue;
      if (typed.kind !== 'answer') return typed;
      const answer = typed.answer.trim();
      if (answer === '' || YES.test(answer)) return { kind: 'value', value: fallback };
      if (NO.test(answer)) break;
      io.print(style.red('  Answer y or n.'));
    }
  }
  for (;;) {
    const question = `  Add ${entries.length === 0 ? 'a' : 'another'} ${field.noun}? (y/N) `;
    const typed = await readAnswer(io, options, question, field.label);
    if (typed.kind === 'again') continue;
    if (typed.kind !== 'answer') return typed;
    const answer = typed.answer.trim();
    if (NO.test(answer)) {
      if (entries.length > 0) return { kind: 'value', value: entries.join('\n') };
      if (field.optional) return { kind: 'value', value: undefined };
      io.print(style.red(`  Add at least one ${field.noun} (or type ${CANCEL} to leave the form).`));
      continue;
    }
    if (!YES.test(answer)) {
      io.print(style.red('  Answer y or n.'));
      continue;
    }
    const entry = await askEntry(field, io, options, entries.length + 1);
    // :back at its first part asks again whether to add it.
    if (entry.kind === 'back') continue;
    if (entry.kind !== 'value') return entry;
    if (typeof entry.value === 'string') entries.push(entry.value);
  }
}

/** One entry's parts, each asked as a field of its own, joined as a line of the list. */
async function askEntry(field: EntriesField, io: FormIO, options: AskFormOptions, n: number): Promise<Asked> {
  const noun = `${field.noun.charAt(0).toUpperCase()}${field.noun.slice(1)} ${n}`;
  const values: (string | undefined)[] = [];
  // The parts carry no errors of their own: the form's errors are the list's.
  const { errors: _list, ...partOptions } = options;
  for (let i = 0; i < field.parts.length; ) {
    const part = field.parts[i]!;
    const asked = await askField({ ...part, label: `${noun}: ${part.label}` }, io, partOptions, values[i]);
    if (asked.kind === 'back') {
      if (i === 0) return asked;
      i -= 1;
      continue;
    }
    if (asked.kind !== 'value') return asked;
    values[i] = Array.isArray(asked.value) ? asked.value.join(',') : asked.value;
    i += 1;
  }
  return { kind: 'value', value: values.map((value) => value ?? '').join(':') };
}

export async function askForm(modal: ModalSpec, io: FormIO, options: AskFormOptions): Promise<FormAnswer> {
  const { style } = options;
  const values: ModalValues = { ...(options.values ?? {}) };
  if (!options.only) {
    const intro = modal.intro ? `\n${safeForTerminal(markupToPlain(modal.intro))}` : '';
    io.print(
      `\n${style.cyan(`── form: ${safeForTerminal(modal.title)} ──`)}${intro}\n${style.dim(
        `Enter keeps the [default]; "${CLEAR}" clears an optional field; ${BACK} goes to the field before; ${CANCEL} leaves the form.`,
      )}`,
    );
  }
  const fields = modal.fields.filter((field) => !options.only || options.only.has(field.id));
  for (let i = 0; i < fields.length; ) {
    const field = fields[i]!;
    const previous = field.id in values ? values[field.id] : initialValue(field);
    const fallback = Array.isArray(previous) && previous.length === 0 ? undefined : previous;
    const asked = await askField(field, io, options, fallback);
    if (asked.kind === 'back') {
      if (i === 0) io.print(style.dim('  This is the first field.'));
      i = Math.max(0, i - 1);
      continue;
    }
    if (asked.kind !== 'value') return asked;
    values[field.id] = asked.value;
    i += 1;
  }
  return { kind: 'filled', values };
}
