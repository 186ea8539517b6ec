import { z } from 'zod';
import { REJECT_REASON_MAX } from '../../approvals/click.js';
import { APPROVAL_ID_PATTERN } from '../../approvals/machine.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, type InteractionSubject, parseWith, type RunContext } from '../engine/types.js';
import { deleteSecretMessage } from '../shared/secret-delivery.js';

const RequestIdSchema = z.string().regex(APPROVAL_ID_PATTERN);

const ListArgsSchema = z.object({ all: z.boolean(), requestId: z.string().optional() });

/** The request a click or a typed cancel acts on, for its audit row. */
async function requestSubject(ctx: RunContext, reference: string): Promise<InteractionSubject | undefined> {
  const request = RequestIdSchema.safeParse(reference).success
    ? await ctx.services.approvals.peek(reference)
    : null;
  return request
    ? { operation: request.operation, target: request.target, approvalId: request.id }
    : undefined;
}

function requestId(value: string): string {
  const parsed = RequestIdSchema.safeParse(value);
  if (!parsed.success) throw new UserFacingError('That button does not name an approval request.');
  return parsed.data;
}

/**
 * `/edge approvals [--all]`, and the Approve / Reject / Cancel buttons of every card. Clicks
 * are checked by the approval flow against the request's own approvers, not by grants.
 */
export const approvals = defineOperation({
  id: 'approvals.list',
  words: ['approvals'],
  usage: '/edge approvals [REQUEST_ID] [--all]',
  summary:
    'list requests waiting for approval, with what each will do, its age and expiry (with --all, the last 50 of any state); with an id, one request whole with its timeline',
  example: '/edge approvals ap_3f2c9a1b7d4e6f80',
  flags: { all: { kind: 'boolean' } },
  ownAccessForInteractions: true,
  changes: { interactions: ['approve', 'reject', 'cancel', 'confirm', 'forget'] },
  // A click is audited under what it decides: `/edge audit --op pullzone.reset-key` shows it.
  interactionSubject: requestSubject,
  parse: (positionals, flags) => {
    if (positionals.length > 1)
      return { ok: false, error: `unexpected argument "${positionals[1]!.slice(0, 40)}"` };
    const [id] = positionals;
    if (id === undefined) return parseWith(ListArgsSchema, { all: flags.all });
    if (flags.all) return { ok: false, error: 'give either a request id or --all, not both' };
    if (!APPROVAL_ID_PATTERN.test(id))
      return {
        ok: false,
        error: `"${id.slice(0, 40)}" is not a request id (ap_ and 16 hex digits; see /edge approvals)`,
      };
    return parseWith(ListArgsSchema, { all: false, requestId: id });
  },
  target: (args) => args.requestId,
  run: (ctx, args) =>
    args.requestId === undefined
      ? ctx.services.approvals.list(ctx, args.all)
      : ctx.services.approvals.show(ctx, args.requestId),
  actions: {
    approve: (ctx, value) =>
      ctx.services.approvals.click(ctx, { action: 'approve', requestId: requestId(value) }),
    reject: (ctx, value) =>
      ctx.services.approvals.click(ctx, { action: 'reject', requestId: requestId(value) }),
    cancel: (ctx, value) =>
      ctx.services.approvals.click(ctx, { action: 'cancel', requestId: requestId(value) }),
    /** "Saved it, delete this" on a secret's DM (DELETE_SECRET_ACTION). */
    forget: (ctx, value) => deleteSecretMessage(ctx, value),
  },
  submissions: {
    async confirm(ctx, values, privateMetadata) {
      const typed = typeof values.confirmation === 'string' ? values.confirmation.trim() : '';
      const id = requestId(privateMetadata);
      const request = await ctx.services.approvals.peek(id);
      if (request && typed !== request.target)
        return { errors: { confirmation: `Type the target id exactly: ${request.target}` } };
      return {
        target: request?.target,
        params: { approval: id },
        run: () =>
          ctx.services.approvals.click(ctx, { action: 'approve', requestId: id, confirmation: typed }),
      };
    },
    /** The Reject form: the reason is optional; who may reject is checked again as it is submitted. */
    async reject(ctx, values, privateMetadata) {
      const reason = typeof values.reason === 'string' ? values.reason.trim() : '';
      if (reason.length > REJECT_REASON_MAX)
        return {
          errors: {
            reason: `Keep the reason to ${REJECT_REASON_MAX} characters (it has ${reason.length}).`,
          },
        };
      const hidden = hiddenCharacterError(reason, 'The reason');
      if (hidden) return { errors: { reason: hidden } };
      const id = requestId(privateMetadata);
      const request = await ctx.services.approvals.peek(id);
      return {
        target: request?.target,
        params: { approval: id },
        run: () => ctx.services.approvals.click(ctx, { action: 'reject', requestId: id, reason }),
      };
    },
  },
});

/**
 * `/edge approvals cancel ID`: the requester withdraws their own pending request, also when the
 * note with its Cancel button is gone (another session, a cleared screen).
 */
export const approvalsCancel = defineOperation({
  id: 'approvals.list',
  words: ['approvals', 'cancel'],
  usage: '/edge approvals cancel REQUEST_ID',
  summary: 'withdraw a request of yours that is waiting for approval',
  example: '/edge approvals cancel ap_3f2c9a1b7d4e6f80',
  flags: {},
  changes: { command: true },
  // Withdrawing one's own request winds down what waits; a rule on the listing never holds it.
  neverHeld: true,
  parse: (positionals) =>
    positionals.length !== 1
      ? { ok: false, error: 'give the id of one request, e.g. ap_3f2c9a1b7d4e6f80 (see /edge approvals)' }
      : parseWith(
          z.object({
            requestId: z.string().regex(APPROVAL_ID_PATTERN, {
              error: `"${positionals[0]!.slice(0, 40)}" is not a request id (ap_ and 16 hex digits; see /edge approvals)`,
            }),
          }),
          { requestId: positionals[0] },
        ),
  target: (args) => args.requestId,
  // Audited under the request's operation, as its Cancel button is.
  commandSubject: (ctx, args) => requestSubject(ctx, args.requestId),
  run: (ctx, args) => ctx.services.approvals.cancel(ctx, args.requestId),
});
