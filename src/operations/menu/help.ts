import { isAlwaysAllowed } from '../../policy/operation-ids.js';
import { closestName } from '../../policy/suggest.js';
import { type Markup, md, nest, trusted } from '../../reply/markup.js';
import { ephemeral } from '../../reply/model.js';
import { type AnyOperation, defineOperation } from '../engine/types.js';

/** An operation's line of the list; written once, since an operation never changes. */
const lines = new WeakMap<AnyOperation, Markup>();
function line(op: AnyOperation): Markup {
  let written = lines.get(op);
  if (written === undefined) {
    written = md`\`${op.usage}\` — ${op.summary}`;
    lines.set(op, written);
  }
  return written;
}

/** The help list of these commands, written once for each set of them (a few per workspace). */
const lists = new Map<string, Markup>();
const LISTS_KEPT = 200;
/** A number for each operation object, so that a set of them has a short key. */
const numbers = new WeakMap<AnyOperation, number>();
let numbered = 0;
function numberOf(op: AnyOperation): number {
  let number = numbers.get(op);
  if (number === undefined) {
    number = ++numbered;
    numbers.set(op, number);
  }
  return number;
}
function listOf(visible: readonly AnyOperation[]): Markup {
  const key = visible.map(numberOf).join(',');
  let list = lists.get(key);
  if (list === undefined) {
    list = md`${nest(trusted(visible.map(line).join('\n')))}`;
    if (lists.size >= LISTS_KEPT) lists.clear();
    lists.set(key, list);
  }
  return list;
}

/** Said of a command an approval rule names. */
const HELD_NOTE = ' (runs once approved: an approval rule of the policy names it)';

/** `/edge`, `/edge help` and `/edge help SUB`: only what the caller may run. */
export const help = defineOperation({
  id: 'help',
  words: ['help'],
  usage: '/edge help [SUBCOMMAND]',
  summary: 'list the commands you can run, or explain one',
  example: '/edge help dns',
  flags: {},
  parse: (positionals) => ({ ok: true, args: { topic: positionals.map((word) => word.toLowerCase()) } }),
  async run(ctx, { topic }) {
    const [allowed, held] = await Promise.all([ctx.access.allowed(), ctx.access.held()]);
    const visible = ctx.access.operations().filter((op) => isAlwaysAllowed(op.id) || allowed.has(op.id));
    if (topic.length > 0) {
      // `/edge help shield` (a group), `/edge help reset-key` (a word of a command) both work.
      const leading = visible.filter((op) => topic.every((word, i) => op.words[i] === word));
      const matching =
        leading.length > 0 ? leading : visible.filter((op) => topic.every((word) => op.words.includes(word)));
      if (matching.length === 0) {
        const words = [...new Set(visible.flatMap((op) => op.words))];
        const suggestion = topic.length === 1 ? closestName(topic[0]!, words) : undefined;
        const text = `There is no command "${topic.join(' ').slice(0, 60)}" that you can run here${suggestion ? ` (did you mean /edge help ${suggestion}?)` : ''}. Type /edge help for the list.`;
        return ephemeral(text, [{ type: 'text', text: md`${text}` }]);
      }
      return ephemeral(`Help for ${topic.join(' ')}`, [
        ...matching.flatMap((op) => [
          {
            type: 'text' as const,
            text: md`*${op.usage}*\n${op.summary}${held.has(op.id) && !op.neverHeld ? HELD_NOTE : ''}`,
          },
          { type: 'context' as const, text: md`Example: \`${op.example}\`` },
        ]),
      ]);
    }
    const heldHere = visible.filter((op) => held.has(op.id) && !op.neverHeld);
    return ephemeral('edgeops commands you can run', [
      { type: 'header', text: 'edgeops: what you can run here' },
      { type: 'text', text: listOf(visible) },
      ...(heldHere.length > 0
        ? [
            {
              type: 'context' as const,
              text: md`Run once approved (an approval rule of the policy names them): ${heldHere.map((op) => op.words.join(' ')).join(', ')}.`,
            },
          ]
        : []),
      {
        type: 'context',
        text: trusted(
          '`/edge help SUBCOMMAND` explains one; `/edge whoami` says why the others are not listed.',
        ),
      },
    ]);
  },
});

/** `/edge whoami`: the caller's roles and, for each operation, whether they may run it and why. */
export const whoami = defineOperation({
  id: 'whoami',
  words: ['whoami'],
  usage: '/edge whoami',
  summary: 'your roles, and what you may run here and why',
  example: '/edge whoami',
  flags: {},
  parse: (positionals) =>
    positionals.length > 0 ? { ok: false, error: 'whoami takes no arguments' } : { ok: true, args: {} },
  run: (ctx) => ctx.access.explain(),
});
