/**
 * What the console works against: the platform and the customer database from the
 * environment, or, when they are unset, the built-in sandbox started in this process
 * (PRODUCT §1), so a newcomer can try every command with no account.
 */

import type { Config } from '../config.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/server.js';
import type { Logger, SecretRegistry } from '../telemetry/log.js';
import type { Clock } from '../time/clock.js';

export type PlatformTarget = NonNullable<Config['platform']>;

/** The customer database `/edge db` works on, with the id token operations address. */
export interface ServiceDatabaseTarget {
  url: string;
  authToken?: string;
  /** The sandbox's id; with SERVICE_DATABASE_URL the id comes from its first host label. */
  databaseId?: string;
  source: 'environment' | 'sandbox';
}

export interface ConsoleBackends {
  /** The configuration with platform and service database filled in from the sandbox where unset. */
  config: Config;
  platform: PlatformTarget;
  /** Kept ready for the database operations; also in `config.serviceDatabase`. */
  serviceDatabase?: ServiceDatabaseTarget;
  sandbox?: Sandbox;
  /** Lines for the banner, saying what is used. */
  notes: string[];
  close(): Promise<void>;
}

export async function prepareConsoleBackends(options: {
  config: Config;
  secrets: SecretRegistry;
  logger: Logger;
  now: Clock;
  start?: (options: SandboxOptions) => Promise<Sandbox>;
}): Promise<ConsoleBackends> {
  const { config, secrets, logger } = options;
  const fromEnvironment: ServiceDatabaseTarget | undefined = config.serviceDatabase
    ? { ...config.serviceDatabase, source: 'environment' }
    : undefined;

  if (config.platform) {
    return {
      config,
      platform: config.platform,
      serviceDatabase: fromEnvironment,
      notes: [
        `Platform: ${config.platform.apiUrl} (PLATFORM_API_URL)`,
        fromEnvironment
          ? 'Service database: SERVICE_DATABASE_URL'
          : 'Service database: not configured (SERVICE_DATABASE_URL is unset)',
      ],
      close: async () => {},
    };
  }

  const sandbox = await (options.start ?? startSandbox)({
    now: options.now,
    onError: (error, routeId) => logger.error('sandbox route failed', { routeId, error }),
  });
  secrets.add(sandbox.apiKey, sandbox.databaseTokens.fullAccess, sandbox.databaseTokens.readOnly);
  const platform: PlatformTarget = {
    apiUrl: sandbox.apiUrl,
    apiKey: sandbox.apiKey,
    loggingUrl: sandbox.loggingUrl,
    databaseApiUrl: sandbox.databaseApiUrl,
  };
  const serviceDatabase: ServiceDatabaseTarget = fromEnvironment ?? {
    url: sandbox.databaseUrl,
    authToken: sandbox.databaseTokens.fullAccess,
    databaseId: sandbox.databaseId,
    source: 'sandbox',
  };
  return {
    config: {
      ...config,
      platform,
      serviceDatabase: {
        url: serviceDatabase.url,
        authToken: serviceDatabase.authToken,
        id: serviceDatabase.databaseId,
      },
    },
    platform,
    serviceDatabase,
    sandbox,
    notes: [
      `No PLATFORM_API_URL: using the built-in sandbox platform at ${sandbox.apiUrl}`,
      serviceDatabase.source === 'sandbox'
        ? `No SERVICE_DATABASE_URL: the service database is the sandbox's, at ${sandbox.databaseUrl} (id ${sandbox.databaseId})`
        : 'Service database: SERVICE_DATABASE_URL',
    ],
    close: () => sandbox.close(),
  };
}
