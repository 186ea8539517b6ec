import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutFiles, safeFileName } from '../../src/console/out-files.js';
import { createFileScrub } from '../../src/secrets/file-scrub.js';
import { SecretRegistry } from '../../src/secrets/registry.js';

const KEY = 'pk_live_7f3a9c2e5b1d';
const secrets = new SecretRegistry();
secrets.add(KEY);
const scrub = createFileScrub(secrets);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the out folder', () => {
  it('keeps file names to one safe path segment', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\x y.csv')).toBe('x_y.csv');
    expect(safeFileName('.hidden')).toBe('hidden');
    expect(safeFileName('')).toBe('file');
    expect(safeFileName('origin-errors-42-2026-11-21.csv')).toBe('origin-errors-42-2026-11-21.csv');
  });

  it('never overwrites an earlier file and prints paths relative to the working directory', async () => {
    dir = mkdtempSync(join(tmpdir(), 'edgeops-out-'));
    const files = createOutFiles({ dir: 'out', cwd: dir });
    const first = await files.save({ filename: 'r.csv', title: 'R', content: 'a' }, scrub);
    const second = await files.save({ filename: 'r.csv', title: 'R', content: 'b' }, scrub);
    expect([first.shown, second.shown]).toEqual([join('out', 'r.csv'), join('out', 'r-2.csv')]);
    expect(readFileSync(second.path, 'utf8')).toBe('b');
  });

  it('moves a temporary file in, and removes it even when it cannot be saved', async () => {
    dir = mkdtempSync(join(tmpdir(), 'edgeops-out-'));
    const temporary = join(dir, 'tmp-export.csv');
    writeFileSync(temporary, 'x,y\n');
    const files = createOutFiles({ dir: join(dir, 'elsewhere'), cwd: join(dir, 'work') });
    const saved = await files.save({ filename: 'export.csv', title: 'E', path: temporary }, scrub);
    expect(saved.shown).toBe(join(dir, 'elsewhere', 'export.csv'));
    expect(readdirSync(dir).sort()).toEqual(['elsewhere']);
    await expect(
      files.save({ filename: 'gone.csv', title: 'G', path: join(dir, 'missing.csv') }, scrub),
    ).rejects.toThrow();
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual(['export.csv']);
  });

  it("writes every file with the bot's secrets masked, whether it was in memory or on disk", async () => {
    dir = mkdtempSync(join(tmpdir(), 'edgeops-out-'));
    const files = createOutFiles({ dir: 'out', cwd: dir });
    const inMemory = await files.save(
      { filename: 'full-reply.txt', title: 'F', content: `key ${KEY}` },
      scrub,
    );
    const temporary = join(dir, 'tmp-query.csv');
    writeFileSync(temporary, `id,note\r\n1,${KEY}\r\n2,"${KEY}, again ${KEY}"\r\n`);
    const onDisk = await files.save({ filename: 'query.csv', title: 'Q', path: temporary }, scrub);
    expect(readFileSync(inMemory.path, 'utf8')).toBe('key [redacted …5b1d]');
    expect(readFileSync(onDisk.path, 'utf8')).toBe(
      'id,note\r\n1,[redacted …5b1d]\r\n2,"[redacted …5b1d], again [redacted …5b1d]"\r\n',
    );
    expect([inMemory.masked, onDisk.masked]).toEqual([1, 3]);
    expect(readdirSync(dir).sort()).toEqual(['out']);
  });
});
