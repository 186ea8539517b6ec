/**
 * A background pass (the watches' poll, the digests' run) woken by a timer and by hand: passes
 * run one at a time. A pass asked for while one runs waits its turn; a timer wake-up while one
 * runs is skipped, so a slow pass never piles up others behind it.
 */
export interface Ticker {
  /** Runs a pass after any under way; resolves when it is done (tests call it after moving the clock). */
  tick(): Promise<void>;
  /** Wakes a pass every `tickMs` of real time; the timer never holds the process open. */
  start(): void;
  /** Stops the timer; `idle()` then resolves once the pass under way ends. */
  stop(): void;
  idle(): Promise<void>;
}

export function createTicker(
  pass: () => Promise<void>,
  options: { tickMs?: number; onError: (error: unknown) => void },
): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = (): Promise<void> => {
    queue = queue.then(pass).catch(options.onError);
    return queue;
  };
  return {
    tick,
    start() {
      timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void tick().finally(() => {
          busy = false;
        });
      }, options.tickMs ?? 5_000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
    idle: () => queue,
  };
}
