/**
 * The one clock the bot reads: Unix milliseconds. The composition root passes `systemClock`;
 * tests pass a pinned clock that the bot, the sandbox and the fake Slack all share, so that
 * no answer depends on the hour a test happens to run at.
 */
export type Clock = () => number;

/** The real clock. Only the composition roots (main, the console, the sandbox CLI) use it. */
export const systemClock: Clock = () => Date.now();
