import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IMAGE_ENV } from '../bench/child.js';
import { loadConfig } from '../src/config.js';
import { type Harness, startHarness } from './support/harness.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  if (pending) logical.push(pending);
  return logical
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [keyword = '', ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** Instructions grouped by stage, each starting with its FROM. */
function stagesOf(instructions: Instruction[]): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** Variable names an ENV or ARG instruction defines (`A=1 B=2`, `A 1`, `NAME`). */
function definedNames(instruction: Instruction): string[] {
  if (instruction.args.includes('='))
    return [...instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!);
  return [instruction.args.split(/\s+/)[0] ?? ''];
}

const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(dockerfile);
const stages = stagesOf(instructions);
const finalStage = stages.at(-1) ?? [];
const inFinal = (keyword: string) => finalStage.filter((i) => i.keyword === keyword);

/** NAME=value pairs of the final stage's ENV instructions (unquoted values, as this file writes them). */
function finalEnv(): Map<string, string> {
  const env = new Map<string, string>();
  for (const instruction of inFinal('ENV'))
    for (const [, name, value] of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g))
      env.set(name!, value!);
  return env;
}

describe('the Dockerfile', () => {
  it('sets the memory environment the benchmarks measure the bot with', () => {
    const env = finalEnv();
    expect(Object.keys(IMAGE_ENV).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(IMAGE_ENV)) expect(env.get(name), name).toBe(value);
    // The event loop's young collections need V8's collector (src/reports/young-collection.ts).
    expect(env.get('NODE_OPTIONS')?.split(/\s+/)).toContain('--expose-gc');
  });

  it('has a build stage and a runtime stage, all on the Node 24 LTS slim image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      const image = stage[0]!.args.split(/\s+/)[0];
      expect(image).toMatch(/^node:24(\.\d+){0,2}-(trixie|bookworm)-slim$/);
    }
    // The build compiles with the same Node that runs the result.
    expect(new Set(stages.map((stage) => stage[0]!.args.split(/\s+/)[0])).size).toBe(1);
  });

  it('builds dist/ with the dev dependencies in an earlier stage', () => {
    const build = stages.slice(0, -1).flat();
    expect(
      build.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args) && !i.args.includes('--omit=dev')),
    ).toBe(true);
    expect(build.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(true);
  });

  it('installs production dependencies only in the final stage and copies just dist/ from the build', () => {
    const installs = inFinal('RUN').filter((i) => /\bnpm (ci|install)\b/.test(i.args));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install.args).toContain('--omit=dev');
    const copies = inFinal('COPY');
    expect(copies.some((i) => /--from=\S+\s+\/app\/dist\s+\.\/dist/.test(i.args))).toBe(true);
    expect(copies.some((i) => /(^|\s)(\.\/)?src(\/|\s|$)/.test(i.args))).toBe(false);
  });

  it('runs as a numeric non-root user in production mode', () => {
    const users = inFinal('USER');
    expect(users.length).toBeGreaterThan(0);
    const [user = '', group] = users.at(-1)!.args.split(':');
    // Numeric, so that Kubernetes' runAsNonRoot can check it; 0 is root whatever it is called.
    expect(user).toMatch(/^[1-9]\d*$/);
    if (group !== undefined) expect(group).toMatch(/^[1-9]\d*$/);
    expect(inFinal('ENV').some((i) => /\bNODE_ENV=production\b/.test(i.args))).toBe(true);
  });

  it('lets that user write data/ and out/, and nothing else of the application', () => {
    const user = inFinal('USER').at(-1)!.args;
    const chowns = inFinal('RUN').flatMap((i) =>
      [...i.args.matchAll(/\bchown\s+(?:-R\s+)?(\S+)\s+([^&;|]+)/g)].map((m) => ({
        owner: m[1]!,
        paths: m[2]!.trim().split(/\s+/),
      })),
    );
    const owned = chowns.filter((c) => c.owner === user).flatMap((c) => c.paths);
    expect(owned.sort()).toEqual(['/app/data', '/app/out']);
    expect(chowns.every((c) => c.owner === user)).toBe(true);
    // Created before the switch to the user, who could not create them under a root-owned /app.
    const userAt = finalStage.lastIndexOf(inFinal('USER').at(-1)!);
    const chownAt = finalStage.findIndex((i) => i.keyword === 'RUN' && /\bchown\b/.test(i.args));
    expect(chownAt).toBeGreaterThan(-1);
    expect(chownAt).toBeLessThan(userAt);
    expect(finalStage[chownAt]!.args).toMatch(/\bmkdir -p \/app\/data \/app\/out\b/);
  });

  it('keeps the compile cache where the process user can write it', () => {
    const env = inFinal('ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bNODE_COMPILE_CACHE=\/tmp\/\S+/);
  });

  it('keeps the state database on a volume under its working directory', () => {
    expect(inFinal('WORKDIR').at(-1)?.args).toBe('/app');
    const volumes = inFinal('VOLUME').flatMap((i) => i.args.replace(/[[\]",]/g, ' ').split(/\s+/));
    expect(volumes).toContain('/app/data');
  });

  it('exposes port 3000 and probes /healthz with node, since the slim image has no curl', () => {
    expect(inFinal('EXPOSE').flatMap((i) => i.args.split(/\s+/))).toContain('3000');
    const healthchecks = inFinal('HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    const args = healthchecks[0]!.args;
    expect(args).toMatch(/CMD\s+\[\s*"node"/);
    expect(args).toContain('http://127.0.0.1:');
    expect(args).toContain('process.env.PORT || 3000');
    expect(args).toContain('/healthz');
    expect(args).not.toMatch(/\b(curl|wget)\b/);
    const exec = JSON.parse(args.slice(args.indexOf('['))) as string[];
    expect(exec.slice(0, 2)).toEqual(['node', '-e']);
  });

  it('exposes the metrics port beside the public one, as the configuration defaults them', () => {
    const exposed = inFinal('EXPOSE').flatMap((i) => i.args.split(/\s+/));
    const defaults = loadConfig({}, () => false);
    expect(exposed.sort()).toEqual([String(defaults.port), String(defaults.metricsPort)].sort());
    expect(exposed).toContain('9090');
  });

  it('bounds the probe: the fetch gives up before Docker kills it', () => {
    const args = inFinal('HEALTHCHECK')[0]!.args;
    const seconds = (flag: string) => Number(new RegExp(`--${flag}=(\\d+)s\\b`).exec(args)?.[1]);
    expect(seconds('interval')).toBeGreaterThan(0);
    expect(seconds('start-period')).toBeGreaterThan(0);
    const abortMs = Number(/AbortSignal\.timeout\((\d+)\)/.exec(args)?.[1]);
    expect(abortMs).toBeGreaterThan(0);
    expect(abortMs).toBeLessThan(seconds('timeout') * 1000);
  });

  it('starts the compiled entry point directly, without tsx or npm', () => {
    const cmd = inFinal('CMD').at(-1);
    expect(JSON.parse(cmd?.args ?? 'null')).toEqual(['node', 'dist/main.js']);
    expect(inFinal('ENTRYPOINT')).toEqual([]);
  });

  it('bakes in no secret', () => {
    const defined = instructions
      .filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')
      .flatMap(definedNames);
    expect(defined.length).toBeGreaterThan(0);
    for (const name of defined) expect(name).not.toMatch(/TOKEN|SECRET|KEY|PASSWORD/i);
    expect(dockerfile).not.toMatch(/xox[abp]-|xapp-/);
  });
});

describe("the image's health check", () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
  });

  /** Runs the HEALTHCHECK's command as Docker would, with the container's PORT; resolves with its exit code. */
  async function probe(port: number): Promise<number | null> {
    const args = inFinal('HEALTHCHECK')[0]!.args;
    const [command, ...rest] = JSON.parse(args.slice(args.indexOf('['))) as string[];
    expect(command).toBe('node');
    const child = spawn(process.execPath, rest, {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    return code;
  }

  it("passes against the bot's public port, in HTTP mode where metrics are no longer served there", async () => {
    h = await startHarness();
    expect(await probe(h.slack.port)).toBe(0);
    expect((await fetch(`${h.baseUrl}/metrics`)).status).toBe(404);
  });

  it('fails when /healthz there answers anything but 2xx', async () => {
    const failing = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((listening) => failing.listen(0, '127.0.0.1', listening));
    try {
      expect(await probe((failing.address() as AddressInfo).port)).toBe(1);
    } finally {
      await new Promise((closed) => failing.close(closed));
    }
  });
});

describe('the chart renderer in the image', () => {
  const LockSchema = z.object({
    packages: z.record(
      z.string(),
      z.looseObject({
        version: z.string().optional(),
        dev: z.boolean().optional(),
        optional: z.boolean().optional(),
        hasInstallScript: z.boolean().optional(),
        os: z.array(z.string()).optional(),
        cpu: z.array(z.string()).optional(),
        libc: z.array(z.string()).optional(),
        optionalDependencies: z.record(z.string(), z.string()).optional(),
      }),
    ),
  });
  const lock = LockSchema.parse(JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')));
  const entry = (name: string) => lock.packages[`node_modules/${name}`];
  const image = finalStage[0]!.args.split(/\s+/)[0]!;
  // Debian-based Node images use glibc; only the Alpine ones use musl.
  const libc = /alpine/.test(image) ? 'musl' : 'glibc';

  it('installs with npm ci alone: a prebuilt binary for the image, no install script', () => {
    const resvg = entry('@resvg/resvg-js');
    expect(resvg?.dev).toBeUndefined();
    expect(resvg?.hasInstallScript).toBeUndefined();
    // The image runs on amd64 and arm64 hosts: each has its binary for the image's libc.
    for (const [cpu, suffix] of [
      ['x64', 'x64'],
      ['arm64', 'arm64'],
    ] as const) {
      const name = `@resvg/resvg-js-linux-${suffix}-${libc === 'glibc' ? 'gnu' : 'musl'}`;
      expect(resvg?.optionalDependencies?.[name], name).toBe(resvg?.version);
      const binary = entry(name);
      expect(binary, `${name} in the lockfile`).toBeDefined();
      expect(binary).toMatchObject({ optional: true, os: ['linux'], cpu: [cpu], libc: [libc] });
      expect(binary?.hasInstallScript).toBeUndefined();
    }
  });

  it('has its font in a production dependency, which --omit=dev keeps', () => {
    const font = entry('@expo-google-fonts/inter');
    expect(font).toBeDefined();
    expect(font?.dev).toBeUndefined();
    expect(font?.hasInstallScript).toBeUndefined();
  });
});

describe('what the image leaves out', () => {
  const Dependencies = z.record(z.string(), z.string());
  const manifest = z
    .object({ scripts: Dependencies, dependencies: Dependencies, devDependencies: Dependencies })
    .parse(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')));
  const lock = z
    .object({ packages: z.record(z.string(), z.looseObject({ dev: z.boolean().optional() })) })
    .parse(JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')));

  it('tsx and the esbuild under it: the image runs dist/, and npm ci still installs them for npm start', () => {
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
    expect(manifest.devDependencies.tsx).toBeDefined();
    expect(manifest.scripts.start).toMatch(/^tsx --expose-gc src\/main\.ts$/);
    for (const name of ['tsx', 'esbuild'])
      expect(lock.packages[`node_modules/${name}`]?.dev, name).toBe(true);
  });
});

describe('the .dockerignore', () => {
  const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('keeps local dependencies, builds, databases and environment files out of the context', () => {
    for (const entry of ['node_modules', 'dist', 'data', '.git', '.env', '*.db'])
      expect(ignored).toContain(entry);
  });

  it('does not exclude what the build copies', () => {
    for (const needed of [
      'src',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      expect(ignored).not.toContain(needed);
    }
  });
});

describe('the Dockerfile parser', () => {
  it('joins continuation lines and splits stages at FROM', () => {
    const parsed = parseDockerfile('FROM a AS b\n# note\nRUN one \\\n  two\n\nFROM c\nENV A=1 B=2\nARG C');
    expect(parsed).toEqual([
      { keyword: 'FROM', args: 'a AS b' },
      { keyword: 'RUN', args: 'one two' },
      { keyword: 'FROM', args: 'c' },
      { keyword: 'ENV', args: 'A=1 B=2' },
      { keyword: 'ARG', args: 'C' },
    ]);
    expect(stagesOf(parsed).map((stage) => stage.length)).toEqual([2, 3]);
    expect(definedNames(parsed[3]!)).toEqual(['A', 'B']);
    expect(definedNames(parsed[4]!)).toEqual(['C']);
  });
});
