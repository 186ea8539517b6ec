/**
 * Holds the policy in force. With a file, it is loaded at start-up (a bad file stops the start,
 * with the YAML path of the fault) and re-read when it changes; a bad edit is logged and the
 * last good policy stays in force, so a typo never opens or closes access by accident.
 */
import { readFileSync, statSync } from 'node:fs';
import { EdgeopsError } from '../errors.js';
import type { Logger } from '../telemetry/log.js';
import { parsePolicy } from './load.js';
import type { Policy } from './schema.js';

export interface PolicyStoreOptions {
  /** The policy file; without one, `fallback` is used for good. */
  path?: string;
  /** The built-in default or the console demo policy. */
  fallback: Policy;
  logger: Logger;
  /** Re-read the file when it changes; on by default when there is a file. */
  watch?: boolean;
  /** How often the file's status is polled. */
  intervalMs?: number;
}

export interface PolicyStore {
  current(): Policy;
  /**
   * How many times the policy in force has been replaced: read before and after work that reads
   * the policy (drawing a Home), it says whether that work saw one policy throughout.
   */
  generation(): number;
  /** The file path, or the description of the built-in policy. */
  readonly source: string;
  /** Re-reads the file now (e.g. on SIGHUP); false when it is invalid and the last good one stays. */
  reload(): boolean;
  close(): void;
}

/** A policy file that cannot be used at start-up; the message names the file and the fault. */
export class PolicyLoadError extends EdgeopsError {
  override name = 'PolicyLoadError';
  readonly kind = 'policy';
  readonly outcome = 'error';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

const DEFAULT_INTERVAL_MS = 1_000;

/** What identifies a version of the file: inode, size and modification time; undefined when it is gone. */
function fileStamp(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
}

function readPolicy(path: string): { ok: true; policy: Policy; text: string } | { ok: false; error: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    return { ok: false, error: `${path}: cannot be read (${code})` };
  }
  const parsed = parsePolicy(text, path);
  return parsed.ok ? { ...parsed, text } : parsed;
}

export function createPolicyStore(options: PolicyStoreOptions): PolicyStore {
  const { path, logger } = options;
  if (path === undefined) {
    return {
      current: () => options.fallback,
      generation: () => 0,
      source: options.fallback.source,
      reload: () => true,
      close: () => {},
    };
  }

  // The file's identity is taken before it is read, so a write landing between the two is
  // seen as a change on the next poll (and re-reading the same text is a no-op).
  let seen = fileStamp(path);
  const first = readPolicy(path);
  if (!first.ok) throw new PolicyLoadError(first.error);
  let policy = first.policy;
  let lastText = first.text;
  let generation = 0;
  let reportedMissing = false;

  const reload = (): boolean => {
    const next = readPolicy(path);
    if (!next.ok) {
      logger.error('policy file is not valid; the last good policy stays in force', {
        source: path,
        error: next.error,
      });
      return false;
    }
    if (next.text !== lastText) {
      policy = next.policy;
      lastText = next.text;
      generation++;
      logger.info('policy reloaded', { source: path });
    }
    return true;
  };

  // Polling the path (not fs.watch on the file) also sees editors that save by writing a new
  // file and renaming it over the old one.
  const check = () => {
    const stamp = fileStamp(path);
    if (stamp === undefined) {
      if (!reportedMissing)
        logger.error('policy file is gone; the last good policy stays in force', { source: path });
      reportedMissing = true;
      return;
    }
    reportedMissing = false;
    if (stamp === seen) return;
    seen = stamp;
    reload();
  };
  const watching = options.watch ?? true;
  const timer = watching ? setInterval(check, options.intervalMs ?? DEFAULT_INTERVAL_MS) : undefined;
  timer?.unref();

  return {
    current: () => policy,
    generation: () => generation,
    source: path,
    reload,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
