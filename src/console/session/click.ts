/** `:click N`: a button pressed as the current user, after its confirmation if it asks one. */
import { markupToPlain } from '../../reply/markup.js';
import { safeForTerminal } from '../style.js';
import { createConsoleSurface } from '../surface.js';
import { fail, inForeground, type SessionState, say } from './state.js';

export async function click(state: SessionState, argument: string | undefined): Promise<void> {
  const { terminal, screen, engine } = state;
  const { style, book } = screen;
  if (!argument || !/^\d+$/.test(argument))
    return fail(state, 'Usage: :click N (the number in [N] before a button).');
  const found = book.button(Number(argument));
  if (found.kind === 'unknown')
    return fail(state, `There is no button [${argument}]. :buttons lists the buttons on screen.`);
  if (found.kind === 'retired')
    return fail(
      state,
      `Button [${argument}] was on message #${found.message.id}, which has since been replaced or updated.`,
    );
  const { button, message } = found.shown;
  if (message.visibleTo && message.visibleTo !== state.userId)
    return fail(
      state,
      `Button [${argument}] is on a message only ${message.visibleTo} sees; switch with :as ${message.visibleTo}.`,
    );
  if (button.confirm) {
    // The confirmation text is mrkdwn in Slack; the title is plain.
    say(
      state,
      `${style.bold(safeForTerminal(button.confirm.title))}\n${safeForTerminal(markupToPlain(button.confirm.text))}`,
    );
    const answer =
      (await terminal.read(`${button.confirm.confirm} (y) or ${button.confirm.deny} (n)? `)) ?? '';
    if (!/^(y|yes)$/i.test(answer.trim()) && answer.trim() !== button.confirm.confirm)
      return say(state, style.yellow('Not sent.'));
  }
  const { userId } = state;
  const plan = engine.plan({
    actionId: button.actionId,
    value: button.value,
    userId,
    channelId: message.channelId,
    surface: createConsoleSurface(screen, { userId, channelId: message.channelId, origin: message }),
  });
  await inForeground(state, message.channelId, () => plan.run());
}
