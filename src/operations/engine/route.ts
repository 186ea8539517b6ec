/**
 * What a request leads to: the operation a command line's words select (the longest match, after
 * an alias) and the arguments they parse to, or the operation and handler an action or callback
 * id names; and the usage reply for a line that leads nowhere or parses wrong.
 */
import { closestName } from '../../policy/suggest.js';
import { md, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import type { EngineState } from './state.js';
import { parseArgs, splitCommandHead, tokenize } from './tokenize.js';
import type { AnyOperation, ParseResult } from './types.js';

/** Where a command line leads, read from its words once. */
export type LineRoute =
  /** An operation that takes the rest of the line verbatim (SQL). */
  | { to: 'raw'; op: AnyOperation; rest: string }
  /** A line that cannot be split into words (an unclosed quote), and why. */
  | { to: 'unsplit'; error: string }
  /** The operation the words name (an alias read as its word), and the words after its own. */
  | { to: 'operation'; op: AnyOperation; rest: string[] }
  /** Words that name no operation: a group's leading words, or not a command at all. */
  | { to: 'nowhere'; words: readonly string[] };

/** The operation whose words are the longest prefix of `tokens`. */
export function match(
  state: EngineState,
  tokens: readonly string[],
): { op: AnyOperation; rest: string[] } | undefined {
  let best: AnyOperation | undefined;
  for (const op of state.operations) {
    if (op.words.length > tokens.length) continue;
    if (op.words.every((word, i) => tokens[i]?.toLowerCase() === word)) {
      if (!best || op.words.length > best.words.length) best = op;
    }
  }
  return best ? { op: best, rest: tokens.slice(best.words.length) } : undefined;
}

/** True when `words` are the leading words of some commands, but no command themselves. */
export const isGroup = (state: EngineState, words: readonly string[]) =>
  words.length > 0 &&
  state.operations.some(
    (op) => op.words.length > words.length && words.every((word, i) => op.words[i] === word.toLowerCase()),
  );

/** `shield enum`: the group is known, its next word is not; suggest the closest one. */
export function notInGroup(
  state: EngineState,
  words: readonly string[],
  echo: (text: string) => string,
): string {
  for (let depth = words.length - 1; depth >= 1; depth--) {
    const head = words.slice(0, depth).map((word) => word.toLowerCase());
    const next = state.operations
      .filter((op) => op.words.length > depth && head.every((word, i) => op.words[i] === word))
      .map((op) => op.words[depth]!);
    if (next.length === 0) continue;
    const typed = words[depth]!.toLowerCase();
    const suggestion = closestName(typed, [...new Set(next)]);
    const shownWords = [...head, echo(words[depth]!)].join(' ');
    return suggestion
      ? `"${shownWords}" is not a command (did you mean "${[...head, suggestion].join(' ')}"?).`
      : `"${shownWords}" is not a command; /edge help ${head.join(' ')} lists that group.`;
  }
  return `"${echo(words.join(' '))}" is not a command.`;
}

/** An operation that takes the rest of the line verbatim (SQL), matched on its leading words. */
export function rawOperation(
  state: EngineState,
  text: string,
): { op: AnyOperation; rest: string } | undefined {
  for (const op of state.rawOperations) {
    const head = splitCommandHead(text, op.words.length);
    if (
      head.words.length === op.words.length &&
      head.words.every((word, i) => word.toLowerCase() === op.words[i])
    )
      return { op, rest: head.rest };
  }
  return undefined;
}

/** Reads an operation's flags and arguments from the words after its own. */
export function parseFor(state: EngineState, op: AnyOperation, rest: string[]): ParseResult<unknown> {
  const flags = parseArgs(rest, op.flags);
  if (!flags.ok) return flags;
  return op.parse(flags.positionals, flags.flags, { now: state.services.now() });
}

/** The operation a whole command line runs and its arguments, or why it cannot run. */
export function resolveCommand(
  state: EngineState,
  text: string,
): { ok: true; op: AnyOperation; args: unknown } | { ok: false; error: string } {
  const raw = rawOperation(state, text);
  if (raw) {
    const parsed = raw.op.parse(raw.rest ? [raw.rest] : [], {}, { now: state.services.now() });
    return parsed.ok ? { ok: true, op: raw.op, args: parsed.args } : parsed;
  }
  const tokens = tokenize(text);
  if (!tokens.ok) return tokens;
  const found = match(state, tokens.tokens);
  if (!found) return { ok: false, error: 'that is not a command' };
  const parsed = parseFor(state, found.op, found.rest);
  return parsed.ok ? { ok: true, op: found.op, args: parsed.args } : parsed;
}

/**
 * The record's own member under a key people typed or Slack sent: `constructor` or `__proto__`
 * name nothing, never what every object inherits.
 */
export const own = <T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

/** Where a command line leads, its words split and matched once. */
export function routeLine(state: EngineState, text: string): LineRoute {
  const raw = rawOperation(state, text);
  if (raw) return { to: 'raw', ...raw };
  const tokens = tokenize(text);
  if (!tokens.ok) return { to: 'unsplit', error: tokens.error };
  const typed = tokens.tokens.length === 0 ? state.bareWords : tokens.tokens;
  const alias = own(state.aliases, typed[0]!.toLowerCase());
  const words = alias ? [alias, ...typed.slice(1)] : typed;
  const found = match(state, words);
  return found ? { to: 'operation', ...found } : { to: 'nowhere', words };
}

/** The operation and handler name an action or callback id routes to. */
export function route(state: EngineState, id: string): { op: AnyOperation | undefined; name: string } {
  // `#…` after the name only keeps ids unique within a block (Slack requires it).
  const bare = id.split('#')[0]!;
  const separator = bare.lastIndexOf(':');
  return { op: state.byKey.get(bare.slice(0, separator)), name: bare.slice(separator + 1) };
}

export const usageReply = (op: AnyOperation | undefined, error: string): Reply =>
  ephemeral(`${error}`, [
    { type: 'text', text: md`:warning: ${error}` },
    ...(op
      ? [{ type: 'context' as const, text: md`Usage: \`${op.usage}\` — for example \`${op.example}\`` }]
      : [{ type: 'context' as const, text: trusted('Type `/edge help` to see the commands you can run.') }]),
  ]);
