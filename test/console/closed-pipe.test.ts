/**
 * `npm start 2>&1 | head -5`: when whatever reads the console's output goes away, the process
 * leaves at once, with exit code 0, writing nothing more and leaving no temporary folder behind.
 * It used to log the EPIPE as an uncaught exception to the closed pipe, fail again, and spin a
 * core for ever.
 *
 * The real entry point runs as a child process whose output goes into a real `head -c`, which
 * closes the pipe after a few bytes. Every wait is bounded: a process that does not leave is
 * killed, and its CPU time is reported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
/** How long the console may take to notice the closed pipe and leave. */
const LEAVE_BOUND_MS = 15_000;
/** How long the console may take to start and fill the reader with its banner. */
const START_BOUND_MS = 20_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function exited(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
}

/** CPU seconds a process has used so far (Linux /proc), to say whether a stuck process spins. */
function cpuSeconds(pid: number | undefined): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return undefined;
  // utime and stime are fields 14 and 15, counted after the parenthesised command name.
  const fields = readFileSync(stat, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits for `child` to exit; past `boundMs` it is killed and the failure says how busy it was. */
async function exitWithin(child: ChildProcess, boundMs: number, what: string): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), boundMs);
  });
  const result = await Promise.race([exited(child), late]);
  clearTimeout(timer);
  if (result !== 'late') return result;
  const before = cpuSeconds(child.pid);
  await new Promise((done) => setTimeout(done, 1_000));
  const after = cpuSeconds(child.pid);
  child.kill('SIGKILL');
  await exited(child);
  const busy =
    before !== undefined && after !== undefined
      ? ` (it used ${(after - before).toFixed(2)} s of CPU in the last second)`
      : '';
  throw new Error(`${what} did not exit within ${boundMs / 1000} s${busy}`);
}

/**
 * Starts `head -c BYTES` and the console with its stdout (and with `stderrToo`, its stderr) going
 * into head, as `npm start [2>&1] | head -c BYTES` does.
 */
function consoleIntoHead(bytes: number, stderrToo: boolean) {
  const cwd = mkdtempSync(join(tmpdir(), 'edgeops-closed-pipe-'));
  const tmp = join(cwd, 'tmp');
  mkdirSync(tmp);
  const head = spawn('head', ['-c', String(bytes)], { stdio: ['pipe', 'pipe', 'ignore'] });
  let read = '';
  head.stdout.on('data', (chunk: Buffer) => {
    read += chunk.toString('utf8');
  });
  const app = spawn(process.execPath, ['--import', tsxLoader, join(repo, 'src/main.ts')], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      TMPDIR: tmp,
      STATE_DATABASE_URL: `file:${join(cwd, 'state.db')}`,
    },
    stdio: ['pipe', head.stdin, stderrToo ? head.stdin : 'pipe'],
  });
  // Only the console and head hold the pipe now: when head leaves, the console's writes fail.
  head.stdin.destroy();
  let stderr = '';
  app.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  cleanups.push(() => {
    app.kill('SIGKILL');
    head.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  });
  // The console's own folders in its temporary folder: the session's and the sandbox's.
  const leftovers = () => readdirSync(tmp).filter((name) => /^edgeops-(console|sandbox)-/.test(name));
  return { app, head, read: () => read, stderr: () => stderr, leftovers };
}

describe('a closed output pipe ends the console', () => {
  it.each([
    ['stdout goes into head -c 40', false],
    ['stdout and stderr go into head -c 40 (npm start 2>&1 | head)', true],
  ])(
    '%s: the console leaves with exit code 0 as soon as it writes again, without its temporary folders',
    async (_name, stderrToo) => {
      const { app, head, read, stderr, leftovers } = consoleIntoHead(40, stderrToo);
      // head takes the first 40 bytes of the banner and closes the pipe.
      await exitWithin(head, START_BOUND_MS, 'head');
      expect(read()).toMatch(/^edgeops console/);
      // The console still waits for input; the next thing it writes meets the closed pipe.
      app.stdin?.write('/edge help\n');
      const exit = await exitWithin(app, LEAVE_BOUND_MS, 'the console');
      expect(exit).toEqual({ code: 0, signal: null });
      // Nothing more is written: no "uncaught exception" line about the pipe.
      expect(stderr()).toBe('');
      expect(leftovers()).toEqual([]);
    },
    60_000,
  );
});
