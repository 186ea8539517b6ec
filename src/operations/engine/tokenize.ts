/**
 * Splits a command line the way PRODUCT §4 promises: like a shell line, where `"…"`, `'…'` and
 * Slack's curly quotes (“…”, ‘…’) quote, and then reads `--flags` against a spec. Nothing here
 * throws: every problem comes back as a short error a person can act on.
 */
import { split } from 'shlex';
import { closestName } from '../../policy/suggest.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';

export type TokenizeResult = { ok: true; tokens: string[] } | { ok: false; error: string };

/**
 * Slack escapes `&`, `<` and `>` in slash-command text (its message formatting rules), so
 * `a &lt; b` is what arrives when someone types `a < b`. One pass, so `&amp;lt;` stays `&lt;`.
 */
export function unescapeSlackText(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_entity, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : '>',
  );
}

// Separators Slack clients insert for spaces (no-break space and friends) split words like a space.
const UNICODE_SPACE = /[\p{Zs}\u2028\u2029]/u;

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** Each kind is closed by its own kind only, so “say "hi"” and "say “hi”" keep the inner quotes. */
interface QuoteKind {
  /** Characters that end the quoted text. */
  closers: string;
  /** Whether a backslash escapes a closer or a backslash inside it, as in a shell's double quotes. */
  backslash: boolean;
  /** The closing character named in the error when the quote is left open. */
  expected: string;
}

const STRAIGHT_DOUBLE: QuoteKind = { closers: '"', backslash: true, expected: '"' };
const CURLY_DOUBLE: QuoteKind = { closers: '“”', backslash: true, expected: '”' };
const STRAIGHT_SINGLE: QuoteKind = { closers: "'", backslash: false, expected: "'" };
const CURLY_SINGLE: QuoteKind = { closers: '‘’', backslash: false, expected: '’' };

const isWordCharacter = (ch: string | undefined) => ch !== undefined && WORD_CHARACTER.test(ch);

/**
 * Rewrites a line into the subset of shell syntax that shlex 3 handles exactly: quoted text as
 * single-quoted segments, everything else with backslash escapes. shlex's own double-quote
 * handling re-applies escape processing to the whole token (`"\\\\""x"` loses a backslash) and
 * it always expands `$'…'`, so neither reaches it. Curly quotes are mapped here, where it is
 * known whether one opens, closes or is an apostrophe.
 */
function toShlexInput(line: string): { ok: true; text: string } | { ok: false; error: string } {
  const chars = Array.from(line);
  const out: string[] = [];
  let quote: QuoteKind | undefined;

  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const previous = chars[i - 1];
    const next = chars[i + 1];

    if (quote) {
      if (
        quote.backslash &&
        ch === '\\' &&
        next !== undefined &&
        (next === '\\' || quote.closers.includes(next))
      ) {
        out.push(next);
        i++;
      } else if (
        quote.closers.includes(ch) &&
        !(ch === '’' && isWordCharacter(previous) && isWordCharacter(next))
      ) {
        // A ’ between letters inside ‘…’ is an apostrophe (‘don’t’), not the closing quote.
        out.push("'");
        quote = undefined;
      } else {
        // Inside a single-quoted segment only the quote itself needs care.
        out.push(ch === "'" ? "'\\''" : ch);
      }
      continue;
    }

    if (ch === '\\') {
      // A trailing backslash is kept as a backslash rather than rejected: chat lines end abruptly.
      out.push(next === undefined ? '\\\\' : `\\${next}`);
      i++;
    } else if (ch === '"') {
      quote = STRAIGHT_DOUBLE;
      out.push("'");
    } else if (ch === '“' || ch === '”') {
      quote = CURLY_DOUBLE;
      out.push("'");
    } else if (ch === "'") {
      quote = STRAIGHT_SINGLE;
      out.push("'");
    } else if (ch === '‘' || (ch === '’' && (previous === undefined || /\s/u.test(previous)))) {
      quote = CURLY_SINGLE;
      out.push("'");
    } else if (ch === '’') {
      // Phones and macOS type ’ for every apostrophe (don’t, users’): inside a word it is text.
      out.push(ch);
    } else if (ch === '$') {
      out.push('\\$');
    } else if (ch > '\u007f' && UNICODE_SPACE.test(ch)) {
      out.push(' ');
    } else {
      out.push(ch);
    }
  }

  if (quote) {
    const apostropheHint =
      quote === STRAIGHT_SINGLE ? ` (for an apostrophe, put the words in double quotes: "don't")` : '';
    return {
      ok: false,
      error: `a quote is not closed: add the closing ${quote.expected} or remove it${apostropheHint}`,
    };
  }
  return { ok: true, text: out.join('') };
}

/**
 * Splits a slash-command line into words. Slack's `&amp;`, `&lt;` and `&gt;` are unescaped
 * first; quotes group words; a backslash outside single quotes makes the next character plain;
 * `$` and `#` are ordinary characters. Control characters (other than tab and line breaks) and
 * invisible formatting characters are refused (reply/hidden-characters.ts): no one types them on
 * purpose, and they could make a card or a log line show something other than what runs.
 */
export function tokenize(line: string): TokenizeResult {
  const text = unescapeSlackText(line);
  const hidden = hiddenCharacterError(text, 'the command');
  if (hidden) return { ok: false, error: hidden };
  const prepared = toShlexInput(text);
  if (!prepared.ok) return prepared;
  try {
    return { ok: true, tokens: split(prepared.text) };
  } catch {
    // Not reachable with the rewritten input; kept so that a library change cannot crash a listener.
    return {
      ok: false,
      error: 'the command could not be split into words: check its quotes and backslashes',
    };
  }
}

/**
 * The first `count` whitespace-separated words of a line and the raw text after them, unescaped
 * for Slack but otherwise untouched. For arguments that are free text with their own quoting,
 * such as SQL after `db query`, where shell-style splitting would eat the quotes.
 */
export function splitCommandHead(line: string, count: number): { words: string[]; rest: string } {
  const text = unescapeSlackText(line);
  const words: string[] = [];
  const word = /\S+/gu;
  let end = 0;
  while (words.length < count) {
    const match = word.exec(text);
    if (!match) break;
    words.push(match[0]);
    end = match.index + match[0].length;
  }
  return { words, rest: text.slice(end).trim() };
}

export type FlagKind = 'string' | 'number' | 'boolean' | 'repeatable';

/** What a flag's value stands for, when it is more than text: forms show a fitting field and hint. */
export type FlagValueKind = 'duration' | 'instant' | 'pull-zone-id' | 'shield-zone-id';

export interface FlagSpec {
  /** `boolean` takes no value; `repeatable` is a string flag that may be given several times. */
  readonly kind: FlagKind;
  /** Other names for the same flag, e.g. `since` for `last`. */
  readonly aliases?: readonly string[];
  /** The values it takes, when they are a closed set: a form offers them as a choice. */
  readonly choices?: readonly string[];
  /** What the value stands for (a time, a zone id); plain text when not said. */
  readonly value?: FlagValueKind;
}

/** Flag names without the leading `--`, e.g. `{ page: { kind: 'number' }, lite: { kind: 'boolean' } }`. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type FlagValue<K extends FlagKind> = K extends 'boolean'
  ? boolean
  : K extends 'repeatable'
    ? string[]
    : K extends 'number'
      ? number | undefined
      : string | undefined;

/** Booleans are `false` when absent, repeatable flags `[]`, the others `undefined`. */
export type FlagValues<S extends FlagSpecs> = { [Name in keyof S]: FlagValue<S[Name]['kind']> };

export type ParsedArgs<S extends FlagSpecs> =
  | { ok: true; flags: FlagValues<S>; positionals: string[] }
  | { ok: false; error: string };

const NUMBER = /^[+-]?(\d+(\.\d+)?|\.\d+)$/;

const MAX_SHOWN = 40;

const shown = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/** Dashes that phones and some keyboards type for `--`: em dash, en dash, and a lone hyphen. */
const DASHED_FLAG = /^(?:—|–|-)(?!-)([A-Za-z][A-Za-z-]*)(=[\s\S]*)?$/u;

/**
 * A word typed as `—name`, `–name` or `-name` where a flag name is expected, read as `--name`
 * when the name is one of the command's flags or close to one (so that a typo gets its
 * suggestion). Anything else is left as typed: `-3h`, `-5`, or a reason that starts with a dash.
 */
function asDoubleDash(token: string, names: readonly string[]): string {
  const match = DASHED_FLAG.exec(token);
  if (!match) return token;
  const name = match[1]!.toLowerCase();
  if (names.includes(name) || closestName(name, names)) return `--${name}${match[2] ?? ''}`;
  return token;
}

/**
 * Reads `--name value` and `--name=value` flags and returns the other words, in order, as
 * positionals. A value may start with a single `-` (`--from -3h`); one that starts with `--`
 * must use the `=` form. `--` on its own ends the flags. Flag names are matched without regard
 * to case, an alias counts as its flag, and `—name`, `–name` or `-name` mean `--name`.
 */
export function parseArgs<const S extends FlagSpecs>(tokens: readonly string[], spec: S): ParsedArgs<S> {
  const byName = new Map<string, string>();
  for (const [name, flag] of Object.entries(spec)) {
    byName.set(name, name);
    for (const alias of flag.aliases ?? []) byName.set(alias, name);
  }
  const names = [...byName.keys()];
  const values: Record<string, string | number | boolean | string[] | undefined> = {};
  const seen = new Set<string>();
  for (const name of Object.keys(spec)) {
    const kind = spec[name]?.kind;
    values[name] = kind === 'boolean' ? false : kind === 'repeatable' ? [] : undefined;
  }

  const positionals: string[] = [];
  let flagsEnded = false;

  for (let i = 0; i < tokens.length; i++) {
    const token = flagsEnded ? tokens[i]! : asDoubleDash(tokens[i]!, names);
    if (flagsEnded || !token.startsWith('--')) {
      positionals.push(token);
      continue;
    }
    if (token === '--') {
      flagsEnded = true;
      continue;
    }

    const equals = token.indexOf('=');
    const typed = (equals === -1 ? token.slice(2) : token.slice(2, equals)).toLowerCase();
    // A Map, not the spec object: `--constructor` or `--__proto__` are unknown flags, not members.
    const name = byName.get(typed);
    const flag = name === undefined ? undefined : spec[name];
    if (name === undefined || !flag) {
      const known = Object.keys(spec).map((known) => `--${known}`);
      const suggestion = closestName(typed, names);
      const list = known.length > 0 ? `known flags: ${known.join(', ')}` : 'this command takes no flags';
      return {
        ok: false,
        error: `unknown flag --${shown(typed)}${suggestion ? ` (did you mean --${suggestion}?)` : ''} (${list})`,
      };
    }

    if (seen.has(name) && flag.kind !== 'repeatable') {
      return { ok: false, error: `--${name} is given more than once` };
    }
    seen.add(name);

    if (flag.kind === 'boolean') {
      if (equals !== -1) return { ok: false, error: `--${name} takes no value` };
      values[name] = true;
      continue;
    }

    let raw: string;
    if (equals !== -1) {
      raw = token.slice(equals + 1);
    } else {
      const next = tokens[i + 1];
      if (next === undefined || asDoubleDash(next, names).startsWith('--')) {
        return {
          ok: false,
          error: `--${name} needs a value (write --${name}=VALUE when the value starts with --)`,
        };
      }
      raw = next;
      i++;
    }

    if (flag.kind === 'number') {
      const number = Number(raw);
      if (!NUMBER.test(raw) || !Number.isFinite(number) || Math.abs(number) > Number.MAX_SAFE_INTEGER) {
        return { ok: false, error: `--${name} needs a number, not "${shown(raw)}"` };
      }
      values[name] = number;
    } else if (flag.kind === 'repeatable') {
      const list = values[name];
      if (Array.isArray(list)) list.push(raw);
      else values[name] = [raw];
    } else {
      values[name] = raw;
    }
  }

  // The record was filled from `spec` kind by kind above, which is exactly what FlagValues<S> describes.
  return { ok: true, flags: values as FlagValues<S>, positionals };
}
