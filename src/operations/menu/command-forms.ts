/**
 * A form for every operation, made from its definition: the positionals its usage line names and
 * the flags its spec declares. Its submission is the command line the values stand for, run as
 * if typed (CommandForm), so a new operation gets a form without writing one.
 *
 * The usage grammar read here: `NAME` a positional, `[NAME]` an optional one, `NAME…` the rest
 * of the line, `[a | b | C]` alternatives (a choice when all are lowercase words), `[--flag X]`
 * a flag whose example value is X. Flags come from the spec; the usage only lends examples.
 */

import {
  fieldText,
  type ModalField,
  type ModalSpec,
  type ModalValues,
  readZoneChoice,
  ZONE_KIND_WORDS,
  zoneField,
} from '../../reply/form.js';
import type { FlagSpec } from '../engine/tokenize.js';
import { type AnyOperation, type CommandForm, operationKey } from '../engine/types.js';

type ZoneKind = 'pull' | 'shield';

/**
 * The field for a pull zone or Shield zone id. The one place such a field is made, so that a
 * picker of the zones can take its place.
 */
export function zoneIdField(zone: ZoneKind, id: string, label: string, optional: boolean): ModalField {
  // A type-ahead picker of the zones the user may list; an optional one falls back to the
  // channel's default (/edge context) when left empty. No hint: each adapter says how to pick
  // one (Slack's picker takes a name, the console an id).
  return zoneField({ id, label, zones: zone === 'pull' ? 'pullzone' : 'shieldzone', optional });
}

/** A positional as the usage line names it. */
interface Positional {
  id: string;
  name: string;
  /** How its field is labelled: never `ARG2`, which only the form's code sees. */
  label: string;
  optional: boolean;
  /** Takes the rest of the line (`REASON…`). */
  rest: boolean;
  /** `[today | yesterday | …]`: the forms it may take. */
  alternatives?: string[];
  /** `[pullzone=ID]`: typed as `pullzone=VALUE`, in any order, so it may be left out alone. */
  key?: string;
}

/** Keys of `key=ID` positionals that name a zone. */
const ZONE_KEYS: Readonly<Record<string, ZoneKind>> = { pullzone: 'pull', shieldzone: 'shield' };

const ZONE_POSITIONALS: Readonly<Record<string, ZoneKind>> = {
  PULLZONE_ID: 'pull',
  SHIELD_ZONE_ID: 'shield',
};

const INSTANT_HINT =
  'A time in UTC: ISO 8601, HH:MM (today), a span ago with a minus sign, or Unix milliseconds.';
const DURATION_HINT = 'A number and a unit (s, m, h or d).';

/** A time every window accepts as its start or end: the start of the hour before, in the ISO form. */
const recentInstant = (now: number) =>
  new Date(Math.floor(now / 3_600_000) * 3_600_000 - 3_600_000).toISOString().slice(0, 16);

/** `PULLZONE_ID` → "Pull zone id", `SQL` → "SQL", `URL` → "URL". */
function label(name: string): string {
  if (name === 'SQL' || name === 'URL') return name;
  const words = name
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace('pullzone', 'pull zone')
    .replace('shieldzone', 'Shield zone');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `[today | yesterday | yyyy-MM-dd]` → "today, yesterday or yyyy-MM-dd". */
const alternativesLabel = (alternatives: string[]) =>
  `${alternatives.slice(0, -1).join(', ')} or ${alternatives.at(-1)}`;

/** The top-level parts of a usage line after the command's words: `X`, `[X]`, `[X]…`. */
function usageParts(op: AnyOperation): string[] {
  const text = op.usage
    .replace(/^\/edge\s+/, '')
    .split(/\s+/)
    .slice(op.words.length)
    .join(' ');
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let end = i;
    if (text[i] === '[') {
      let depth = 0;
      for (; end < text.length; end++) {
        if (text[end] === '[') depth++;
        if (text[end] === ']' && --depth === 0) break;
      }
      end++;
      if (text[end] === '…') end++;
    } else {
      while (end < text.length && !/\s/.test(text[end]!)) end++;
    }
    parts.push(text.slice(i, end));
    i = end;
  }
  return parts;
}

function positionalsOf(op: AnyOperation): Positional[] {
  const positionals: Positional[] = [];
  for (const part of usageParts(op)) {
    const optional = part.startsWith('[');
    const inner = (optional ? part.replace(/^\[/, '').replace(/\]…?$/, '') : part).trim();
    if (inner.startsWith('--')) continue;
    const rest = part.endsWith('…') || inner.endsWith('…');
    const alternatives = inner.split('|').map((alternative) => alternative.trim().replace(/…$/, ''));
    const name = alternatives.length === 1 ? alternatives[0]! : `ARG${positionals.length + 1}`;
    const key = /^([a-z]+)=[A-Z_]+$/.exec(name)?.[1];
    positionals.push({
      id: name,
      name,
      label: alternatives.length > 1 ? alternativesLabel(alternatives) : label(key ?? name),
      optional,
      rest,
      ...(alternatives.length > 1 ? { alternatives } : {}),
      ...(key ? { key } : {}),
    });
  }
  return positionals;
}

/** The example value the usage line gives a flag: `--status 502|5xx` → `502|5xx`. */
function flagExample(op: AnyOperation, name: string): string | undefined {
  const found = new RegExp(`--${name}[ =]([^\\s|\\]]+(?:\\|[^\\s|\\]]+)*)`).exec(op.usage);
  const example = found?.[1];
  return example && !example.startsWith('--') ? example : undefined;
}

/** `N`, `TEXT`, `FIELD:OP:V1,V2`: what a usage line writes for a value it does not give. */
const isPlaceholder = (value: string) => /^[A-Z][A-Z0-9_:,]*$/.test(value);

/**
 * The values a flag's hint offers: those the command's example line gives it, and those the usage
 * line gives (`--status 502|5xx` gives 502 and 5xx); a time also gets two that any window takes.
 */
function exampleValues(op: AnyOperation, name: string, spec: FlagSpec, now: number | undefined): string[] {
  const given = [...op.example.matchAll(new RegExp(`--${name}[ =](\\S+)`, 'g'))]
    .map((found) => found[1]!)
    .filter((value) => !value.startsWith('--'));
  const usage = (flagExample(op, name) ?? '').split('|').filter((value) => value && !isPlaceholder(value));
  const times = spec.value === 'instant' ? ['-3h', ...(now === undefined ? [] : [recentInstant(now)])] : [];
  return [...new Set([...usage, ...given, ...times])];
}

const flagFieldId = (name: string) => `--${name}`;

function flagField(op: AnyOperation, name: string, spec: FlagSpec, now: number | undefined): ModalField {
  const id = flagFieldId(name);
  const example = flagExample(op, name);
  // The usage line's own words only where they name what the value is (`--filter FIELD:OP:V1,V2`).
  const typed =
    example && isPlaceholder(example) ? `As typed: --${name} ${example}` : `As typed after --${name}`;
  const examples = exampleValues(op, name, spec, now);
  const offered = examples.length > 0 ? { examples } : {};
  if (spec.kind === 'boolean')
    return { id, label: id, kind: 'checkboxes', options: [{ value: 'yes', label: 'Yes' }], optional: true };
  if (spec.value === 'pull-zone-id' || spec.value === 'shield-zone-id')
    return zoneIdField(spec.value === 'pull-zone-id' ? 'pull' : 'shield', id, id, true);
  if (spec.choices && spec.choices.length > 0)
    return {
      id,
      label: id,
      kind: 'select',
      options: spec.choices.map((value) => ({ value, label: value })),
      optional: true,
    };
  if (spec.kind === 'number')
    return { id, label: id, kind: 'number', optional: true, hint: typed, ...offered };
  if (spec.kind === 'repeatable')
    return {
      id,
      label: id,
      kind: 'text',
      multiline: true,
      optional: true,
      hint: `One per line. ${typed}`,
      ...offered,
    };
  const hint = spec.value === 'instant' ? INSTANT_HINT : spec.value === 'duration' ? DURATION_HINT : typed;
  return { id, label: id, kind: 'text', optional: true, hint, ...offered };
}

/** The kind of zone a positional names, if it names one. */
const zoneOfPositional = ({ name, key }: Positional): ZoneKind | undefined =>
  ZONE_POSITIONALS[name] ?? (key ? ZONE_KEYS[key] : undefined);

function positionalField(op: AnyOperation, positional: Positional): ModalField {
  const { id, optional, alternatives, key } = positional;
  const zone = zoneOfPositional(positional);
  if (zone) return zoneIdField(zone, id, positional.label, optional);
  if (key) return { id, label: positional.label, kind: 'text', optional };
  if (op.rawArgument)
    return {
      id,
      label: positional.label,
      kind: 'text',
      multiline: true,
      optional,
      hint: 'Exactly as you would type it after the command.',
    };
  if (alternatives) {
    if (alternatives.every((alternative) => /^[a-z][a-z-]*$/.test(alternative)))
      return {
        id,
        label: positional.label,
        kind: 'select',
        options: alternatives.map((value) => ({ value, label: value })),
        optional,
      };
    return { id, label: positional.label, kind: 'text', optional };
  }
  return { id, label: positional.label, kind: 'text', optional };
}

/** The callback id of an operation's form: its key, so that each form routes to its command. */
export const commandFormId = (op: AnyOperation): string => `menu.${operationKey(op)}:run`;

/**
 * A positional's field with a value already in it, as a next-step button gives it (a zone id):
 * left empty when the value does not fit the field.
 */
function filledField(field: ModalField, value: string | undefined): ModalField {
  if (value === undefined || value === '') return field;
  switch (field.kind) {
    case 'zone': {
      const chosen = readZoneChoice(value);
      const kind = chosen?.kind ?? (field.zones === 'any' ? undefined : field.zones);
      return chosen && kind ? { ...field, initial: { kind, id: chosen.id } } : field;
    }
    case 'select':
      return field.options.some((option) => option.value === value) ? { ...field, initial: value } : field;
    case 'text':
      return { ...field, initial: value };
    default:
      return field;
  }
}

/**
 * The form of an operation: its positionals, then its flags, each as the field that fits it.
 * `given` fills the positionals in order, as typed after the command's words (a next-step
 * button's target); the last one that takes the rest of the line takes the rest of them.
 * `now` lets a time field offer a recent time as its example.
 */
export function commandFormSpec(op: AnyOperation, given: readonly string[] = [], now?: number): ModalSpec {
  const values = [...given];
  const positionals = positionalsOf(op).map((positional) => {
    const field = positionalField(op, positional);
    if (positional.key) return field;
    const value = positional.rest ? values.splice(0).join(' ') : values.shift();
    return filledField(field, value);
  });
  const flags = op.rawArgument
    ? []
    : Object.entries(op.flags).map(([name, spec]) => flagField(op, name, spec, now));
  return {
    callbackId: commandFormId(op),
    title: op.words.join(' '),
    submit: 'Run',
    privateMetadata: '',
    intro: `${op.summary.charAt(0).toUpperCase()}${op.summary.slice(1)}.\nThe same as typing \`${op.usage}\`.`,
    fields: [...positionals, ...flags],
  };
}

/** Slack sends `&`, `<` and `>` of a typed command escaped; a form's line reads the same way. */
const asTyped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One word of a command line that tokenizes back to `value`: plain when safe, else in double quotes. */
export function commandWord(value: string): string {
  const escaped = asTyped(value);
  if (/^[A-Za-z0-9_.,:/@%+=^~-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

/** A value a flag reader could take for a flag: it must come after `--`, or as `--name=value`. */
const looksLikeFlag = (value: string) => /^[-—–]/.test(value);

const ZONE_KIND: Record<ZoneKind, 'pullzone' | 'shieldzone'> = { pull: 'pullzone', shield: 'shieldzone' };

/**
 * A zone field's value as the command takes it: the id alone. A picker may name the kind
 * (`pullzone:308006`); one of the other kind is refused. Anything else is left for the command.
 */
function zoneText(zone: ZoneKind, text: string): { text: string } | { error: string } {
  const chosen = readZoneChoice(text);
  if (!chosen) return { text };
  const wanted = ZONE_KIND[zone];
  if (chosen.kind && chosen.kind !== wanted) {
    const said = `${ZONE_KIND_WORDS[chosen.kind]} ${chosen.id}`;
    return {
      error: `${said.charAt(0).toUpperCase()}${said.slice(1)} is not a ${ZONE_KIND_WORDS[wanted]}: pick a ${ZONE_KIND_WORDS[wanted]}.`,
    };
  }
  return { text: String(chosen.id) };
}

/** The command line a filled form stands for, or what to correct on which field. */
function readCommand(
  op: AnyOperation,
  values: ModalValues,
): { errors: Record<string, string> } | { command: string } {
  const positionals = positionalsOf(op);
  // Zone fields hold their id alone from here on.
  const zoneErrors: Record<string, string> = {};
  const read: ModalValues = { ...values };
  const zoneFields: [string, ZoneKind][] = [
    ...positionals.flatMap((positional): [string, ZoneKind][] => {
      const zone = zoneOfPositional(positional);
      return zone ? [[positional.id, zone]] : [];
    }),
    ...Object.entries(op.flags).flatMap(([name, spec]): [string, ZoneKind][] =>
      spec.value === 'pull-zone-id' || spec.value === 'shield-zone-id'
        ? [[flagFieldId(name), spec.value === 'pull-zone-id' ? 'pull' : 'shield']]
        : [],
    ),
  ];
  for (const [id, zone] of zoneFields) {
    const text = fieldText(values, id);
    if (!text) continue;
    const checked = zoneText(zone, text);
    if ('error' in checked) zoneErrors[id] = checked.error;
    else read[id] = checked.text;
  }
  if (Object.keys(zoneErrors).length > 0) return { errors: zoneErrors };
  return commandLine(op, read);
}

/** The command line of values whose zone fields hold ids alone. */
function commandLine(
  op: AnyOperation,
  values: ModalValues,
): { errors: Record<string, string> } | { command: string } {
  const words = op.words.join(' ');
  const positionals = positionalsOf(op);
  if (op.rawArgument) {
    // The rest of the line is taken verbatim: no quoting, only what Slack itself escapes.
    const raw = positionals[0] ? fieldText(values, positionals[0].id) : '';
    return { command: raw ? `${words} ${asTyped(raw)}` : words };
  }
  const flags: string[] = [];
  for (const [name, spec] of Object.entries(op.flags)) {
    const value = values[flagFieldId(name)];
    if (spec.kind === 'boolean') {
      if (Array.isArray(value) ? value.length > 0 : Boolean(value)) flags.push(`--${name}`);
      continue;
    }
    const texts =
      spec.kind === 'repeatable'
        ? (typeof value === 'string' ? value.split('\n') : (value ?? [])).map((line) => line.trim())
        : [fieldText(values, flagFieldId(name))];
    for (const text of texts.filter(Boolean))
      flags.push(looksLikeFlag(text) ? `--${name}=${commandWord(text)}` : `--${name} ${commandWord(text)}`);
  }
  const given: string[] = [];
  for (const [index, positional] of positionals.entries()) {
    const text = fieldText(values, positional.id);
    if (positional.key) {
      if (text) given.push(`${positional.key}=${commandWord(text)}`);
      continue;
    }
    if (text) {
      given.push(commandWord(text));
      continue;
    }
    // The command reads a zone left out as the channel's default (/edge context).
    const zone = zoneOfPositional(positional);
    if (positional.optional && zone && op.channelDefault?.kind === ZONE_KIND[zone]) continue;
    // A later value would move into this one's place.
    const later = positionals.slice(index + 1).find((next) => !next.key && fieldText(values, next.id));
    if (later) return { errors: { [positional.id]: `Fill this in too, or leave “${later.label}” empty.` } };
  }
  const dashed = positionals.some((positional) => looksLikeFlag(fieldText(values, positional.id)));
  return { command: [words, ...flags, ...(dashed ? ['--'] : []), ...given].join(' ') };
}

/** The field a complaint of the command's own parsing is about. */
function fieldOf(op: AnyOperation, error: string, values: ModalValues): string {
  const form = commandFormSpec(op);
  const ids = new Set(form.fields.map((field) => field.id));
  const byName = new Map<string, string>();
  for (const [name, spec] of Object.entries(op.flags)) {
    byName.set(name, flagFieldId(name));
    for (const alias of spec.aliases ?? []) byName.set(alias, flagFieldId(name));
  }
  for (const mention of error.matchAll(/--([a-z][a-z-]*)/gi)) {
    const id = byName.get(mention[1]!.toLowerCase());
    if (id && ids.has(id)) return id;
  }
  // Errors quote the value at fault (its first 40 characters).
  const quoted = form.fields.find((field) => {
    const value = fieldText(values, field.id);
    return value !== '' && error.includes(`"${value.slice(0, 40)}`);
  });
  if (quoted) return quoted.id;
  const positionals = positionalsOf(op);
  const named = positionals.find(
    (positional) =>
      error.toLowerCase().includes(positional.label.toLowerCase()) ||
      (ZONE_POSITIONALS[positional.name] !== undefined && /zone id/i.test(error)),
  );
  return named?.id ?? positionals[0]?.id ?? form.fields[0]?.id ?? '';
}

/** The operation's form as a command line: checked, run and answered as if typed. */
export function typedCommandForm(op: AnyOperation): CommandForm {
  return {
    callbackId: commandFormId(op),
    read: (values) => readCommand(op, values),
    fieldOf: (error, values) => fieldOf(op, error, values ?? {}),
    changes: op.changes?.command === true,
  };
}
