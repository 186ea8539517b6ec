/**
 * Buttons and forms: a click routed by its action id, a form by its callback id (or run as the
 * command line a command form stands for), and an approved request's held entry run again as
 * recorded: an approver's click carries it out, as its requester, where they asked.
 */
import { isCommandLine, type ModalValues } from '../../reply/form.js';
import { RUN_COMMAND_ACTION } from '../../reply/model.js';
import type { HeldEntry, HeldReplay } from '../approvals/held.js';
import { type Plan, performCommand, planCommand } from './command.js';
import { describeFailure, newCorrelationId } from './failure.js';
import { perform, safeRespond, subjectReader } from './perform.js';
import type { Surface } from './ports.js';
import { own, resolveCommand, route, usageReply } from './route.js';
import type { EngineState } from './state.js';
import {
  type AnyOperation,
  type Caller,
  type ChannelDefaults,
  type CommandForm,
  callerOf,
  operationKey,
  type RunContext,
  type SubmissionOutcome,
} from './types.js';

export interface ActionInput extends Caller {
  actionId: string;
  value: string;
  surface: Surface;
}

export interface SubmissionInput extends Caller {
  callbackId: string;
  privateMetadata: string;
  values: ModalValues;
  surface: Surface;
}

/** A form's values without the fields left empty, as they are recorded. */
const definedValues = (values: ModalValues): Record<string, string | string[]> =>
  Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined),
  );

export function planAction(state: EngineState, input: ActionInput): Plan {
  // A next-step button runs its command as if the clicker had typed it: same policy and audit.
  if (input.actionId.split('#')[0] === RUN_COMMAND_ACTION)
    return planCommand(state, { ...callerOf(input), text: input.value, surface: input.surface });
  const routed = route(state, input.actionId);
  return {
    changes: routed.op?.changes?.interactions?.includes(routed.name) ?? false,
    run: () => runAction(state, input, routed),
  };
}

/** Runs a button's handler as routed. */
async function runAction(
  state: EngineState,
  input: ActionInput,
  { op, name }: { op: AnyOperation | undefined; name: string },
): Promise<void> {
  const correlationId = newCorrelationId();
  const caller = callerOf(input);
  const handler = own(op?.actions, name);
  const ctx = state.context(caller, input.surface, correlationId, op?.id ?? 'action');
  if (!op || !handler) {
    ctx.logger.warn('unknown action', { actionId: input.actionId });
    await safeRespond(ctx, usageReply(undefined, 'That button is no longer supported.'));
    return;
  }
  const { interactionSubject } = op;
  await perform(state, ctx, op, {
    fields: { params: { action: input.actionId, value: input.value } },
    work: () => handler(ctx, input.value),
    checkAccess: !op.ownAccessForInteractions,
    subjectOf:
      interactionSubject && subjectReader(ctx, () => interactionSubject(ctx, input.value), 'clicked'),
    outside: op.neverHeld === true || op.outsideApproval?.interactions?.includes(name) === true,
    hold: () => ({
      entry: 'button',
      key: operationKey(op),
      actionId: input.actionId,
      value: input.value,
      ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
    }),
  });
}

/** Whether a form's submission changes something: a command form's command, or the operation's form. */
function submissionChanges(state: EngineState, callbackId: string): boolean {
  const commandForm = state.commandForms.get(callbackId);
  if (commandForm) return commandForm.changes;
  const { op, name } = route(state, callbackId);
  return op?.changes?.interactions?.includes(name) ?? false;
}

/** Fields of prose, where a line may well quote a command ("/edge purge zone during the sale"). */
const PROSE_FIELDS: ReadonlySet<string> = new Set(['reason']);

/** Fields holding an `/edge …` line: typed into a form where the message box was meant. */
function commandLineErrors(values: ModalValues): Record<string, string> | undefined {
  const fields = Object.entries(values).filter(
    (entry): entry is [string, string] =>
      !PROSE_FIELDS.has(entry[0]) && typeof entry[1] === 'string' && isCommandLine(entry[1]),
  );
  if (fields.length === 0) return undefined;
  const error =
    'That is an /edge command, not a value for this field: close this form and type the command in the message box.';
  return Object.fromEntries(fields.map(([id]) => [id, error]));
}

/**
 * Validates a form. Errors come back for the fields at fault; otherwise its plan, whose `run`
 * is to be called after the adapter has acknowledged the submission.
 */
export async function submit(
  state: EngineState,
  input: SubmissionInput,
): Promise<{ errors: Record<string, string> } | Plan> {
  const typedCommand = commandLineErrors(input.values);
  if (typedCommand) return { errors: typedCommand };
  const correlationId = newCorrelationId();
  const caller = callerOf(input);
  const changes = submissionChanges(state, input.callbackId);
  const commandForm = state.commandForms.get(input.callbackId);
  if (commandForm) return submitCommandForm(state, input, commandForm, { caller, correlationId, changes });
  const separator = input.callbackId.lastIndexOf(':');
  const op = state.byKey.get(input.callbackId.slice(0, separator));
  const handler = own(op?.submissions, input.callbackId.slice(separator + 1));
  const ctx = state.context(caller, input.surface, correlationId, op?.id ?? 'submission');
  if (!op || !handler) {
    ctx.logger.warn('unknown form', { callbackId: input.callbackId });
    return {
      changes,
      run: () => safeRespond(ctx, usageReply(undefined, 'That form is no longer supported.')),
    };
  }
  let checked: SubmissionOutcome;
  try {
    checked = await handler(ctx, input.values, input.privateMetadata);
  } catch (error) {
    const failure = describeFailure(error, ctx);
    return { changes, run: () => safeRespond(ctx, failure.reply) };
  }
  if ('errors' in checked) return { errors: checked.errors };
  const { interactionSubject } = op;
  return {
    changes,
    run: async () => {
      await perform(state, ctx, op, {
        fields: { target: checked.target, params: checked.params ?? { form: input.callbackId } },
        work: checked.run,
        // A form that stands in for a button (the typed confirmation of an approval) is
        // checked like that button: by the operation itself, not by grants and channels.
        checkAccess: !op.ownAccessForInteractions,
        subjectOf:
          interactionSubject &&
          subjectReader(ctx, () => interactionSubject(ctx, input.privateMetadata), 'submitted'),
        hold: () => ({
          entry: 'form',
          key: operationKey(op),
          callbackId: input.callbackId,
          privateMetadata: input.privateMetadata,
          values: definedValues(input.values),
          ...(ctx.threadTs ? { threadTs: ctx.threadTs } : {}),
        }),
      });
    },
  };
}

/** The form stands for a command line: checked as typed, its complaints on the fields. */
async function submitCommandForm(
  state: EngineState,
  input: SubmissionInput,
  commandForm: CommandForm,
  { caller, correlationId, changes }: { caller: Caller; correlationId: string; changes: boolean },
): Promise<{ errors: Record<string, string> } | Plan> {
  const read = commandForm.read(input.values);
  if ('errors' in read) return read;
  const resolved = resolveCommand(state, read.command);
  if (!resolved.ok)
    return { errors: { [commandForm.fieldOf(resolved.error, input.values)]: resolved.error } };
  const asked = state.context(caller, input.surface, correlationId, resolved.op.id);
  let filled: Awaited<ReturnType<ChannelDefaults['fill']>>;
  try {
    filled = await state.channelDefaults.fill(asked, resolved.op, resolved.args);
  } catch (error) {
    const failure = describeFailure(error, asked);
    return { changes, run: () => safeRespond(asked, failure.reply) };
  }
  if (!filled.ok) return { errors: { [commandForm.fieldOf(filled.error, input.values)]: filled.error } };
  const used = filled.used;
  return {
    changes,
    run: async () => {
      await performCommand(state, filled.ctx, resolved.op, filled.args, {
        text: read.command,
        channelDefault: used,
      });
    },
  };
}

/** Runs an approved request's held entry as recorded, as its requester, where they asked. */
export async function replay(
  state: EngineState,
  entry: HeldEntry,
  { request, surface, correlationId }: Parameters<HeldReplay>[1],
): ReturnType<HeldReplay> {
  const caller: Caller = {
    userId: request.requester,
    channelId: request.channelId,
    ...(entry.threadTs ? { threadTs: entry.threadTs } : {}),
  };
  const op = state.byKey.get(entry.key);
  if (!op) return { ok: false, detail: `/edge ${entry.key.replace(/\./g, ' ')} is no longer a command` };
  const approvedAs = request.id;
  const ctx = { ...state.context(caller, surface, correlationId, op.id), approvedAs };
  let result: string;
  switch (entry.entry) {
    case 'command': {
      const used = entry.channelDefault;
      const asked = used ? { ...ctx, surface: state.channelDefaults.noting(ctx.surface, used) } : ctx;
      result = await performCommand(state, asked, op, entry.args, { text: entry.text, approvedAs });
      break;
    }
    case 'button': {
      const handler = own(op.actions, route(state, entry.actionId).name);
      if (!handler) return { ok: false, detail: 'that button is no longer supported' };
      result = await perform(state, ctx, op, {
        fields: { params: { action: entry.actionId, value: entry.value } },
        work: () => handler(ctx, entry.value),
        approvedAs,
      });
      break;
    }
    case 'form': {
      const handler = own(op.submissions, route(state, entry.callbackId).name);
      if (!handler) return { ok: false, detail: 'that form is no longer supported' };
      result = await performForm(state, ctx, op, entry, handler, approvedAs);
      break;
    }
  }
  if (result === 'succeeded')
    return { ok: true, detail: 'It ran as recorded; its answer went to the requester where they asked.' };
  if (result === 'cancelled')
    return { ok: false, detail: 'It was cancelled before it finished; nothing of it was posted.' };
  return { ok: false, detail: `It ended ${result}; the requester was told why.` };
}

/** A held form, checked again with the values recorded and run as approved. */
async function performForm(
  state: EngineState,
  ctx: RunContext,
  op: AnyOperation,
  entry: Extract<HeldEntry, { entry: 'form' }>,
  handler: NonNullable<AnyOperation['submissions']>[string],
  approvedAs: string,
): Promise<string> {
  let checked: SubmissionOutcome;
  try {
    checked = await handler(ctx, entry.values, entry.privateMetadata);
  } catch (error) {
    const failure = describeFailure(error, ctx);
    await safeRespond(ctx, failure.reply);
    return failure.outcome;
  }
  if ('errors' in checked) {
    const problems = Object.entries(checked.errors).map(([field, error]) => `${field}: ${error}`);
    await safeRespond(
      ctx,
      usageReply(
        undefined,
        `The form as approved is no longer accepted (${problems.join('; ')}); nothing ran. Fill it in again.`,
      ),
    );
    return 'refused';
  }
  return perform(state, ctx, op, {
    fields: { target: checked.target, params: checked.params ?? { form: entry.callbackId } },
    work: checked.run,
    approvedAs,
  });
}
