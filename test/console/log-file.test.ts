import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openConsoleLog } from '../../src/console/log-file.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { pinnedClock } from '../support/clock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('writes log lines to the file, creating its folder, with secrets redacted', () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-log-'));
  const secrets = new SecretRegistry();
  secrets.add('platform-key-0123456789');
  const log = openConsoleLog({
    clock: pinnedClock(),
    path: 'data/console.log',
    level: 'info',
    secrets,
    cwd: dir,
  });
  log.logger.info('called the platform', { key: 'platform-key-0123456789' });
  log.close();
  expect(log.where).toBe('the file data/console.log');
  const text = readFileSync(join(dir, 'data', 'console.log'), 'utf8');
  expect(text).toContain('called the platform');
  expect(text).toContain('[redacted …6789]');
  expect(text).not.toContain('platform-key-0123456789');
});

it('falls back to stderr at warn level when the file cannot be opened', () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-log-'));
  writeFileSync(join(dir, 'data'), 'a file where the folder should be');
  const lines: string[] = [];
  const log = openConsoleLog({
    clock: pinnedClock(),
    path: 'data/console.log',
    level: 'debug',
    secrets: new SecretRegistry(),
    cwd: dir,
    stderr: (line) => lines.push(line),
  });
  log.logger.info('routine');
  log.logger.warn('worth seeing');
  expect(log.where).toMatch(/^stderr \(warn and above/);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('worth seeing');
});
