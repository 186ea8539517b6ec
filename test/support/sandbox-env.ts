import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/server.js';

/**
 * The environment that points the bot at a sandbox: its platform URLs and key, a state database
 * in `dir`, the policy file when there is one, and the sandbox's database as the customer one.
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
    ...(options.policyPath ? { EDGEOPS_POLICY: options.policyPath } : {}),
    ...(options.serviceDatabase
      ? {
          SERVICE_DATABASE_URL: sandbox.databaseUrl,
          SERVICE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
        }
      : {}),
  };
}
