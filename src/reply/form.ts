/**
 * A form, independent of Slack or the console: the Slack adapter renders it as a modal,
 * the console asks field by field. Submitted values come back as strings or string lists.
 */
export interface ModalOption {
  value: string;
  label: string;
}

/** The platform's two kinds of zone id a form may ask for. */
export type ZoneKind = 'pullzone' | 'shieldzone';

/** What a zone field offers: one kind of zone, or both (a form whose other field decides). */
export type ZonePick = ZoneKind | 'any';

export type ModalField =
  | {
      id: string;
      label: string;
      kind: 'text';
      initial?: string;
      optional?: boolean;
      hint?: string;
      /** Values the hint offers (hintText writes them); each is one the form accepts. */
      examples?: string[];
      multiline?: boolean;
    }
  | {
      id: string;
      label: string;
      kind: 'number';
      initial?: number;
      optional?: boolean;
      hint?: string;
      examples?: string[];
      min?: number;
      max?: number;
    }
  | {
      id: string;
      label: string;
      kind: 'select';
      options: ModalOption[];
      initial?: string;
      optional?: boolean;
      hint?: string;
    }
  | {
      id: string;
      label: string;
      kind: 'multiselect';
      options: ModalOption[];
      initial?: string[];
      optional?: boolean;
      hint?: string;
    }
  | {
      id: string;
      label: string;
      kind: 'checkboxes';
      options: ModalOption[];
      initial?: string[];
      optional?: boolean;
      hint?: string;
    }
  | { id: string; label: string; kind: 'datetime'; initial?: number; optional?: boolean; hint?: string }
  /**
   * A zone id: Slack offers the zones by name as the user types (a type-ahead picker), the
   * console takes the id typed. Submitted as zoneOptionValue says: the id in a string, prefixed
   * with its kind where the field takes both.
   */
  | {
      id: string;
      label: string;
      kind: 'zone';
      zones: ZonePick;
      initial?: { kind: ZoneKind; id: number };
      optional?: boolean;
      hint?: string;
    }
  /**
   * A list whose entries are each made of parts (an export's filters: field, operator, values),
   * submitted one entry a line, its parts joined with `:` (`country:in:DE,FR`). Slack shows one
   * text field, a line an entry, `hint` saying how a line is written; the console asks whether
   * to add one ("Add a filter?") and then its parts, so that a list left empty costs one answer.
   */
  | {
      id: string;
      label: string;
      kind: 'entries';
      /** One entry, as a question names it: `filter`. */
      noun: string;
      parts: ModalField[];
      initial?: string[];
      optional?: boolean;
      hint?: string;
      /** Whole lines, each one the form accepts. */
      examples?: string[];
    };

/** `a`, `a or b`, `a, b or c`. */
const alternatives = (words: readonly string[]) =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

/** A field's hint as people read it: its words, then the values it offers (`e.g. 30m or 2h`). */
export function hintText(field: ModalField): string | undefined {
  const examples = 'examples' in field && field.examples?.length ? field.examples : undefined;
  if (!examples) return field.hint;
  const offered = `e.g. ${alternatives(examples)}.`;
  return field.hint ? `${field.hint.replace(/\.$/, '')}, ${offered}` : `E${offered.slice(1)}`;
}

/** A zone id field: the one way forms ask for a pull zone or Shield zone. */
export function zoneField(field: {
  id: string;
  label: string;
  zones: ZonePick;
  initial?: { kind: ZoneKind; id: number };
  optional?: boolean;
  hint?: string;
}): ModalField {
  return { ...field, kind: 'zone' };
}

/** A one-value field as submitted, trimmed; empty when it was left empty or holds a list. */
export function fieldText(values: ModalValues, id: string): string {
  const value = values[id];
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * A platform id in digits: at most 15 of them, so that every one is a whole number JavaScript
 * holds exactly. Commands, forms, pickers and channel defaults read ids alike.
 */
export const PLATFORM_ID_DIGITS = /^\d{1,15}$/;

/** A zone id as a form submits it: digits, positive, at most 15 of them. */
export function readZoneId(value: string): number | undefined {
  const trimmed = value.trim();
  if (!PLATFORM_ID_DIGITS.test(trimmed)) return undefined;
  const id = Number(trimmed);
  return id > 0 ? id : undefined;
}

/**
 * A chosen zone as a zone field submits it: `308006` where the field takes one kind, and
 * `pullzone:308006` or `shieldzone:5101` where it takes both, so that the kind is not lost.
 */
export function zoneOptionValue(zones: ZonePick, kind: ZoneKind, id: number): string {
  return zones === 'any' ? `${kind}:${id}` : String(id);
}

/** A submitted zone: its id, and its kind when the value names one (`shieldzone:5101`). */
export function readZoneChoice(value: string): { kind?: ZoneKind; id: number } | undefined {
  const found = /^(?:(pullzone|shieldzone):)?(\d+)$/.exec(value.trim());
  if (!found) return undefined;
  const id = readZoneId(found[2]!);
  if (id === undefined) return undefined;
  return found[1] ? { kind: found[1] as ZoneKind, id } : { id };
}

/** How a kind of zone is named to a person. */
export const ZONE_KIND_WORDS: Record<ZoneKind, string> = { pullzone: 'pull zone', shieldzone: 'Shield zone' };

export interface ModalSpec {
  /** Routes the submission back: `${operationKey}:${name}`. */
  callbackId: string;
  title: string;
  submit: string;
  /** Opaque state carried through the form (no secrets): e.g. a zone id or request id. */
  privateMetadata: string;
  intro?: string;
  fields: ModalField[];
}

/** What the user entered: text and select fields as strings, multi-value fields as lists. */
export type ModalValues = Record<string, string | string[] | undefined>;

export type ModalResult =
  /** Errors shown on the fields at fault; the form stays open. */
  { kind: 'errors'; errors: Record<string, string> } | { kind: 'close' };

/** A value typed as an `/edge …` command line: never a field's value, always a slip out of the form. */
export const isCommandLine = (value: string): boolean => /^\s*\/edge(?:\s|$)/i.test(value);
