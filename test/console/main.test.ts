import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function runConsole(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, join(repo, 'src/main.ts')], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(script);
  });
}

it('runs `/edge dns` piped into the real entry point without Slack credentials, and exits 0', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'edgeops-console-main-'));
  try {
    // A clean environment: no SLACK_* variables, no platform, state in the temporary folder.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      STATE_DATABASE_URL: `file:${join(cwd, 'state.db')}`,
    };
    const result = await runConsole('/edge dns\n:quit\n', cwd, env);
    expect(result.code, result.stderr).toBe(0);
    const [first, second] = result.stdout.split('\n');
    expect(`${first}\n${second}`).toMatch(/using the built-in sandbox platform at http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stdout).toContain('edge> /edge dns');
    expect(result.stdout).toContain('DNS zones (11)');
    expect(result.stdout).toContain('edgeops.dev');
    expect(result.stdout).not.toContain('"level"');
    expect(result.stderr).toBe('');
    expect(readFileSync(join(cwd, 'data', 'edgeops-console.log'), 'utf8')).toContain('console mode');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 25_000);

it('runs the README walkthrough twice: against the sandbox each run starts with a fresh state database', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'edgeops-console-twice-'));
  try {
    // No STATE_DATABASE_URL: the default would keep the first run's request, and lock the pull zone.
    const env = { PATH: process.env.PATH ?? '', HOME: cwd };
    const script = '/edge pullzone reset-key 308006 rotated\n:quit\n';
    const runs = [await runConsole(script, cwd, env), await runConsole(script, cwd, env)];
    for (const [i, result] of runs.entries()) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout, `run ${i + 1}`).not.toContain('There is already an open request');
      expect(result.stdout, `run ${i + 1}`).toContain('Approval requested');
    }
    for (const result of runs) expect(result.stdout).toContain('a fresh state database for this session');
    expect(existsSync(join(cwd, 'data', 'edgeops.db'))).toBe(false);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 50_000);

/** The console's own folders in a temporary folder: the session's and the sandbox's. */
const leftovers = (dir: string) =>
  readdirSync(dir).filter((name) => /^edgeops-(console|sandbox)-/.test(name));

/**
 * The real entry point with its input left open and its system temporary folder `tmp`, for a
 * signal to end it. A console that does not end is killed, so that the test fails rather than hangs.
 */
function startConsoleProcess(cwd: string, tmp: string) {
  const child = spawn(process.execPath, ['--import', tsxLoader, join(repo, 'src/main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, TMPDIR: tmp },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal });
    }),
  );
  /** Resolves once stdout matches; fails if the console ends first. */
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(stdout)) return;
        watchers.delete(check);
        resolve(stdout);
      };
      watchers.add(check);
      check();
      void closed.then(() => {
        watchers.delete(check);
        reject(new Error(`the console ended before ${pattern}:\n${stdout}\n${stderr}`));
      });
    });
  return { child, waitFor, closed, stdout: () => stdout, stderr: () => stderr };
}

describe('a signal ends the console as :quit does', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s at the prompt: the console says goodbye, exits 0, and its temporary folders are gone',
    async (signal) => {
      const cwd = mkdtempSync(join(tmpdir(), 'edgeops-console-signal-'));
      const tmp = join(cwd, 'tmp');
      mkdirSync(tmp);
      try {
        const app = startConsoleProcess(cwd, tmp);
        await app.waitFor(/edge> $/);
        expect(leftovers(tmp)).not.toEqual([]);
        app.child.kill(signal);
        expect(await app.closed, app.stderr()).toEqual({ code: 0, signal: null });
        expect(app.stdout()).toMatch(/Bye\.\n$/);
        expect(leftovers(tmp)).toEqual([]);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    45_000,
  );

  it('SIGTERM during a download cancels it, and the console leaves without its temporary folders', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'edgeops-console-signal-'));
    const tmp = join(cwd, 'tmp');
    mkdirSync(tmp);
    try {
      const app = startConsoleProcess(cwd, tmp);
      const banner = await app.waitFor(/edge> $/);
      const sandbox = /built-in sandbox platform at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1];
      // The day's download never answers: only a cancel ends it.
      const fault = await fetch(`${sandbox}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ route: 'logs.origin', delayMs: 600_000 }),
      });
      expect(fault.status).toBe(204);
      app.child.stdin.write('/edge logs 308006 today\n');
      // Its progress message, with its Cancel button, says the download is under way.
      await app.waitFor(/\[\d+\] Cancel/);
      app.child.kill('SIGTERM');
      expect(await app.closed, app.stderr()).toEqual({ code: 0, signal: null });
      expect(app.stdout()).toContain('was cancelled.');
      expect(leftovers(tmp)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 45_000);
});
