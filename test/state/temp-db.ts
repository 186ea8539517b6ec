import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger, type Logger } from '../../src/telemetry/log.js';
import { pinnedClock } from '../support/clock.js';

export interface TempDatabase {
  dir: string;
  /** A `file:` URL for a database that does not exist yet. */
  url: string;
  remove(): Promise<void>;
}

export async function tempDatabase(name = 'state.db'): Promise<TempDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-state-'));
  return { dir, url: `file:${join(dir, name)}`, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A logger that keeps its lines, so tests can read them. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    clock: pinnedClock(),
    level: 'debug',
    secrets: new SecretRegistry(),
    write: (line) => lines.push(line),
  });
  return Object.assign(logger, { lines });
}
