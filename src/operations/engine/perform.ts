/**
 * Runs what a request asks with access check, audit and error handling around it: the started
 * row before anything runs, an entry an approval rule holds asked for instead of run, and any
 * failure turned into a reply that says what to do (with a correlation id when unknown).
 */
import { isAlwaysAllowed, type OperationId } from '../../policy/operation-ids.js';
import { markupToPlain } from '../../reply/markup.js';
import type { Reply } from '../../reply/model.js';
import { StateUnavailableError } from '../../state/errors.js';
import { type HeldEntry, heldParams } from '../approvals/held.js';
import { denialReply, denialSentence } from './access-text.js';
import { OperationFailedError } from './errors.js';
import { describeFailure, newCorrelationId } from './failure.js';
import type { Surface } from './ports.js';
import type { EngineState } from './state.js';
import {
  type AnyOperation,
  type Caller,
  type InteractionSubject,
  operationKey,
  type RunContext,
} from './types.js';

/** What a request acts on, and the word its audit row ends with (clicked, submitted, typed). */
type Subject = InteractionSubject & { done: string };

export interface Performance {
  fields: { target?: string; params?: Record<string, unknown> };
  work: () => Promise<Reply | undefined>;
  /** False where the operation checks its own buttons and forms (approval cards). */
  checkAccess?: boolean;
  subjectOf?: () => Promise<Subject | undefined>;
  /** The entry as it is recorded for approval when a rule holds the operation. */
  hold?: () => HeldEntry;
  /** An entry approval rules do not hold (Operation.outsideApproval): it only opens a form, or stops. */
  outside?: boolean;
  /** The approved request this run carries out: the rule that held it is met. */
  approvedAs?: string;
}

async function audit(
  state: EngineState,
  ctx: RunContext,
  operation: string,
  outcome: string,
  fields: { target?: string; params?: Record<string, unknown>; detail?: string; approvalId?: string },
): Promise<void> {
  try {
    await state.services.audit.append({
      userId: ctx.userId,
      channelId: ctx.channelId,
      operation,
      target: fields.target ?? null,
      params: fields.params ?? {},
      outcome,
      approvalId: fields.approvalId ?? null,
      correlationId: ctx.correlationId,
      detail: fields.detail ?? null,
    });
  } catch (error) {
    ctx.logger.error('audit row could not be written', { error });
    throw new StateUnavailableError('the audit log could not be written');
  }
}

export async function safeRespond(ctx: RunContext, reply: Reply): Promise<void> {
  try {
    await ctx.surface.respond(reply);
  } catch (error) {
    ctx.logger.error('reply could not be delivered', { error });
  }
}

/**
 * Runs `work` for an operation with access check, audit and error handling around it. An
 * interaction on another operation's business (`subject`) is audited under that operation, and
 * ends as `done` (clicked, submitted) rather than `succeeded`, which is that operation's own word.
 * An operation an approval rule names runs only once approved: its entry is recorded and asked
 * for instead (fail closed: nothing here runs what a decision says needs approval).
 */
export async function perform(
  state: EngineState,
  ctx: RunContext,
  op: AnyOperation,
  run: Performance,
): Promise<string> {
  const { fields, work, checkAccess = true, subjectOf } = run;
  // What anyone may always run changes nothing and is not audited.
  const audited = !isAlwaysAllowed(op.id);
  // The subject is read once access is granted: a denial stays under the operation itself.
  let subject: Subject | undefined;
  let auditOperation: string = op.id;
  let auditFields: typeof fields & { approvalId?: string } = run.approvedAs
    ? { ...fields, approvalId: run.approvedAs }
    : fields;
  const fail = async (error: unknown) => {
    const failure = describeFailure(error, ctx);
    state.outcome(op.id, failure.outcome);
    await safeRespond(ctx, failure.reply);
    if (audited && !(error instanceof StateUnavailableError))
      await audit(state, ctx, auditOperation, failure.outcome, {
        ...auditFields,
        detail: failure.detail,
      }).catch(() => undefined);
    return failure.outcome;
  };
  let held = false;
  try {
    const decision = checkAccess ? await state.authorizer.decide(op.id, ctx) : undefined;
    if (decision && !decision.allowed) {
      state.outcome(op.id, 'denied');
      await audit(state, ctx, auditOperation, 'denied', {
        ...auditFields,
        detail: markupToPlain(denialSentence(decision)),
      });
      await safeRespond(ctx, denialReply(decision));
      return 'denied';
    }
    held = decision?.approval !== undefined && !run.approvedAs && !run.outside && !state.selfGated.has(op.id);
    // Fail closed: what cannot be recorded for approval is refused, never run.
    if (held && !run.hold)
      throw new OperationFailedError(
        `An approval rule holds ${op.id}, and this way of asking for it cannot be recorded for approval, so nothing ran. Type the command instead.`,
        true,
      );
    subject = held ? undefined : await subjectOf?.();
    if (subject) {
      auditOperation = subject.operation;
      auditFields = { ...fields, target: subject.target ?? fields.target, approvalId: subject.approvalId };
    }
    // Written before anything runs: without a working state store, nothing runs at all.
    if (audited) await audit(state, ctx, auditOperation, 'started', auditFields);
  } catch (error) {
    return fail(error);
  }
  if (held) return holdForApproval(state, ctx, op, fields, run.hold!);
  let refused: string | undefined;
  let requested: string | undefined;
  let cancelled = false;
  try {
    const reply = await work();
    if (reply) await ctx.surface.respond(reply);
    if (reply?.refused) refused = reply.text;
    requested = reply?.requested;
    cancelled = reply?.cancelled === true;
  } catch (error) {
    return fail(error);
  }
  if (refused !== undefined) {
    state.outcome(op.id, 'refused');
    if (audited)
      await audit(state, ctx, auditOperation, 'refused', { ...auditFields, detail: refused }).catch(
        () => undefined,
      );
    return 'refused';
  }
  if (requested !== undefined) {
    // Filed for approval, not run: the request's own rows say what becomes of it.
    state.outcome(op.id, 'requested');
    if (audited)
      await audit(state, ctx, auditOperation, 'requested', { ...auditFields, approvalId: requested }).catch(
        () => undefined,
      );
    return 'requested';
  }
  if (cancelled) {
    state.outcome(op.id, 'cancelled');
    if (audited) await audit(state, ctx, auditOperation, 'cancelled', auditFields).catch(() => undefined);
    return 'cancelled';
  }
  state.outcome(op.id, 'succeeded');
  if (audited)
    await audit(state, ctx, auditOperation, subject?.done ?? 'succeeded', auditFields).catch(() => undefined);
  return 'succeeded';
}

/**
 * Asks for approval of an entry instead of running it: the request records the entry whole, the
 * card shows it, and an approver's click runs it (replay in interaction.ts) as the requester.
 */
export async function holdForApproval(
  state: EngineState,
  ctx: RunContext,
  op: AnyOperation,
  fields: Performance['fields'],
  hold: () => HeldEntry,
): Promise<string> {
  try {
    const entry = hold();
    const reply = await state.services.approvals.submit(ctx, {
      operation: op.id as OperationId,
      target: fields.target ?? operationKey(op),
      params: heldParams(entry),
      reason: '',
    });
    if (reply) await ctx.surface.respond(reply);
    const result = reply?.refused ? 'refused' : 'held';
    state.outcome(op.id, result);
    await audit(state, ctx, op.id, result, {
      ...fields,
      detail: reply?.refused ? reply.text : 'an approval rule holds it until approved',
    }).catch(() => undefined);
    return result;
  } catch (error) {
    const failure = describeFailure(error, ctx);
    state.outcome(op.id, failure.outcome);
    await safeRespond(ctx, failure.reply);
    if (!(error instanceof StateUnavailableError))
      await audit(state, ctx, op.id, failure.outcome, { ...fields, detail: failure.detail }).catch(
        () => undefined,
      );
    return failure.outcome;
  }
}

/**
 * Reads what a click, form or typed command acts on (Operation.interactionSubject,
 * commandSubject), ending as `done`; a failed read leaves it audited under the operation itself.
 */
export function subjectReader(
  ctx: RunContext,
  read: () => Promise<InteractionSubject | undefined>,
  done: string,
): () => Promise<Subject | undefined> {
  return async () => {
    try {
      const subject = await read();
      return subject && { ...subject, done };
    } catch (error) {
      ctx.logger.warn('what the request acts on could not be read', { error });
      return undefined;
    }
  };
}

/** Tells the user that nothing was run because the state database could not record the request. */
export async function refuseUnrecorded(
  state: EngineState,
  input: Caller & { surface: Surface },
): Promise<void> {
  const ctx = state.context(input, input.surface, newCorrelationId(), 'delivery');
  ctx.logger.error('the state database could not record a delivery; nothing was run');
  await safeRespond(ctx, describeFailure(new StateUnavailableError('delivery not recorded'), ctx).reply);
}
