/**
 * The start-up check of SLACK_BOT_TOKEN (PRODUCT §1): `auth.test` must accept it before the bot
 * is ready. A token Slack rejects stops the start; a Slack that cannot be reached is asked again
 * in the background with a growing pause, one log line per try, until it answers.
 */
import {
  ErrorCode,
  LogLevel,
  type Logger as SlackLogger,
  WebClient,
  type WebClientOptions,
} from '@slack/web-api';
import { EdgeopsError } from '../errors.js';
import type { Logger } from '../telemetry/log.js';

/** auth.test answers that mean this token will never work: retrying cannot help. */
export const REJECTED_TOKEN_ERRORS: readonly string[] = [
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'not_authed',
];

/** Slack refused the bot token; the message names the variable, never its value. */
export class BotTokenRejectedError extends EdgeopsError {
  override name = 'BotTokenRejectedError';
  readonly kind = 'bot-token-rejected';
  readonly outcome = 'error';
  readonly unexpected = false;

  constructor(readonly slackError: string) {
    super(
      `SLACK_BOT_TOKEN: Slack rejected the bot token (${slackError}); copy the Bot User OAuth Token (xoxb-…) from the app's "OAuth & Permissions" page again, or reinstall the app`,
    );
  }

  get userMessage(): string {
    return this.message;
  }
}

/**
 * Who the token belongs to, as auth.test says: Bolt uses the bot's ids to recognise its own
 * events, and the workspace (with its Enterprise Grid org, if any) is the one whose members act.
 */
export interface BotIdentity {
  botId?: string;
  botUserId?: string;
  teamId?: string;
  enterpriseId?: string;
}

export type TokenCheckResult =
  | { outcome: 'accepted'; identity: BotIdentity }
  | { outcome: 'rejected'; slackError: string }
  | { outcome: 'unreachable'; reason: string; retryAfterMs?: number };

/** One auth.test; every failure is classified, none is thrown. */
export async function checkBotToken(client: WebClient): Promise<TokenCheckResult> {
  try {
    const answer = await client.auth.test();
    return {
      outcome: 'accepted',
      identity: {
        botId: answer.bot_id,
        botUserId: answer.user_id,
        // Slack answers an empty string rather than no field in places: neither names a workspace.
        teamId: answer.team_id || undefined,
        enterpriseId: answer.enterprise_id || undefined,
      },
    };
  } catch (error) {
    return classify(error);
  }
}

function classify(error: unknown): TokenCheckResult {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === ErrorCode.PlatformError) {
    const slackError = String((error as { data?: { error?: unknown } }).data?.error ?? 'unknown_error');
    if (REJECTED_TOKEN_ERRORS.includes(slackError)) return { outcome: 'rejected', slackError };
    return { outcome: 'unreachable', reason: `Slack answered ${slackError}` };
  }
  if (code === ErrorCode.HTTPError) {
    const status = (error as { statusCode?: unknown }).statusCode;
    return { outcome: 'unreachable', reason: `Slack answered HTTP ${String(status)}` };
  }
  if (code === ErrorCode.RateLimitedError) {
    const seconds = Number((error as { retryAfter?: unknown }).retryAfter) || 0;
    return { outcome: 'unreachable', reason: `rate limited for ${seconds} s`, retryAfterMs: seconds * 1000 };
  }
  if (code === ErrorCode.RequestError) {
    const original = (error as { original?: unknown }).original;
    const reason = original instanceof Error ? original.message : String(original);
    return { outcome: 'unreachable', reason: `cannot reach Slack (${reason || 'no answer'})` };
  }
  return { outcome: 'unreachable', reason: error instanceof Error ? error.message : String(error) };
}

export interface TokenCheckBackoff {
  /** The pause after the first failed try; it doubles after each one. */
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_TOKEN_CHECK_BACKOFF: TokenCheckBackoff = { initialMs: 1_000, maxMs: 60_000 };

/** The pause before try `attempt + 1`, after `attempt` failed tries. */
export function backoffMs(backoff: TokenCheckBackoff, attempt: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, attempt - 1));
}

export interface BotTokenWatch {
  /** Undefined once Slack has accepted the token; why the bot is not ready otherwise. */
  notReadyReason(): string | undefined;
  identity(): BotIdentity | undefined;
  /** Resolves once Slack accepts the token; rejects with BotTokenRejectedError if it refuses it. */
  readonly accepted: Promise<BotIdentity>;
  stop(): void;
}

export interface BotTokenWatchOptions {
  botToken: string;
  /** The Web API client options (URL, logger); retries are the watch's own. */
  clientOptions: WebClientOptions;
  logger: Logger;
  /** Named in each retry's log line: "HTTP" or "Socket Mode". */
  modeName: string;
  backoff?: TokenCheckBackoff;
  /** One try's bound: an unanswered auth.test counts as Slack unreachable. */
  timeoutMs?: number;
}

/**
 * Runs the first check and returns once it has an answer: throws BotTokenRejectedError when Slack
 * refuses the token. When Slack cannot be reached, keeps trying in the background.
 */
/** The check's client says nothing itself: each try's outcome is one line of the watch's own. */
const silentSlackLogger: SlackLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

export async function watchBotToken(options: BotTokenWatchOptions): Promise<BotTokenWatch> {
  const backoff = options.backoff ?? DEFAULT_TOKEN_CHECK_BACKOFF;
  // Its own retries, not the SDK's: those wait silently for minutes, and each try here is logged.
  const client = new WebClient(options.botToken, {
    ...options.clientOptions,
    logger: silentSlackLogger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 10_000,
  });
  const first = await checkBotToken(client);
  if (first.outcome === 'rejected') throw new BotTokenRejectedError(first.slackError);

  let identity: BotIdentity | undefined;
  let reason: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let settle: { resolve(identity: BotIdentity): void; reject(error: Error): void } | undefined;
  const accepted = new Promise<BotIdentity>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A caller that only reads notReadyReason() must not see an unhandled rejection.
  accepted.catch(() => undefined);

  const retryLater = (result: { reason: string; retryAfterMs?: number }, attempt: number) => {
    const pauseMs = Math.max(backoffMs(backoff, attempt), result.retryAfterMs ?? 0);
    const seconds = pauseMs >= 1_000 ? `${Math.round(pauseMs / 100) / 10} s` : `${pauseMs} ms`;
    reason = `Slack has not accepted SLACK_BOT_TOKEN yet: auth.test failed: ${result.reason}; next try in ${seconds}`;
    options.logger.warn(`${options.modeName}: ${reason} (try ${attempt})`, {
      attempt,
      retryInMs: pauseMs,
    });
    timer = setTimeout(() => void retry(attempt + 1), pauseMs);
  };
  const retry = async (attempt: number) => {
    timer = undefined;
    const result = await checkBotToken(client);
    if (stopped) return;
    if (result.outcome === 'accepted') {
      identity = result.identity;
      reason = undefined;
      options.logger.info(`${options.modeName}: Slack accepted the bot token`, { attempt });
      settle?.resolve(result.identity);
    } else if (result.outcome === 'rejected') {
      reason = `Slack rejected SLACK_BOT_TOKEN (${result.slackError})`;
      settle?.reject(new BotTokenRejectedError(result.slackError));
    } else {
      retryLater(result, attempt);
    }
  };

  if (first.outcome === 'accepted') {
    identity = first.identity;
    settle?.resolve(first.identity);
  } else {
    retryLater(first, 1);
  }
  return {
    notReadyReason: () => reason,
    identity: () => identity,
    accepted,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
