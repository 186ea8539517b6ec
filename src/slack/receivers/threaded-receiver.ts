/**
 * HTTP mode's receiver: Bolt's HTTPReceiver runs in a worker thread of its own (ack-thread.ts),
 * and the app, its listeners and all their work stay on the main thread. `/edge` and clicks are
 * acknowledged over there as soon as they are verified, so an ack never waits for an earlier command's
 * answer or for a garbage collection of the main thread's heap (bench/ack-open.ts measures the
 * ack's p99 against bare Bolt's). Every other event is acknowledged by its listener, as before,
 * over a message to that thread.
 */
import type { Worker } from 'node:worker_threads';
import type { App, Receiver, Logger as SlackLogger } from '@slack/bolt';
import { z } from 'zod';
import { acknowledgedAlready } from './ack-on-arrival.js';
import {
  type AckThreadData,
  AckThreadDataSchema,
  BOLT_FUNCTION_ACK_MS,
  type FromAckThread,
  FromAckThreadSchema,
  type ToAckThread,
} from './ack-thread-messages.js';
import { type PreparedAckThread, startAckThread } from './ack-thread-start.js';

/** A route answered on the main thread: the health, readiness and metrics endpoints. */
export interface AnsweredRoute {
  path: string;
  methods: string[];
  answer(): Promise<{ status: number; body: string; contentType: string }>;
}

export interface ThreadedReceiverOptions {
  signingSecret: string;
  endpoint: string;
  routes: AnsweredRoute[];
  logger: SlackLogger;
  /** Slash commands acknowledged on arrival, with no body: their listeners ack with none. */
  commands: readonly string[];
  /** Told how long each early ack took, in seconds. */
  observe: (seconds: number) => void;
  unhandledRequestTimeoutMillis: number;
  /**
   * How many commands acknowledged on arrival may wait for the main thread; past that, a
   * command is answered at once that it was not run (DEFAULT_MAX_WAITING).
   */
  maxWaiting?: number;
  /**
   * How long after its headers a request whose body is still arriving is dropped unread
   * (ack-thread.ts). By default Slack's 3 s: past it, Slack has given up on the request.
   */
  bodyDeadlineMs?: number;
  /**
   * How long after its headers a request still unanswered is answered 500 (ack-thread.ts). By
   * default 1 s past the longer of Bolt's two unhandled-request timeouts.
   */
  lastAnswerMs?: number;
  /** How often per-request refusals and drops are logged, as one count (10 s by default). */
  reportEveryMs?: number;
  /** Told when the thread ends after it listened, other than by stop(): nothing is received any more. */
  onEnded: (error: Error) => void;
  /** A thread started ahead (main.ts), which the first start() takes over instead of starting one. */
  thread?: PreparedAckThread;
}

/**
 * Commands in progress count, slow platform calls included: far above what a workspace sends
 * at once, and a bound on what waits in memory (a command's body is a few kilobytes).
 */
export const DEFAULT_MAX_WAITING = 2_000;

/** How long Slack waits for any answer; a body not all here by then cannot be answered in time. */
const SLACK_ACK_WINDOW_MS = 3_000;

/** How long stop() waits for events the app is still running (shutdown grace periods are ~30 s). */
const DRAIN_MS = 20_000;

/** How long a stopping thread has to close its server before it is ended. */
const STOP_GRACE_MS = 5_000;

/** What Bolt's error handler needs of an error the app threw: its message and Bolt's code. */
function describeError(error: unknown): { message: string; code?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? { message, code } : { message };
}

export class ThreadedHttpReceiver implements Receiver {
  readonly #options: ThreadedReceiverOptions;
  #app: App | undefined;
  #worker: Worker | undefined;
  #prepared: PreparedAckThread | undefined;

  constructor(options: ThreadedReceiverOptions) {
    this.#options = options;
    this.#prepared = options.thread;
  }

  init(app: App): void {
    this.#app = app;
  }

  /** Starts the thread; resolves with the port it listens on once it does. */
  async start(port: number): Promise<{ port: number }> {
    if (this.#worker) throw new Error('the receiver is started already');
    const data: AckThreadData = {
      signingSecret: this.#options.signingSecret,
      port,
      endpoint: this.#options.endpoint,
      commands: [...this.#options.commands],
      routes: this.#options.routes.map(({ path, methods }) => ({ path, methods })),
      unhandledRequestTimeoutMillis: this.#options.unhandledRequestTimeoutMillis,
      maxWaiting: this.#options.maxWaiting ?? DEFAULT_MAX_WAITING,
      bodyDeadlineMs: this.#options.bodyDeadlineMs ?? SLACK_ACK_WINDOW_MS,
      lastAnswerMs:
        this.#options.lastAnswerMs ??
        Math.max(this.#options.unhandledRequestTimeoutMillis, BOLT_FUNCTION_ACK_MS) + 1_000,
      reportEveryMs: this.#options.reportEveryMs ?? 10_000,
    };
    // Settings the thread could not read would leave it waiting, and this start with it.
    const settings = AckThreadDataSchema.safeParse(data);
    if (!settings.success) {
      await this.#prepared?.dispose();
      this.#prepared = undefined;
      throw new Error(`the HTTP thread's settings are not valid: ${z.prettifyError(settings.error)}`);
    }
    const prepared = this.#prepared;
    this.#prepared = undefined;
    // Taken before any listener is added: the recording ones go in the same turn of the event loop.
    const worker = prepared?.take() ?? startAckThread();
    worker.ref();
    this.#worker = worker;
    // Named, so that only these are taken off once it listens: a stop() racing this start waits
    // for the thread's exit too.
    let failed: (error: Error) => void = () => undefined;
    let ended: (code: number) => void = () => undefined;
    const listening = new Promise<number>((resolve, reject) => {
      failed = reject;
      ended = (code: number) => reject(new Error(`the HTTP thread ended with ${code} before it listened`));
      const hear = (raw: unknown) => {
        const parsed = FromAckThreadSchema.safeParse(raw);
        if (!parsed.success) return this.#refuse(raw);
        if (parsed.data.type === 'listening') resolve(parsed.data.port);
        else if (parsed.data.type === 'failed') reject(new Error(parsed.data.message));
        else this.#receive(parsed.data);
      };
      worker.once('error', failed);
      worker.once('exit', ended);
      worker.on('message', hear);
      if (!prepared) return;
      // What the thread did before it was taken over, in order.
      for (const message of prepared.early.messages) hear(message);
      if (prepared.early.error) reject(prepared.early.error);
      else if (prepared.early.exitCode !== undefined) ended(prepared.early.exitCode);
    });
    try {
      this.#send({ type: 'listen', settings: data }, worker);
      const bound = await listening;
      worker.off('error', failed);
      worker.off('exit', ended);
      // stop() was called while this started: it is ending the thread.
      if (this.#worker !== worker) throw new Error('the receiver was stopped while it started');
      let failure: Error | undefined;
      worker.on('error', (error) => {
        failure = error;
      });
      worker.once('exit', (code) => {
        if (this.#worker !== worker) return;
        this.#worker = undefined;
        this.#options.onEnded(
          new Error(
            `the thread receiving Slack's requests ended (${failure?.message ?? `exit code ${code}`})`,
          ),
        );
      });
      return { port: bound };
    } catch (error) {
      // Unless a stop() has it in hand already.
      if (this.#worker === worker) {
        this.#worker = undefined;
        await worker.terminate();
      }
      throw error;
    }
  }

  async stop(): Promise<void> {
    // A thread started ahead for a receiver that never started is ended too.
    const prepared = this.#prepared;
    this.#prepared = undefined;
    await prepared?.dispose();
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    this.#stopping = worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    this.#send({ type: 'stop' }, worker);
    const grace = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    await exited;
    clearTimeout(grace);
    if (this.#stopping === worker) this.#stopping = undefined;
    // Slack was told these were received: they run to their end before the app stops, within a bound.
    const drained = Promise.allSettled([...this.#inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
    });
    await Promise.race([drained, bound]);
    clearTimeout(timer);
    if (this.#inFlight.size > 0)
      this.#options.logger.warn(`${this.#inFlight.size} event(s) still running when the app stopped`);
  }

  /** Events handed to the app and not finished: stop() lets them end. */
  readonly #inFlight = new Set<Promise<void>>();

  /** The thread being stopped: it still answers the requests it holds until it exits. */
  #stopping: Worker | undefined;

  #send(message: ToAckThread, worker = this.#worker ?? this.#stopping): void {
    worker?.postMessage(message);
  }

  /** A message that does not parse: an event among them is ended, so nothing waits for it for good. */
  #refuse(raw: unknown): void {
    const id = (raw as { type?: unknown; id?: unknown } | null)?.id;
    const event = (raw as { type?: unknown } | null)?.type === 'event';
    this.#options.logger.error(
      `the HTTP thread sent a message that does not parse${event ? ' (an event)' : ''}`,
    );
    if (event && typeof id === 'number')
      this.#send({ type: 'done', id, error: { message: 'the event could not be read' } });
  }

  #receive(message: Exclude<FromAckThread, { type: 'listening' | 'failed' }>): void {
    switch (message.type) {
      case 'log':
        this.#options.logger[message.level](message.text);
        return;
      case 'route':
        void this.#answerRoute(message.id, message.path);
        return;
      case 'event': {
        const dispatched = this.#dispatch(message);
        this.#inFlight.add(dispatched);
        void dispatched.finally(() => this.#inFlight.delete(dispatched));
        return;
      }
    }
  }

  async #answerRoute(id: number, path: string): Promise<void> {
    const route = this.#options.routes.find((candidate) => candidate.path === path);
    try {
      if (!route) throw new Error(`no route ${path}`);
      this.#send({ type: 'route', id, ...(await route.answer()) });
    } catch (error) {
      this.#options.logger.error(`the ${path} route failed: ${describeError(error).message}`);
      this.#send({ type: 'route', id, status: 500, body: '', contentType: 'text/plain; charset=utf-8' });
    }
  }

  async #dispatch(message: Extract<FromAckThread, { type: 'event' }>): Promise<void> {
    const { id, body, retryNum, retryReason, acknowledged } = message;
    const app = this.#app;
    if (!app) {
      this.#send({ type: 'done', id, error: { message: 'the receiver has no app (init was not called)' } });
      return;
    }
    if (acknowledged) {
      this.#options.observe(acknowledged.seconds);
      try {
        await app.processEvent({
          body,
          ack: acknowledgedAlready(acknowledged.command),
          retryNum,
          retryReason,
          customProperties: {},
        });
      } catch (error) {
        this.#options.logger.error(
          'an event acknowledged on arrival failed in the app',
          describeError(error),
        );
      } finally {
        // Off the thread's count of commands waiting for this one.
        this.#send({ type: 'done', id });
      }
      return;
    }
    let acked = false;
    const ack = async (response?: unknown) => {
      if (acked) throw new Error('this event was acknowledged already');
      acked = true;
      this.#send({ type: 'ack', id, ...(response === undefined ? {} : { response }) });
    };
    try {
      await app.processEvent({ body, ack, retryNum, retryReason, customProperties: {} });
      this.#send({ type: 'done', id });
    } catch (error) {
      this.#send({ type: 'done', id, error: describeError(error) });
    }
  }
}
