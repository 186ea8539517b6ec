/**
 * What a change that may need approval tells the gate: what it will do, every parameter as an
 * approver reads it, and how to run it. The card (card.ts) decides how each parameter is shown;
 * the operation only says what it is, in full.
 */

import type { ApprovalRequest } from '../../approvals/machine.js';
import { PlatformError } from '../../platform/errors.js';
import type { Operation } from '../../policy/authorize.js';
import type { JsonValue } from '../../state/canonical-json.js';
import { describeFailure } from '../engine/failure.js';
import type { RunContext } from '../engine/types.js';

/** What an executed change produced: a result for the channel, and secrets for the requester only. */
export interface ExecutionOutcome {
  ok: boolean;
  /** For the card, the channel and the audit row: never a secret. */
  detail: string;
  /** Shown once, privately, to the requester (new keys, new tokens). */
  secrets?: { label: string; value: string; note?: string }[];
}

/** One parameter as an approver reads it. */
export interface ParameterView {
  label: string;
  /** The value in full, as people read it; never a secret, never shortened. */
  value: string;
  /** Preformatted text (a SQL statement): shown in a code block, as typed. */
  code?: boolean;
  /**
   * For a change to an existing setting, what it is now: the card shows before → after and marks
   * what changes. `null` when the current value could not be read.
   */
  before?: string | null;
}

/** A change that may need approval: how to describe it and how to run it. */
export interface GatedOperation {
  id: Operation;
  /** One line: what will happen, e.g. "Reset the token-authentication key of pull zone 42". */
  describe(params: Record<string, JsonValue>): string;
  /**
   * What it did, in the past tense, for the header of a card whose request succeeded, e.g. "Key
   * reset for pull zone 42". Without it the header says "Done:" and `describe`.
   */
  done?(params: Record<string, JsonValue>): string;
  /**
   * Each requester holds their own lock on the target, so one person's open request does not
   * block the team (db.exec: one open write per person and database, PRODUCT §5).
   */
  lockPerRequester?: boolean;
  /** Every parameter of what will run, in full (never secrets). */
  fields(params: Record<string, JsonValue>): ParameterView[];
  /** A warning shown on the card, e.g. that the bot's own token will stop working. */
  warning?(params: Record<string, JsonValue>): string | undefined;
  /**
   * What it runs answers for itself, where it was asked (a held read posts its own answer): no
   * "Approved change done" message follows it in the channel.
   */
  answersItself?: boolean;
  /** Runs the approved change; `request` is the approved request (absent when no rule holds it). */
  execute(
    params: Record<string, JsonValue>,
    ctx: RunContext,
    request?: ApprovalRequest,
  ): Promise<ExecutionOutcome>;
}

/**
 * An execution that failed on the platform: the user's message, with the correlation id when
 * the cause is unknown to them, and a log line carrying that id.
 */
export function failedExecution(ctx: RunContext, error: unknown): ExecutionOutcome {
  if (!(error instanceof PlatformError)) throw error;
  return { ok: false, detail: describeFailure(error, ctx).text };
}
