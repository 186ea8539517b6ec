/**
 * Starts the thread that receives Slack's requests in HTTP mode (ack-thread.ts). It loads Bolt's
 * HTTP receiver first and listens only when ThreadedHttpReceiver.start() sends it the settings,
 * so main.ts starts it before it loads the app's own modules, and the two load side by side.
 * This module loads nothing of Bolt, for that reason.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Under tsx or vitest this module is a `.ts` file and so is the thread's; in dist/ both are `.js`. */
const runningFromSource = import.meta.url.endsWith('.ts');
const threadFile = () =>
  fileURLToPath(new URL(`./ack-thread.${runningFromSource ? 'ts' : 'js'}`, import.meta.url));

/**
 * The thread, from source (tsx, vitest) or compiled. From source its `.ts` entry is required
 * through tsx's CommonJS hook, which a worker thread takes up at once; Node 20's `--import`
 * hooks are not yet in place when a worker's first module loads.
 */
export function startAckThread(): Worker {
  if (!runningFromSource) return new Worker(threadFile());
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs');
  const code = `require(${JSON.stringify(tsx)}); require(${JSON.stringify(threadFile())});`;
  return new Worker(code, { eval: true });
}

/** A thread started ahead of ThreadedHttpReceiver.start(), and what it did before that took it over. */
export interface PreparedAckThread {
  /** The thread, to watch (its exit); a receiver uses it through take(). */
  readonly worker: Worker;
  /** What came before start() listened itself: its messages, and an error or exit. */
  readonly early: { messages: unknown[]; error?: Error; exitCode?: number };
  /**
   * The thread, once: recording stops, and the caller listens to it from then on. A second
   * take throws, so that no two receivers share one thread.
   */
  take(): Worker;
  /** Ends the thread if nothing took it (a receiver stopped before it started). */
  dispose(): Promise<void>;
}

/**
 * Starts the thread now, to be handed to ThreadedHttpReceiver. It does not keep the process
 * alive until it is started: a start-up that fails before then ends as it would without it.
 */
export function prepareAckThread(): PreparedAckThread {
  const worker = startAckThread();
  const early: PreparedAckThread['early'] = { messages: [] };
  const onMessage = (message: unknown) => early.messages.push(message);
  const onError = (error: Error) => {
    early.error ??= error;
  };
  const onExit = (code: number) => {
    early.exitCode = code;
  };
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  // After the listeners: one for messages would hold the process again.
  worker.unref();
  let taken = false;
  return {
    worker,
    early,
    take() {
      if (taken) throw new Error('this receiving thread was taken over already');
      taken = true;
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      return worker;
    },
    async dispose() {
      if (taken) return;
      taken = true;
      await worker.terminate();
    },
  };
}
