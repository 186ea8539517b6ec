/**
 * Bolt's HTTP receiver and the errors its handler answers by, for the receiving thread. Its own
 * modules are loaded, not all of Bolt (its App, Web API client and Socket Mode), so the thread
 * listens about a quarter of a second sooner. A Bolt that lays out its files otherwise is loaded
 * whole: slower to start, never broken. Required, since these are CommonJS modules.
 */
import type * as Bolt from '@slack/bolt';

export interface BoltReceiverModules {
  HTTPReceiver: typeof Bolt.HTTPReceiver;
  AuthorizationError: typeof Bolt.AuthorizationError;
  ErrorCode: typeof Bolt.ErrorCode;
  /** `parts` when only the receiver's modules were loaded, `whole` when all of Bolt was. */
  loaded: 'parts' | 'whole';
}

export function loadBoltReceiver(load: (id: string) => unknown): BoltReceiverModules {
  try {
    const { default: HTTPReceiver } = load('@slack/bolt/dist/receivers/HTTPReceiver.js') as {
      default: typeof Bolt.HTTPReceiver;
    };
    const { AuthorizationError, ErrorCode } = load('@slack/bolt/dist/errors.js') as typeof Bolt;
    if (typeof HTTPReceiver === 'function' && typeof AuthorizationError === 'function' && ErrorCode)
      return { HTTPReceiver, AuthorizationError, ErrorCode, loaded: 'parts' };
  } catch (error) {
    // Not where Bolt 4 and 5 keep them. Any other failure is Bolt's own, and the thread's to report.
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
  }
  const { HTTPReceiver, AuthorizationError, ErrorCode } = load('@slack/bolt') as typeof Bolt;
  return { HTTPReceiver, AuthorizationError, ErrorCode, loaded: 'whole' };
}
