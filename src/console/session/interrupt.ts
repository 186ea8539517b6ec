/**
 * Ctrl-C as in a shell. While a command runs, its long jobs are cancelled as their Cancel button
 * would cancel them; otherwise a half-typed line is cleared (the terminal has done it), a form is
 * left as `:cancel` leaves it, and on an empty line the first Ctrl-C says how to leave and a
 * second, right after it, leaves.
 */
import type { RunningJob } from '../../operations/engine/jobs.js';
import { createConsoleSurface } from '../surface.js';
import type { Interrupt } from '../terminal.js';
import { type SessionState, say, track } from './state.js';

export const LEAVE_HINT = '(To leave, type :quit, press Ctrl-D, or press Ctrl-C again.)';
export const NO_CANCEL_HINT =
  '(Nothing here to cancel: this command ends on its own. Ctrl-C again leaves once it has.)';

/** The long jobs the work at the prompt started that are not cancelled yet. */
function foregroundJobs(state: SessionState): RunningJob[] {
  const { foreground } = state;
  if (!foreground) return [];
  return state.jobs
    .running()
    .filter((job) => !foreground.jobsBefore.has(job.id) && !job.controller.signal.aborted);
}

/** Presses each job's Cancel as the one who started it: the same policy, audit and answers as a click. */
function cancelJobs(state: SessionState, jobs: RunningJob[], channelId: string): void {
  const { engine, screen } = state;
  for (const job of jobs) {
    const plan = engine.plan({
      actionId: job.cancelActionId,
      value: job.id,
      userId: job.requester,
      channelId,
      surface: createConsoleSurface(screen, { userId: job.requester, channelId }),
    });
    void track(state, plan.run()).catch((error: unknown) =>
      screen.logger.error('cancelling a job with Ctrl-C failed', { error }),
    );
  }
}

export function interrupt(state: SessionState, { typed, again }: Interrupt): void {
  const leave = again && state.hinted;
  state.hinted = false;
  const jobs = foregroundJobs(state);
  if (state.foreground && jobs.length > 0) {
    cancelJobs(state, jobs, state.foreground.channelId);
    return;
  }
  // The terminal has cleared a half-typed line: that is all.
  if (typed !== '') return;
  // A form that asks; once submitted, its run is foreground work like a command's, and a
  // `:cancel` typed for it would wait in the input and cancel the next form asked, or none.
  if (state.inForm && !state.foreground) {
    state.terminal.inject(':cancel');
    return;
  }
  if (leave) {
    // Closing the input ends the session once the work under way has ended, as Ctrl-D does.
    state.terminal.close();
    return;
  }
  state.hinted = true;
  say(state, state.screen.style.dim(state.foreground ? NO_CANCEL_HINT : LEAVE_HINT));
}
