/** Starts a sandbox on ephemeral ports with a clock the test controls. */
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';

/** 2026-11-21 14:00:00 UTC: a fixed "now" so dates in assertions never drift. */
export const NOW = Date.UTC(2026, 10, 21, 14, 0, 0);
export const TODAY_PATH = '11-21-2026';

export interface Clock {
  now: number;
}

export async function startTestSandbox(
  options: Partial<SandboxOptions> = {},
): Promise<{ sandbox: Sandbox; clock: Clock }> {
  const clock: Clock = { now: NOW };
  const sandbox = await startSandbox({ now: () => clock.now, ...options });
  return { sandbox, clock };
}

export function jsonHeaders(sandbox: Sandbox, contentType = 'application/json'): Record<string, string> {
  return { AccessKey: sandbox.apiKey, 'content-type': contentType };
}
