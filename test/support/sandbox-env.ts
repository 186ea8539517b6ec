import { join } from 'node:path';
import type { KeptOriginDays } from '../../src/operations/logs/kept-days.js';
import type { Sandbox } from '../../src/sandbox/server.js';

/**
 * The environment that points the bot at a sandbox: its platform URLs and key, a state database
 * and the kept origin-log days in `dir`, the policy file when there is one, and the sandbox's database as the customer one.
 */
export function sandboxEnv(
  sandbox: Sandbox,
  dir: string,
  options: { policyPath?: string; serviceDatabase?: boolean } = {},
): Record<string, string> {
  return {
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_API_KEY: sandbox.apiKey,
    PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    PLATFORM_DATABASE_API_URL: sandbox.databaseApiUrl,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
    EDGEOPS_LOG_CACHE_DIR: join(dir, 'log-cache'),
    ...(options.policyPath ? { EDGEOPS_POLICY: options.policyPath } : {}),
    ...(options.serviceDatabase
      ? {
          SERVICE_DATABASE_URL: sandbox.databaseUrl,
          SERVICE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
        }
      : {}),
  };
}

/**
 * The sandbox's knobs change what a past day of origin logs holds, which the platform never
 * does: the days the bot kept are forgotten at each change, so that a test reads what it set.
 */
export function forgetKeptDaysOnKnobs(sandbox: Sandbox, keptDays: Pick<KeptOriginDays, 'clear'>): void {
  const { knobs } = sandbox;
  const changes = ['setLogDay', 'setLogDaysKept', 'setVendorShapes', 'addLogEntries', 'clear'] as const;
  for (const name of changes) {
    const change = knobs[name].bind(knobs) as (...args: unknown[]) => void;
    Object.assign(knobs, {
      [name]: (...args: unknown[]) => {
        void keptDays.clear();
        change(...args);
      },
    });
  }
}
