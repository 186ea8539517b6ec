import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDefaultPolicy } from '../../src/policy/defaults.js';
import { createPolicyStore, PolicyLoadError, type PolicyStore } from '../../src/policy/store.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock } from '../support/clock.js';

const ONE_GRANT = 'roles: { everyone: ["*"] }\ngrants:\n  - ops: [dns.list]\n    roles: [everyone]\n';
const TWO_GRANTS = `${ONE_GRANT}  - ops: [audit.list, apikey.list]\n    roles: [everyone]\n`;
const INVALID = 'roles: { everyone: ["*"] }\ngrants:\n  - ops: [dns.lsit]\n    roles: [everyone]\n';

let dir: string;
let path: string;
let lines: string[];
let store: PolicyStore | undefined;

const logger = () =>
  createLogger({
    clock: pinnedClock(),
    level: 'info',
    secrets: new SecretRegistry(),
    write: (line) => lines.push(line),
  });

/** Polls until the condition holds; the store polls the file every 10 ms in these tests. */
async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const grantCount = () => store?.current().grants.length;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-policy-'));
  path = join(dir, 'edgeops.policy.yml');
  lines = [];
});

afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('createPolicyStore', () => {
  it('uses the fallback when there is no policy file', () => {
    const fallback = createDefaultPolicy();
    store = createPolicyStore({ fallback, logger: logger() });
    expect(store.current()).toBe(fallback);
    expect(store.source).toBe('the built-in policy');
  });

  it('loads the file at start', () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), watch: false });
    expect(store.current()).toMatchObject({ origin: 'file', source: path, grants: [{ ops: ['dns.list'] }] });
  });

  it('stops the start with the YAML path of the fault when the file is invalid', () => {
    writeFileSync(path, INVALID);
    const start = () => createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger() });
    expect(start).toThrow(PolicyLoadError);
    expect(start).toThrow(
      `${path}: grants[0].ops[0]: "dns.lsit" is not an operation (did you mean dns.list?)`,
    );
  });

  it('stops the start when the file cannot be read', () => {
    expect(() => createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger() })).toThrow(
      `${path}: cannot be read (ENOENT)`,
    );
  });

  it('picks up a change to the file', async () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), intervalMs: 10 });
    writeFileSync(path, TWO_GRANTS);
    await eventually(() => grantCount() === 2);
    expect(lines.join('\n')).toContain('policy reloaded');
  });

  it('picks up a file replaced by rename, as editors save', async () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), intervalMs: 10 });
    const temporary = join(dir, '.edgeops.policy.yml.swp');
    writeFileSync(temporary, TWO_GRANTS);
    renameSync(temporary, path);
    await eventually(() => grantCount() === 2);
  });

  it('keeps the last good policy and logs the error when the file becomes invalid', async () => {
    writeFileSync(path, TWO_GRANTS);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), intervalMs: 10 });
    writeFileSync(path, INVALID);
    await eventually(() => lines.some((line) => line.includes('"level":"error"')));
    expect(grantCount()).toBe(2);
    const logged = JSON.parse(lines.find((line) => line.includes('"level":"error"'))!) as Record<
      string,
      unknown
    >;
    expect(logged.error).toContain('grants[0].ops[0]: "dns.lsit" is not an operation');

    writeFileSync(path, ONE_GRANT);
    await eventually(() => grantCount() === 1);
  });

  it('keeps the last good policy when the file is deleted', async () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), intervalMs: 10 });
    rmSync(path);
    await eventually(() => lines.some((line) => line.includes('policy file is gone')));
    expect(grantCount()).toBe(1);
  });

  it('reloads on request', () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), watch: false });
    writeFileSync(path, TWO_GRANTS);
    expect(grantCount()).toBe(1);
    expect(store.reload()).toBe(true);
    expect(grantCount()).toBe(2);
    writeFileSync(path, INVALID);
    expect(store.reload()).toBe(false);
    expect(grantCount()).toBe(2);
  });

  it('counts the policies put in force: a new one moves the count, the same text or a bad edit does not', () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), watch: false });
    expect(store.generation()).toBe(0);
    expect(store.reload()).toBe(true);
    expect(store.generation()).toBe(0);
    writeFileSync(path, TWO_GRANTS);
    store.reload();
    expect(store.generation()).toBe(1);
    writeFileSync(path, INVALID);
    store.reload();
    expect(store.generation()).toBe(1);
  });

  it('stops watching when closed', async () => {
    writeFileSync(path, ONE_GRANT);
    store = createPolicyStore({ path, fallback: createDefaultPolicy(), logger: logger(), intervalMs: 10 });
    store.close();
    writeFileSync(path, TWO_GRANTS);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(grantCount()).toBe(1);
  });
});
