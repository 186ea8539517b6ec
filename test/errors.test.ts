/**
 * One error base: every error the bot throws is an EdgeopsError that says its kind, the words
 * for the person who reads it, whether its cause is unknown to them and how it is audited, so
 * the one failure mapper (operations/engine/failure.ts) treats them all alike.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import { BatchRowsError } from '../src/database/batch-rows.js';
import { DatabaseError } from '../src/database/errors.js';
import { RowSinkError } from '../src/database/read-query.js';
import { DatabaseUrlError } from '../src/database/url.js';
import { EdgeopsError } from '../src/errors.js';
import { describeFailure } from '../src/operations/engine/failure.js';
import { PlatformError } from '../src/platform/errors.js';
import { PolicyLoadError } from '../src/policy/store.js';
import { CsvShapeError } from '../src/reports/csv/guard.js';
import { JsonStreamError } from '../src/reports/json-entries.js';
import { StreamCancelledError } from '../src/reports/worker-channel.js';
import { BodyTooLargeError } from '../src/sandbox/http.js';
import { StatementError } from '../src/sandbox/statement-error.js';
import { BotTokenRejectedError } from '../src/slack/bot-token.js';
import { DeliveryUnrecordedError } from '../src/slack/deliveries.js';
import { ResponseUrlError } from '../src/slack/response-url.js';
import { UploadError } from '../src/slack/upload.js';
import { AuditLogError } from '../src/state/audit.js';
import { MigrationError } from '../src/state/migrations.js';
import { StateStoreError } from '../src/state/store.js';
import type { Logger } from '../src/telemetry/log.js';
import { WatchStoreError } from '../src/watches/store.js';

type Line = { level: string; message: string; fields?: Record<string, unknown> };

function recordingLogger(lines: Line[]): Logger {
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => logger,
  };
  return logger;
}

const describeWithLog = (error: unknown) => {
  const lines: Line[] = [];
  const failure = describeFailure(error, { correlationId: 'c-42', logger: recordingLogger(lines) });
  return { failure, lines };
};

/** A fault of ours in the bot's own machinery. */
const faultsOfOurs = [
  new StateStoreError('could not open the state database (check STATE_DATABASE_URL)'),
  new AuditLogError('could not write the audit row'),
  new MigrationError(3, 'migration versions must be increasing positive integers'),
  new WatchStoreError('could not read the watches table'),
  new DeliveryUnrecordedError('the state database could not record this delivery'),
  new UploadError('Slack gave no upload URL', 'no_upload_url'),
  new ResponseUrlError(404, 'expired_url'),
  new BatchRowsError('the response is not valid JSON'),
  new RowSinkError(new Error('disk full')),
];

/** Errors whose message is written for the person who reads it: an operator at start, a client. */
const inTheirOwnWords = [
  new ConfigError('SLACK_BOT_TOKEN', 'is required with SLACK_APP_TOKEN'),
  new PolicyLoadError('edgeops.policy.yml: roles.leads must be a list'),
  new BotTokenRejectedError('invalid_auth'),
  new DatabaseUrlError('SERVICE_DATABASE_URL is not a valid URL'),
  new JsonStreamError('the response is not a JSON object'),
  new CsvShapeError('record 3 has a quote that never closes'),
  new StreamCancelledError('cancelled'),
  new StatementError('SQL_NO_STATEMENT', 'SQL string does not contain any statement'),
  new BodyTooLargeError('request body over 1024 bytes'),
];

describe('the one error base', () => {
  it.each([...faultsOfOurs, ...inTheirOwnWords].map((error) => [error.name, error] as const))(
    '%s is an EdgeopsError with a kind, words for people and an outcome',
    (_name, error) => {
      expect(error).toBeInstanceOf(EdgeopsError);
      const known = error as EdgeopsError;
      expect(known.kind).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(known.userMessage.length).toBeGreaterThan(0);
      expect(typeof known.unexpected).toBe('boolean');
      expect(['refused', 'failed', 'error']).toContain(known.outcome);
    },
  );

  it('says the message of an error written for people as its words', () => {
    for (const error of inTheirOwnWords) expect(error.userMessage).toBe(error.message);
    expect(new BotTokenRejectedError('token_revoked').userMessage).toMatch(
      /^SLACK_BOT_TOKEN: Slack rejected/,
    );
  });

  it.each(faultsOfOurs.map((error) => [error.name, error] as const))(
    'shows %s as it shows a bug: only that it is ours, with the correlation id',
    (_name, error) => {
      const fault = describeWithLog(error);
      const bug = describeWithLog(new TypeError('x is undefined'));
      expect(fault.failure).toEqual(bug.failure);
      expect(fault.failure).toMatchObject({
        text: 'Something went wrong on our side. Please report correlation id c-42.',
        outcome: 'error',
        detail: 'unexpected error',
      });
      expect(fault.lines).toEqual([{ level: 'error', message: 'unexpected failure', fields: { error } }]);
    },
  );

  it('logs what a platform or database failure says of itself, and a refused database token not again', () => {
    const platform = describeWithLog(
      new PlatformError({
        kind: 'server',
        operation: 'dnszone.list',
        userMessage: 'The platform failed',
        status: 502,
      }),
    );
    expect(platform.failure.text).toBe('The platform failed (correlation id c-42)');
    expect(platform.lines).toEqual([
      {
        level: 'warn',
        message: 'platform call failed',
        fields: {
          kind: 'server',
          status: 502,
          platformOperation: 'dnszone.list',
          attempts: 1,
          message: 'The platform failed',
        },
      },
    ]);
    const refused = describeWithLog(
      new DatabaseError('unauthorized', 'SERVER_ERROR', 'The token was refused', 401),
    );
    expect(refused.lines).toEqual([]);
    const busy = describeWithLog(new DatabaseError('busy', 'SQLITE_BUSY', 'The database is busy'));
    expect(busy.lines).toEqual([
      {
        level: 'warn',
        message: 'customer database call failed',
        fields: { kind: 'busy', code: 'SQLITE_BUSY', status: undefined, message: 'The database is busy' },
      },
    ]);
    expect(busy.failure.outcome).toBe('failed');
  });
});
