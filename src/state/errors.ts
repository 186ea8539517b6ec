import { EdgeopsError } from '../errors.js';

/** The state database could not be written: nothing runs without its audit row. */
export class StateUnavailableError extends EdgeopsError {
  override name = 'StateUnavailableError';
  readonly kind = 'state-unavailable';
  readonly outcome = 'error';
  readonly unexpected = true;
  readonly userMessage = "The bot's state store is unavailable, so nothing was run. Try again in a minute.";

  override get detail(): string {
    return 'state unavailable';
  }
}
