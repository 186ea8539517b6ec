import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

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
