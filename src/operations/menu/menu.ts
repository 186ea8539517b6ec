/**
 * `/edge` alone (or `/edge menu`): what this person may run in this channel, grouped by task,
 * each behind a button that opens its form (command-forms.ts). Nothing to learn by heart. The
 * same forms open, their target filled in, from the next-step buttons that lead to a change.
 */
import { isAlwaysAllowed } from '../../policy/operation-ids.js';
import { channelRef, joinMarkup, md, nest, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock, type ReplyButton } from '../../reply/model.js';
import { UserFacingError } from '../engine/errors.js';
import { parseArgs, tokenize } from '../engine/tokenize.js';
import { type AnyOperation, defineOperation, operationKey, type RunContext } from '../engine/types.js';
import { commandFormSpec } from './command-forms.js';

/**
 * The tasks, each with the commands it gathers, by their leading words: `db.tokens` takes every
 * `db tokens …`, and `watch` appears once an operation with that word is registered.
 */
const TASKS: readonly { heading: string; commands: readonly string[] }[] = [
  { heading: 'Incident', commands: ['logs', 'shield.export', 'watch', 'digest', 'digests'] },
  {
    heading: 'Look up',
    commands: ['dns', 'apikeys', 'shield.enums', 'pullzones', 'shield.zones', 'db.query'],
  },
  {
    heading: 'Change',
    commands: ['pullzone.reset-key', 'shield.bot-detection', 'library', 'db.exec', 'db.tokens'],
  },
  { heading: 'Approvals and audit', commands: ['approvals', 'audit'] },
];

/** Where the commands no task names go (whoami, and any new operation until it gets a task). */
const OTHER = 'More';

/**
 * The menu and the help list are how one finds commands; they are not entries in it. Nor is
 * `/edge home`: Slack shows it in the app's Home tab, and `/edge help` lists it for the console.
 */
const NOT_LISTED = new Set(['menu', 'help', 'home']);

const OPEN_ACTION = 'menu:open';
const FORM_ACTION = 'menu:form';

/**
 * A next-step button that leads to a change (a key reset): it opens the form of `command` with
 * the arguments it names filled in, so that nothing is asked for before the clicker has read
 * it, given a reason and submitted. A button that only reads uses commandButton, which runs at once.
 */
export const formButton = (text: string, command: string): ReplyButton => ({
  text,
  actionId: FORM_ACTION,
  value: command,
});

const startsWith = (op: AnyOperation, command: string) => {
  const words = command.split('.');
  return words.every((word, i) => op.words[i] === word);
};

/** The operations this caller may run here, in tasks and in the order each task names them. */
async function menuGroups(
  operations: readonly AnyOperation[],
  allowed: ReadonlySet<string>,
): Promise<{ heading: string; operations: AnyOperation[] }[]> {
  const listed = operations.filter(
    (op) => !NOT_LISTED.has(operationKey(op)) && (op.id === 'whoami' || allowed.has(op.id)),
  );
  const placed = new Set<AnyOperation>();
  const groups = TASKS.map((task) => {
    const members = task.commands.flatMap((command) =>
      listed.filter((op) => !placed.has(op) && startsWith(op, command)),
    );
    for (const op of members) placed.add(op);
    return { heading: task.heading, operations: members };
  });
  groups.push({ heading: OTHER, operations: listed.filter((op) => !placed.has(op)) });
  return groups.filter((group) => group.operations.length > 0);
}

function menuReply(
  groups: { heading: string; operations: AnyOperation[] }[],
  channelId: string,
  held: ReadonlySet<string>,
): Reply {
  const blocks: ReplyBlock[] = [
    {
      type: 'context',
      text: md`What you may run in ${nest(channelRef(channelId))}. Pick one to fill in its form; the answer goes to that channel.`,
    },
  ];
  let index = 0;
  for (const group of groups) {
    blocks.push({ type: 'header', text: group.heading });
    blocks.push({
      type: 'text',
      text: joinMarkup(
        group.operations.map(
          (op) =>
            md`*${op.words.join(' ')}* — ${op.summary}${nest(held.has(op.id) && !op.neverHeld ? trusted(' _(runs once approved)_') : trusted(''))}`,
        ),
      ),
    });
    blocks.push({
      type: 'actions',
      buttons: group.operations.map((op) => ({
        text: op.words.join(' '),
        actionId: `${OPEN_ACTION}#${index++}`,
        value: operationKey(op),
      })),
    });
  }
  if (groups.length === 0) blocks.push({ type: 'text', text: md`There is nothing you may run here.` });
  blocks.push({
    type: 'context',
    text: trusted('`/edge help` lists the same as text; `/edge whoami` says why others are not listed.'),
  });
  return ephemeral('edgeops: what you can run here', blocks);
}

/** The refusal a request for `op` with these arguments would meet for an open one on its target. */
async function openRequestRefusal(
  ctx: RunContext,
  op: AnyOperation,
  given: string[],
): Promise<Reply | undefined> {
  const flags = parseArgs(given, op.flags);
  if (!flags.ok) return undefined;
  const parsed = op.parse(flags.positionals, flags.flags, { now: ctx.services.now() });
  const target = parsed.ok ? op.target?.(parsed.args) : undefined;
  if (target === undefined || isAlwaysAllowed(op.id)) return undefined;
  return ctx.services.approvals.openRequestRefusal(ctx, op.id, target);
}

/** `/edge` alone or `/edge menu`: the commands this person may run here, each with its form. */
export const menu = defineOperation({
  id: 'help',
  words: ['menu'],
  usage: '/edge menu',
  summary: 'pick what to run from a menu, each command with a form (a bare /edge opens it too)',
  example: '/edge',
  flags: {},
  parse: (positionals) =>
    positionals.length > 0 ? { ok: false, error: 'menu takes no arguments' } : { ok: true, args: {} },
  async run(ctx) {
    const groups = await menuGroups(ctx.access.operations(), await ctx.access.allowed());
    const held = await ctx.access.held();
    await ctx.surface.openPanel({ title: 'edgeops', reply: menuReply(groups, ctx.channelId, held) });
    return undefined;
  },
  actions: {
    async open(ctx, key) {
      const groups = await menuGroups(ctx.access.operations(), await ctx.access.allowed());
      const op = groups.flatMap((group) => group.operations).find((listed) => operationKey(listed) === key);
      if (!op)
        throw new UserFacingError(
          `/edge ${key.replace(/\./g, ' ')} is not something you may run here; type /edge for what you may.`,
        );
      await ctx.surface.openModal(commandFormSpec(op, [], ctx.services.now()));
      return undefined;
    },
    /** A formButton: the form of its command, its arguments filled in (positionals only). */
    async form(ctx, command) {
      const tokens = tokenize(command);
      const words = tokens.ok ? tokens.tokens : [];
      const groups = await menuGroups(ctx.access.operations(), await ctx.access.allowed());
      // The operation whose words the command starts with, the longest such (`db tokens create`).
      const op = groups
        .flatMap((group) => group.operations)
        .filter((listed) => listed.words.every((word, i) => words[i]?.toLowerCase() === word))
        .sort((a, b) => b.words.length - a.words.length)[0];
      if (!op)
        throw new UserFacingError(
          `/edge ${command.slice(0, 60)} is not something you may run here; /edge whoami says why, and /edge shows what you may.`,
        );
      const given = words.slice(op.words.length);
      // A request that would be refused for an open one on the same target is refused now, not
      // after a reason has been typed into its form.
      const refusal = await openRequestRefusal(ctx, op, given);
      if (refusal) return refusal;
      await ctx.surface.openModal(commandFormSpec(op, given, ctx.services.now()));
      return undefined;
    },
  },
});
