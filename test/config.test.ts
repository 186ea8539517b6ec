import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configSecrets, loadConfig } from '../src/config.js';

const noFiles = () => false;
const platform = {
  PLATFORM_API_URL: 'https://api.example.test/',
  PLATFORM_API_KEY: 'account-key-0123456789',
};
const http = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-secretbottoken',
  SLACK_SIGNING_SECRET: 'signing-secret-value-123',
  PLATFORM_LOGGING_URL: 'https://logs.example.test',
  ...platform,
};

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, noFiles);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('starts in console mode with no Slack credentials, with every default', () => {
    const config = loadConfig({}, noFiles);
    expect(config.mode).toBe('console');
    expect(config.platform).toBeUndefined();
    expect(config.port).toBe(3000);
    expect(config.metricsPort).toBe(9090);
    expect(config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(config.stateDatabase.url).toBe('file:data/edgeops.db');
    expect(config.logLevel).toBe('info');
    expect(config.policyPath).toBeUndefined();
  });

  it('picks HTTP mode with a bot token and signing secret, and Socket Mode with an app token', () => {
    expect(loadConfig(http, noFiles).mode).toBe('http');
    expect(loadConfig({ ...http, SLACK_APP_TOKEN: 'xapp-1-abc' }, noFiles).mode).toBe('socket');
  });

  it('takes METRICS_PORT apart from PORT; 0 picks a free port for each, as tests do', () => {
    expect(loadConfig({ ...http, PORT: '8080', METRICS_PORT: '9100' }, noFiles)).toMatchObject({
      port: 8080,
      metricsPort: 9100,
    });
    expect(loadConfig({ ...http, PORT: '0', METRICS_PORT: '0' }, noFiles)).toMatchObject({
      port: 0,
      metricsPort: 0,
    });
    // The console listens on METRICS_PORT alone.
    expect(loadConfig({ PORT: '9090' }, noFiles).metricsPort).toBe(9090);
  });

  it('derives the database API URL from the management URL, without a trailing slash', () => {
    const config = loadConfig(http, noFiles);
    expect(config.platform?.apiUrl).toBe('https://api.example.test');
    expect(config.platform?.databaseApiUrl).toBe('https://api.example.test/database');
  });

  it.each([
    [{ ...http, PORT: 'eighty' }, 'PORT'],
    [{ ...http, PORT: '70000' }, 'PORT'],
    [{ ...http, METRICS_PORT: 'nine' }, 'METRICS_PORT'],
    [{ ...http, METRICS_PORT: '-1' }, 'METRICS_PORT'],
    [{ ...http, PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT'],
    [{ ...http, SLACK_APP_TOKEN: 'xapp-1-abc', METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ ...http, LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ ...http, SLACK_BOT_TOKEN: 'xoxp-user-token' }, 'SLACK_BOT_TOKEN'],
    [{ ...http, SLACK_APP_TOKEN: 'not-an-app-token' }, 'SLACK_APP_TOKEN'],
    [{ ...http, PLATFORM_API_URL: 'ftp://api.example.test' }, 'PLATFORM_API_URL'],
    [{ ...http, PLATFORM_API_KEY: '' }, 'PLATFORM_API_KEY'],
    [{ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }, 'PLATFORM_API_URL'],
    [{ SLACK_SIGNING_SECRET: 's' }, 'SLACK_BOT_TOKEN'],
    [{ ...http, STATE_DATABASE_URL: 'postgres://db' }, 'STATE_DATABASE_URL'],
    [{ ...http, SERVICE_DATABASE_AUTH_TOKEN: 'token-without-url' }, 'SERVICE_DATABASE_URL'],
    [{ ...http, EDGEOPS_POLICY: '/nowhere/policy.yml' }, 'EDGEOPS_POLICY'],
  ])('a bad value stops start-up with one line naming the variable (%#)', (env, variable) => {
    const error = failure(env as Record<string, string>);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('never puts a secret value in the error line', () => {
    const secret = 'xoxp-very-secret-user-token';
    const error = failure({ ...http, SLACK_BOT_TOKEN: secret });
    expect(error.message).not.toContain(secret);
    const keyError = failure({
      ...http,
      PLATFORM_API_URL: 'not a url',
      PLATFORM_API_KEY: 'account-key-0123456789',
    });
    expect(keyError.message).not.toContain('account-key-0123456789');
  });

  it('lists every configured secret so that logs can redact them', () => {
    const config = loadConfig(
      {
        ...http,
        SERVICE_DATABASE_URL: 'libsql://db1.example.test',
        SERVICE_DATABASE_AUTH_TOKEN: 'db-token-abcdef',
      },
      noFiles,
    );
    expect(configSecrets(config).sort()).toEqual(
      [
        'account-key-0123456789',
        'db-token-abcdef',
        'signing-secret-value-123',
        'xoxb-1-2-secretbottoken',
      ].sort(),
    );
  });

  it('lists a token or password written into a database URL as a secret too', () => {
    const config = loadConfig(
      {
        ...http,
        SERVICE_DATABASE_URL: 'libsql://db1.example.test?authToken=url-token%2Babcdef',
        STATE_DATABASE_URL: 'https://edgeops:state-pass-123456@state.example.test',
      },
      noFiles,
    );
    const secrets = configSecrets(config);
    expect(secrets).toContain('url-token+abcdef');
    expect(secrets).toContain('url-token%2Babcdef');
    expect(secrets).toContain('state-pass-123456');
    // A bare % does not decode: the forms as written are still listed.
    const percent = loadConfig(
      {
        ...http,
        STATE_DATABASE_URL: 'https://edgeops:pass-100%-sure@state.example.test?authToken=state-url-token-abc',
      },
      noFiles,
    );
    expect(configSecrets(percent)).toEqual(expect.arrayContaining(['pass-100%-sure', 'state-url-token-abc']));
  });

  it('uses edgeops.policy.yml when present and EDGEOPS_POLICY is unset', () => {
    expect(loadConfig({}, (path) => path === 'edgeops.policy.yml').policyPath).toBe('edgeops.policy.yml');
  });

  it('bounds db query by a 10 s deadline, 100,000 rows and 100 MB of values unless told otherwise', () => {
    expect(loadConfig({}, noFiles).databaseQuery).toEqual({
      timeoutMs: 10_000,
      maxRows: 100_000,
      maxBytes: 100 * 1024 * 1024,
    });
    expect(
      loadConfig(
        {
          EDGEOPS_DB_QUERY_TIMEOUT: '30s',
          EDGEOPS_DB_QUERY_MAX_ROWS: '250000',
          EDGEOPS_DB_QUERY_MAX_BYTES: '512MB',
        },
        noFiles,
      ).databaseQuery,
    ).toEqual({ timeoutMs: 30_000, maxRows: 250_000, maxBytes: 512 * 1024 * 1024 });
    const bytes = (value: string) =>
      loadConfig({ EDGEOPS_DB_QUERY_MAX_BYTES: value }, noFiles).databaseQuery.maxBytes;
    expect(bytes('1GB')).toBe(1024 ** 3);
    expect(bytes('64 kb')).toBe(64 * 1024);
    expect(bytes('1048576')).toBe(1024 * 1024);
  });

  it('keeps at most 1 GB of origin-log days in a folder of the temporary directory unless told otherwise', () => {
    expect(loadConfig({}, noFiles).logCache).toEqual({
      maxBytes: 1024 ** 3,
      dir: join(tmpdir(), 'edgeops-log-cache'),
    });
    expect(
      loadConfig({ EDGEOPS_LOG_CACHE: '512MB', EDGEOPS_LOG_CACHE_DIR: '/var/cache/edgeops' }, noFiles)
        .logCache,
    ).toEqual({ maxBytes: 512 * 1024 ** 2, dir: '/var/cache/edgeops' });
    expect(failure({ EDGEOPS_LOG_CACHE: 'lots' }).message).toMatch(
      /^EDGEOPS_LOG_CACHE: .*100MB, 512KB or 1GB/,
    );
  });

  it('names the db query bound that is not a duration, a row count or a size', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ EDGEOPS_DB_QUERY_TIMEOUT: 'ten' }, 'EDGEOPS_DB_QUERY_TIMEOUT', /not a duration/],
      [{ EDGEOPS_DB_QUERY_MAX_ROWS: '0' }, 'EDGEOPS_DB_QUERY_MAX_ROWS', /at least 1/],
      [{ EDGEOPS_DB_QUERY_MAX_ROWS: '1.5' }, 'EDGEOPS_DB_QUERY_MAX_ROWS', /whole number/],
      [{ EDGEOPS_DB_QUERY_MAX_ROWS: 'many' }, 'EDGEOPS_DB_QUERY_MAX_ROWS', /whole number/],
      [{ EDGEOPS_DB_QUERY_MAX_ROWS: '20000000' }, 'EDGEOPS_DB_QUERY_MAX_ROWS', /at most/],
      [{ EDGEOPS_DB_QUERY_MAX_BYTES: 'lots' }, 'EDGEOPS_DB_QUERY_MAX_BYTES', /100MB, 512KB or 1GB/],
      [{ EDGEOPS_DB_QUERY_MAX_BYTES: '2TB' }, 'EDGEOPS_DB_QUERY_MAX_BYTES', /100MB, 512KB or 1GB/],
      [{ EDGEOPS_DB_QUERY_MAX_BYTES: '100' }, 'EDGEOPS_DB_QUERY_MAX_BYTES', /between 1KB and 1GB/],
      [{ EDGEOPS_DB_QUERY_MAX_BYTES: '2GB' }, 'EDGEOPS_DB_QUERY_MAX_BYTES', /between 1KB and 1GB/],
    ];
    for (const [env, variable, problem] of cases) {
      const error = failure(env);
      expect(error.variable).toBe(variable);
      expect(error.message).toMatch(problem);
    }
  });
});
