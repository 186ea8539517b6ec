/**
 * What the console works against: the platform and the customer database from the
 * environment, or, when they are unset, the built-in sandbox started in this process
 * (PRODUCT §1), so a newcomer can try every command with no account.
 *
 * Against the built-in sandbox each session gets a fresh state database (unless
 * STATE_DATABASE_URL is set), since the sandbox itself starts afresh: a request left pending by
 * an earlier session would only lock its target. Otherwise the state persists (its audit chain
 * records real changes), and pending requests are shown again with their buttons. The sandbox's
 * database and the fresh state database live in one temporary folder of the session's, removed
 * by close() or, should the process exit without it, by removeTemporaryFolder().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/server.js';
import type { SecretRegistry } from '../secrets/registry.js';
import type { Logger } from '../telemetry/log.js';
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
  /**
   * The configuration with platform and service database filled in from the sandbox where unset,
   * and against the sandbox the session's own state database.
   */
  config: Config;
  /** The state database is this session's own, removed by close(). */
  freshState: boolean;
  platform: PlatformTarget;
  /** Kept ready for the database operations; also in `config.serviceDatabase`. */
  serviceDatabase?: ServiceDatabaseTarget;
  sandbox?: Sandbox;
  /** Lines for the banner, saying what is used. */
  notes: string[];
  /** Stops the sandbox and removes the session's temporary folder; after the runtime has closed. */
  close(): Promise<void>;
  /** Removes the session's temporary folder at once: for a process that exits without close(). */
  removeTemporaryFolder(): void;
}

/** Against the sandbox: a fresh state database in the session's folder, unless STATE_DATABASE_URL is set. */
function sessionStateDatabase(config: Config, folder: string): Config['stateDatabase'] {
  if (config.stateDatabase.fromEnvironment) return config.stateDatabase;
  return { ...config.stateDatabase, url: `file:${join(folder, 'edgeops.db')}` };
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
      freshState: false,
      platform: config.platform,
      serviceDatabase: fromEnvironment,
      notes: [
        `Platform: ${config.platform.apiUrl} (PLATFORM_API_URL)`,
        fromEnvironment
          ? 'Service database: SERVICE_DATABASE_URL'
          : 'Service database: not configured (SERVICE_DATABASE_URL is unset)',
      ],
      close: async () => {},
      removeTemporaryFolder: () => {},
    };
  }

  const folder = mkdtempSync(join(tmpdir(), 'edgeops-console-session-'));
  const removeTemporaryFolder = () => rmSync(folder, { recursive: true, force: true });
  let sandbox: Sandbox;
  try {
    sandbox = await (options.start ?? startSandbox)({
      now: options.now,
      databasePath: join(folder, 'sandbox.db'),
      onError: (error, routeId) => logger.error('sandbox route failed', { routeId, error }),
    });
  } catch (error) {
    removeTemporaryFolder();
    throw error;
  }
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
  const stateDatabase = sessionStateDatabase(config, folder);
  return {
    config: {
      ...config,
      platform,
      serviceDatabase: {
        url: serviceDatabase.url,
        authToken: serviceDatabase.authToken,
        id: serviceDatabase.databaseId,
      },
      stateDatabase,
    },
    freshState: !config.stateDatabase.fromEnvironment,
    platform,
    serviceDatabase,
    sandbox,
    notes: [
      `No PLATFORM_API_URL: using the built-in sandbox platform at ${sandbox.apiUrl}`,
      serviceDatabase.source === 'sandbox'
        ? `No SERVICE_DATABASE_URL: the service database is the sandbox's, at ${sandbox.databaseUrl} (id ${sandbox.databaseId})`
        : 'Service database: SERVICE_DATABASE_URL',
    ],
    async close() {
      try {
        await sandbox.close();
      } finally {
        removeTemporaryFolder();
      }
    },
    removeTemporaryFolder,
  };
}
