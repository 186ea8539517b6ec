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
    expect(config.slack.apiUrl).toBe('https://slack.com/api/');
    expect(config.stateDatabase.url).toBe('file:data/edgeops.db');
    expect(config.logLevel).toBe('info');
    expect(config.policyPath).toBeUndefined();
  });

  it('picks HTTP mode with a bot token and signing secret, and Socket Mode with an app token', () => {
    expect(loadConfig(http, noFiles).mode).toBe('http');
    expect(loadConfig({ ...http, SLACK_APP_TOKEN: 'xapp-1-abc' }, noFiles).mode).toBe('socket');
  });

  it('derives the database API URL from the management URL, without a trailing slash', () => {
    const config = loadConfig(http, noFiles);
    expect(config.platform?.apiUrl).toBe('https://api.example.test');
    expect(config.platform?.databaseApiUrl).toBe('https://api.example.test/database');
  });

  it.each([
    [{ ...http, PORT: 'eighty' }, 'PORT'],
    [{ ...http, PORT: '70000' }, 'PORT'],
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

  it('uses edgeops.policy.yml when present and EDGEOPS_POLICY is unset', () => {
    expect(loadConfig({}, (path) => path === 'edgeops.policy.yml').policyPath).toBe('edgeops.policy.yml');
  });

  it('abandons a customer-database statement after 10 s unless told otherwise', () => {
    expect(loadConfig({}, noFiles).databaseQuery.timeoutMs).toBe(10_000);
    expect(loadConfig({ EDGEOPS_DB_QUERY_TIMEOUT: '30s' }, noFiles).databaseQuery.timeoutMs).toBe(30_000);
    const error = failure({ EDGEOPS_DB_QUERY_TIMEOUT: 'ten' });
    expect(error.variable).toBe('EDGEOPS_DB_QUERY_TIMEOUT');
    expect(error.message).toMatch(/not a duration/);
  });
});
