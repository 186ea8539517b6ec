import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { createLogger, SecretRegistry } from '../src/log.js';
import { createDefaultPolicy } from '../src/policy/defaults.js';
import { parsePolicy } from '../src/policy/load.js';
import { createPolicyStore } from '../src/policy/store.js';
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

  it('starts the bot in HTTP mode with the example policy once copied, as the README says', () => {
    const config = loadConfig(env, (file) => file === 'edgeops.policy.yml');
    expect(config.mode).toBe('http');
    expect(config.policyPath).toBe('edgeops.policy.yml');
    expect(config.stateDatabase.url).toBe('file:data/edgeops.db');
    expect(config.port).toBe(3000);
  });

  it('holds placeholders, not credentials', () => {
    for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'PLATFORM_API_KEY'])
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

  it('is what the policy store loads from the file at start-up', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeops-example-policy-'));
    try {
      const file = path.join(dir, 'edgeops.policy.yml');
      writeFileSync(file, text);
      const logger = createLogger({ level: 'error', secrets: new SecretRegistry(), clock: pinnedClock() });
      const store = createPolicyStore({ path: file, fallback: createDefaultPolicy(), logger, watch: false });
      try {
        const policy = store.current();
        expect(policy.channels).toEqual(['C0OPS', 'C0INCIDENT']);
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
