/**
 * A typed command line: planned once (does it change something?), then run as routed: its usage
 * when it parses wrong, a group's help, "did you mean", the channel's default zone, and the
 * operation itself through perform. A command form and an approved command run through
 * performCommand too.
 */
import { closestName } from '../../policy/suggest.js';
import { argsAsJson } from '../approvals/held.js';
import { OperationFailedError } from './errors.js';
import { describeFailure, newCorrelationId } from './failure.js';
import { perform, safeRespond, subjectReader } from './perform.js';
import type { Surface } from './ports.js';
import { isGroup, type LineRoute, notInGroup, parseFor, routeLine, usageReply } from './route.js';
import type { EngineState } from './state.js';
import {
  type AnyOperation,
  type Caller,
  type ChannelDefaults,
  type ChannelDefaultUsed,
  callerOf,
  operationKey,
  type RunContext,
} from './types.js';

export interface CommandInput extends Caller {
  text: string;
  surface: Surface;
}

/** A request routed once: whether it changes something, and running it. */
export interface Plan {
  /**
   * Whether it changes something (see Operation.changes): the adapter records its delivery before
   * it runs, so that a redelivery runs nothing twice.
   */
  changes: boolean;
  run(): Promise<void>;
}

export function planCommand(state: EngineState, input: CommandInput): Plan {
  const line = routeLine(state, input.text);
  const op = line.to === 'raw' || line.to === 'operation' ? line.op : undefined;
  return { changes: op?.changes?.command === true, run: () => runCommand(state, input, line) };
}

/** Runs a command line as routed: its usage, a group's help, or the operation it names. */
async function runCommand(state: EngineState, input: CommandInput, line: LineRoute): Promise<void> {
  const correlationId = newCorrelationId();
  const caller = callerOf(input);
  if (line.to === 'raw') {
    const ctx = state.context(caller, input.surface, correlationId, line.op.id);
    const parsed = line.op.parse(line.rest ? [line.rest] : [], {}, { now: state.services.now() });
    if (!parsed.ok) {
      state.outcome(line.op.id, 'usage');
      await safeRespond(ctx, usageReply(line.op, parsed.error));
      return;
    }
    await performCommand(state, ctx, line.op, parsed.args, { text: input.text });
    return;
  }
  const base = state.context(caller, input.surface, correlationId, 'command');
  if (line.to === 'unsplit') {
    state.outcome('unknown', 'usage');
    await safeRespond(base, usageReply(undefined, line.error));
    return;
  }
  if (line.to === 'nowhere') {
    const { words } = line;
    // A group word alone (`/edge shield`, `/edge db tokens`) shows that group's help.
    const help = state.operations.find((op) => op.id === 'help');
    if (help && isGroup(state, words)) {
      const ctx = state.context(caller, input.surface, correlationId, help.id);
      await perform(state, ctx, help, {
        fields: {},
        work: () => help.run(ctx, { topic: words.map((word) => word.toLowerCase()) }),
      });
      return;
    }
    // Enough of the words to recognise them; an error never repeats a whole paste.
    const echo = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
    const first = echo(words[0] ?? '');
    const suggestion = closestName(first.toLowerCase(), state.firstWords);
    const error = state.firstWords.includes(first.toLowerCase())
      ? notInGroup(state, words, echo)
      : `"${first}" is not a command${suggestion ? ` (did you mean "${suggestion}"?)` : ''}.`;
    state.outcome('unknown', 'usage');
    await safeRespond(base, usageReply(undefined, error));
    return;
  }
  const { op, rest } = line;
  const asked = state.context(caller, input.surface, correlationId, op.id);
  const parsed = parseFor(state, op, rest);
  if (!parsed.ok) {
    state.outcome(op.id, 'usage');
    await safeRespond(asked, usageReply(op, parsed.error));
    return;
  }
  let filled: Awaited<ReturnType<ChannelDefaults['fill']>>;
  try {
    filled = await state.channelDefaults.fill(asked, op, parsed.args);
  } catch (error) {
    const failure = describeFailure(error, asked);
    state.outcome(op.id, failure.outcome);
    await safeRespond(asked, failure.reply);
    return;
  }
  if (!filled.ok) {
    state.outcome(op.id, 'usage');
    await safeRespond(asked, usageReply(op, filled.error));
    return;
  }
  await performCommand(state, filled.ctx, op, filled.args, { text: input.text, channelDefault: filled.used });
}

/**
 * Runs a typed (or form-typed) command: audited with its target and audit-safe parameters,
 * under another operation's name when the command acts on that one's business.
 */
export async function performCommand(
  state: EngineState,
  ctx: RunContext,
  op: AnyOperation,
  args: unknown,
  asked: { text: string; channelDefault?: ChannelDefaultUsed; approvedAs?: string },
): Promise<string> {
  const { commandSubject } = op;
  return perform(state, ctx, op, {
    fields: {
      target: op.target?.(args),
      params: op.auditParams ? op.auditParams(args) : (args as Record<string, unknown>),
    },
    work: () => op.run(ctx, args),
    subjectOf: commandSubject && subjectReader(ctx, () => commandSubject(ctx, args), 'typed'),
    outside: op.neverHeld === true || op.outsideApproval?.command?.(args) === true,
    hold: () => {
      const json = argsAsJson(args);
      if (json === undefined)
        throw new OperationFailedError(`${op.id}: its arguments cannot be recorded`, true);
      return {
        entry: 'command',
        key: operationKey(op),
        text: asked.text,
        args: json,
        ...(asked.channelDefault ? { channelDefault: asked.channelDefault } : {}),
        ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
      };
    },
    approvedAs: asked.approvedAs,
  });
}
