/** `:as USER_ID` and `:in CHANNEL_ID`: who is typing, and where. */
import { fail, type SessionState, say } from './state.js';

const CHANNEL_ID = /^[CGD][A-Z0-9]{1,30}$/;
const USER_ID = /^[UW][A-Z0-9]{1,30}$/;

export function switchUser(state: SessionState, argument: string | undefined): void {
  const home = state.start.userId;
  if (!argument) {
    say(state, `You are ${state.userId}. :as USER_ID acts as someone else; :as ${home} comes back.`);
    return;
  }
  const next = argument.toUpperCase();
  if (!USER_ID.test(next)) {
    fail(state, `"${argument}" is not a Slack user id (U… or W…, e.g. U0LEAD).`);
    return;
  }
  state.userId = next;
  say(
    state,
    next === home
      ? `You are ${next} again.`
      : `You are now ${next}; commands and clicks are theirs. :as ${home} comes back.`,
  );
}

export function switchChannel(state: SessionState, argument: string | undefined): void {
  const home = state.start.channelId;
  if (!argument) {
    say(
      state,
      `You are typing in #${state.channelId}. :in CHANNEL_ID moves elsewhere; :in ${home} comes back.`,
    );
    return;
  }
  const next = argument.replace(/^#/, '').toUpperCase();
  if (!CHANNEL_ID.test(next)) {
    fail(state, `"${argument}" is not a Slack channel id (C…, e.g. C0INCIDENT).`);
    return;
  }
  state.channelId = next;
  say(state, `Commands now go to #${next}. :in ${home} comes back.`);
}
