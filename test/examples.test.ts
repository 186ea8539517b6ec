import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { createPolicyAuthorizer } from '../src/policy/authorizer.js';
import { createDefaultPolicy } from '../src/policy/defaults.js';
import { createGroupMembership } from '../src/policy/groups.js';
import { parsePolicy } from '../src/policy/load.js';
import { OPERATION_IDS } from '../src/policy/operation-ids.js';
import type { Policy } from '../src/policy/schema.js';
import { createPolicyStore } from '../src/policy/store.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { createLogger } from '../src/telemetry/log.js';
import { pinnedClock } from './support/clock.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const readme = read('README.md');

/** `docker run --env-file` rules: one KEY=VALUE a line, taken literally; `#` lines are comments. */
function parseEnvFile(text: string): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trimStart();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) problems.push(`line ${index + 1} is not KEY=VALUE: ${raw}`);
    else if (match[1]! in env) problems.push(`line ${index + 1} repeats ${match[1]}`);
    else env[match[1]!] = match[2]!;
  }
  return { env, problems };
}

/** The fenced block of `language` in the README section that starts with `heading`. */
function readmeBlock(heading: string, language: string, containing = ''): string {
  const start = readme.indexOf(`${heading}\n`);
  expect(start, `README has "${heading}"`).toBeGreaterThan(-1);
  const blocks = readme.slice(start).matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'));
  for (const [, body] of blocks) if (body!.includes(containing)) return body!;
  throw new Error(`no ${language} block containing "${containing}" after ${heading}`);
}

describe('.env.example', () => {
  const { env, problems } = parseEnvFile(read('.env.example'));

  it('is a valid docker --env-file: KEY=VALUE lines, no quotes around values', () => {
    expect(problems).toEqual([]);
    for (const [key, value] of Object.entries(env)) expect(value, key).not.toMatch(/^["']|["']$|^\s|\s$/);
  });

  it('lists every variable the configuration reads, and only those', () => {
    expect(Object.keys(env).sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('starts the bot in the mode manifest.yml sets the app up for, with the example policy once copied', () => {
    const manifest = YAML.parse(read('manifest.yml')) as { settings: { socket_mode_enabled: boolean } };
    const config = loadConfig(env, (file) => file === 'edgeops.policy.yml');
    expect(config.mode).toBe(manifest.settings.socket_mode_enabled ? 'socket' : 'http');
    expect(config.mode).toBe('socket');
    expect(config.policyPath).toBe('edgeops.policy.yml');
    expect(config.stateDatabase.url).toBe('file:data/edgeops.db');
    expect(config.port).toBe(3000);
  });

  it('switches to HTTP mode as its comment says: the app token emptied, a signing secret set', () => {
    const http = { ...env, SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: 'your-signing-secret' };
    expect(loadConfig(http, () => false).mode).toBe('http');
  });

  it('holds placeholders, not credentials', () => {
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'PLATFORM_API_KEY'])
      expect(env[name], name).toMatch(/your-/);
    expect(env.PLATFORM_API_URL).toMatch(/\.example\.net$/);
  });
});

describe('edgeops.policy.example.yml', () => {
  const text = read('edgeops.policy.example.yml');

  it("parses with the product's own policy loader", () => {
    const parsed = parsePolicy(text, 'edgeops.policy.example.yml');
    expect(parsed).toMatchObject({ ok: true });
  });

  it("is the README's example policy", () => {
    const fromReadme = parsePolicy(readmeBlock('## Access policy', 'yaml'), 'example');
    const fromFile = parsePolicy(text, 'example');
    expect(fromReadme.ok).toBe(true);
    expect(fromFile).toEqual(fromReadme);
  });

  /** The example as the bot decides with it, a member of its on-call group included. */
  function exampleAuthorizer() {
    const parsed = parsePolicy(text, 'edgeops.policy.example.yml');
    if (!parsed.ok) throw new Error(parsed.error);
    const policy: Policy = parsed.policy;
    const groups = createGroupMembership({
      now: pinnedClock(),
      fetchMembers: async (groupId) => (groupId === 'S0ONCALL' ? ['U0DAVE'] : []),
    });
    const store = {
      current: () => policy,
      source: 'example',
      reload: () => true,
      generation: () => 1,
      close: () => undefined,
    };
    return { policy, authorizer: createPolicyAuthorizer(store, groups) };
  }

  it('grants every operation to someone, in a channel where /edge answers', async () => {
    const { policy, authorizer } = exampleAuthorizer();
    const people = [...new Set(Object.values(policy.roles).flat())].filter((id) => /^[UW]/.test(id));
    const channels = policy.channels ?? [];
    expect(channels.length).toBeGreaterThan(0);
    const nobody: string[] = [];
    for (const operation of OPERATION_IDS) {
      let someone = false;
      for (const userId of [...people, 'U0DAVE'])
        for (const channelId of channels)
          if ((await authorizer.decide(operation, { userId, channelId })).allowed) someone = true;
      if (!someone) nobody.push(operation);
    }
    expect(nobody, 'operations the example grants to nobody').toEqual([]);
  });

  it('lets its approvers list the requests waiting in its own approvals channel', async () => {
    const { policy, authorizer } = exampleAuthorizer();
    const channelId = policy.approvals.channel;
    expect(channelId).toBeDefined();
    for (const userId of policy.roles.leads ?? []) {
      const decision = await authorizer.decide('approvals.list', { userId, channelId: channelId! });
      expect(decision, `${userId} in ${channelId}`).toMatchObject({ allowed: true });
    }
  });

  it('is what the policy store loads from the file at start-up', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeops-example-policy-'));
    try {
      const file = path.join(dir, 'edgeops.policy.yml');
      writeFileSync(file, text);
      const logger = createLogger({ level: 'error', secrets: new SecretRegistry(), clock: pinnedClock() });
      const store = createPolicyStore({ path: file, fallback: createDefaultPolicy(), logger, watch: false });
      try {
        const policy = store.current();
        expect(policy.channels).toEqual(['C0OPS', 'C0INCIDENT', 'C0APPROVALS']);
        expect(Object.keys(policy.roles).sort()).toEqual(['everyone', 'leads', 'oncall']);
        expect(store.source).toBe(file);
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the README's Docker commands", () => {
  const commands = readmeBlock('### Docker', 'sh', 'docker run');
  const workdir = /^WORKDIR\s+(\S+)\s*$/gm;
  const appDir = [...read('Dockerfile').matchAll(workdir)].at(-1)?.[1];

  it('start from the two example files', () => {
    expect(commands).toMatch(/^cp \.env\.example \.env\b/m);
    expect(commands).toMatch(/^cp edgeops\.policy\.example\.yml edgeops\.policy\.yml\b/m);
  });

  it('pass the environment file and mount the policy where the bot looks for it by default', () => {
    const run = commands.slice(commands.indexOf('docker run')).replace(/\\\n\s*/g, ' ');
    expect(run).toContain('--env-file .env');
    expect(appDir).toBe('/app');
    expect(run).toContain(`:${appDir}/edgeops.policy.yml:ro`);
    expect(run).toMatch(new RegExp(`-v \\S+:${appDir}/data\\b`));
    expect(run).toMatch(/-p 3000:3000/);
    expect(run.trim().endsWith(' edgeops')).toBe(true);
  });
});
