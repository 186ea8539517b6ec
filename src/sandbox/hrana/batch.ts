/**
 * `batch`: steps run in order, each under a condition on the steps before it; a step's
 * statement error is its own, and a malformed condition fails the whole pipeline.
 */
import { type HranaError, toHranaError } from '../statement-error.js';
import { executeStmt } from './execute.js';
import { ProtocolError, type RequestContext, type Stream } from './stream.js';
import type { BatchCond, RequestOf, StmtResult, StreamResponse } from './wire.js';

function evaluate(
  cond: BatchCond,
  step: number,
  results: readonly (StmtResult | null)[],
  errors: readonly (HranaError | null)[],
  stream: Stream,
): boolean {
  switch (cond.type) {
    case 'ok':
    case 'error':
      if (cond.step >= step)
        throw new ProtocolError(`Batch condition refers to step ${cond.step} from step ${step}`);
      return cond.type === 'ok' ? results[cond.step] != null : errors[cond.step] != null;
    case 'not':
      return !evaluate(cond.cond, step, results, errors, stream);
    case 'and':
      return cond.conds.every((inner) => evaluate(inner, step, results, errors, stream));
    case 'or':
      return cond.conds.some((inner) => evaluate(inner, step, results, errors, stream));
    case 'is_autocommit':
      return stream.session.autocommit;
  }
}

export async function batch(ctx: RequestContext, request: RequestOf<'batch'>): Promise<StreamResponse> {
  const results: (StmtResult | null)[] = [];
  const errors: (HranaError | null)[] = [];
  for (const [index, step] of request.batch.steps.entries()) {
    const run = step.condition == null || evaluate(step.condition, index, results, errors, ctx.stream);
    if (!run) {
      results.push(null);
      errors.push(null);
      continue;
    }
    try {
      results.push(await executeStmt(ctx, step.stmt));
      errors.push(null);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      results.push(null);
      errors.push(toHranaError(error));
    }
  }
  return {
    type: 'batch',
    result: { step_results: results, step_errors: errors, replication_index: null },
  };
}
