/**
 * Slash commands and clicks acknowledged the moment the receiver hands them to the app, before
 * Bolt authorizes them and runs its middleware and every listener's matchers: Socket Mode's way.
 * (In HTTP mode the receiving thread acknowledges them before the app hears of them at all:
 * threaded-receiver.ts.) The `/edge` and click listeners always acknowledged with an empty body as
 * their first step, so nothing they learn could change the ack. What else now comes after the ack needs no
 * body in it: `authorize` reads the token checked at start-up and never throws, and the one
 * global middleware (members-only.ts) answers a command it refuses through its response_url.
 */
import { App, type ReceiverEvent } from '@slack/bolt';
import { acknowledgedOnArrival } from './ack-thread-messages.js';

export interface AckOnArrivalOptions {
  /** The slash commands acknowledged on arrival: those whose listener acks with no body. */
  commands: readonly string[];
  /** Told how long each early ack took, in seconds. */
  observe: (seconds: number) => void;
}

/** The ack a listener gets for an event acknowledged already: one call, never with a body. */
export function acknowledgedAlready(command: string): ReceiverEvent['ack'] {
  let called = false;
  return async (response?: unknown) => {
    if (response !== undefined && response !== '')
      throw new Error(`${command} is acknowledged on arrival: its listener cannot ack with a body`);
    if (called) throw new Error(`${command} was acknowledged twice by its listeners`);
    called = true;
  };
}

/** Bolt's App, acknowledging the named slash commands before dispatching them. */
export class AckOnArrivalApp extends App {
  readonly #arrival: AckOnArrivalOptions;

  constructor(options: ConstructorParameters<typeof App>[0] & { ackOnArrival: AckOnArrivalOptions }) {
    const { ackOnArrival, ...appOptions } = options;
    super(appOptions);
    this.#arrival = ackOnArrival;
  }

  override async processEvent(event: ReceiverEvent): Promise<void> {
    const command = acknowledgedOnArrival(event.body, this.#arrival.commands);
    if (command === undefined) return super.processEvent(event);
    const received = performance.now();
    await event.ack();
    this.#arrival.observe((performance.now() - received) / 1000);
    return super.processEvent({ ...event, ack: acknowledgedAlready(command) });
  }
}
