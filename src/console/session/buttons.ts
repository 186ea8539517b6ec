/** `:buttons`: the buttons on screen the current user may press. */
import { safeForTerminal } from '../style.js';
import { type SessionState, say } from './state.js';

export function listButtons(state: SessionState): void {
  const { style, book } = state.screen;
  const live = book
    .live()
    .filter((shown) => !shown.message.visibleTo || shown.message.visibleTo === state.userId);
  if (live.length === 0) {
    say(state, 'No buttons on screen.');
    return;
  }
  say(
    state,
    live
      .map(
        (shown) =>
          `  [${shown.number}] ${safeForTerminal(shown.button.text)}  ${style.dim(`(#${shown.message.id})`)}`,
      )
      .join('\n'),
  );
}
