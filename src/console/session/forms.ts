/**
 * Forms opened on the way (by a command or a button), asked field by field and submitted; errors
 * the engine finds send the fields they name round again. A form left for a command typed at one
 * of its fields runs that command, and the forms it opens are filled in turn.
 */
import { askForm } from '../form.js';
import { safeForTerminal } from '../style.js';
import { createConsoleSurface, type PendingForm } from '../surface.js';
import { fail, inForeground, type SessionState, say } from './state.js';

/** A console command typed at a form's field; true when it leaves the console. */
export type CommandInForm = (line: string) => Promise<boolean>;

/** An `/edge …` line typed at a field, run once its form is left, as at the prompt. */
async function runTyped(state: SessionState, line: string): Promise<void> {
  const { userId, channelId } = state;
  const plan = state.engine.plan({
    text: line.replace(/^\s*\/edge\s*/i, ''),
    userId,
    channelId,
    surface: createConsoleSurface(state.screen, { userId, channelId }),
  });
  await inForeground(state, channelId, () => plan.run());
}

/** Fills one form; returns the command line the person left it for, if they did. */
async function fillForm(
  state: SessionState,
  form: PendingForm,
  command: CommandInForm,
): Promise<string | undefined> {
  const { terminal, screen, engine } = state;
  const { style } = screen;
  const { modal } = form;
  const fieldIds = new Set(modal.fields.map((field) => field.id));
  let values: Record<string, string | string[] | undefined> | undefined;
  let only: Set<string> | undefined;
  let errors: Record<string, string> | undefined;
  state.inForm = true;
  try {
    for (;;) {
      const answer = await askForm(modal, terminal, {
        style,
        now: state.now,
        values,
        only,
        errors,
        command,
      });
      if (answer.kind === 'ended') {
        say(
          state,
          style.yellow(
            state.leaving
              ? 'Leaving: the form was not submitted.'
              : 'End of input: the form was not submitted.',
          ),
        );
        return undefined;
      }
      if (answer.kind === 'cancelled') {
        say(state, style.yellow('Form cancelled; nothing was submitted.'));
        return undefined;
      }
      if (answer.kind === 'command') {
        say(state, style.yellow('Form left; nothing was submitted.'));
        return answer.line;
      }
      const submitted = answer.values;
      values = submitted;
      const surface = createConsoleSurface(screen, { userId: form.userId, channelId: form.channelId });
      const result = await inForeground(state, form.channelId, () =>
        engine.submit({
          callbackId: modal.callbackId,
          privateMetadata: modal.privateMetadata,
          values: submitted,
          userId: form.userId,
          channelId: form.channelId,
          surface,
        }),
      );
      if ('run' in result) {
        await inForeground(state, form.channelId, () => result.run());
        return undefined;
      }
      errors = result.errors;
      const atFields = Object.keys(errors).filter((id) => fieldIds.has(id));
      for (const [id, message] of Object.entries(errors))
        if (!fieldIds.has(id)) fail(state, safeForTerminal(`${modal.title}: ${message}`));
      // Errors that name no field send the whole form round again.
      only =
        atFields.length > 0 && atFields.length === Object.keys(errors).length ? new Set(atFields) : undefined;
      say(state, style.yellow('Please correct the form:'));
    }
  } finally {
    state.inForm = false;
  }
}

/** Fills the forms opened so far, one after the other, until none is left or the console is left. */
export async function fillForms(state: SessionState, command: CommandInForm): Promise<void> {
  const { forms } = state.screen;
  for (let form = forms.shift(); form && !state.leaving; form = forms.shift()) {
    const typed = await fillForm(state, form, command);
    if (typed !== undefined) await runTyped(state, typed);
  }
}
