/**
 * Each side of a benchmark runs in a fresh Node process, so its peak RSS (getrusage maxrss)
 * is its own and not what the other side, or the bench itself, left on the heap.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChildMeasurement } from './types.js';

/**
 * What the Dockerfile's ENV sets for the process's memory: every measured side runs with it, as
 * the bot does in its image (test/dockerfile.test.ts keeps the two the same). `--expose-gc` lets
 * the bot's event loop collect the socket buffers of a long body (src/reports/young-collection.ts).
 */
export const IMAGE_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  NODE_OPTIONS: '--expose-gc',
};

/** IMAGE_ENV, each variable overridden by this process's own: `MALLOC_ARENA_MAX=16 npm run bench` measures without the cap. */
export function imageEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(IMAGE_ENV).map(([name, value]) => [name, process.env[name] ?? value]),
  );
}

/**
 * Runs `script` with `args` (a .ts file under tsx, a .js file as is), with imageEnv() and `env`
 * added to this process's environment; resolves with what it printed last.
 */
export function measureInChild(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ChildMeasurement> {
  const loader = script.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loader, script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...imageEnv(), ...env },
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      out += text;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} exited with ${code}`));
      const last = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(last) as ChildMeasurement);
      } catch {
        reject(new Error(`${script} ${args.join(' ')} printed no measurement: ${last.slice(0, 200)}`));
      }
    });
  });
}

/**
 * This process's own peak RSS. On Linux getrusage's maxrss survives exec: a child spawned by a
 * larger parent reports the parent's size (a 39 MB child of a 640 MB parent says 604 MB), so the
 * high-water mark of this process's own memory (VmHWM) is read where the system offers it.
 */
function peakRss(): number {
  try {
    const kilobytes = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kilobytes) return Number(kilobytes) * 1024;
  } catch {
    // No /proc here: getrusage is the best there is.
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * CPU time (user and system, ms) of each thread of this process by its id, where the system
 * shows it (Linux: /proc/self/task, in 10 ms ticks); empty elsewhere. The main thread's id is
 * the process id.
 */
export function threadCpuMs(): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // After the command name (in parentheses, maybe with spaces): utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {
    // No /proc here: no split by thread.
  }
  return threads;
}

/**
 * Of the CPU time threads spent since `before` (threadCpuMs()), the main thread's and the
 * busiest other one's: for a report, the event loop and the report worker.
 */
export function threadSplit(
  before: Map<number, number>,
): { mainMs: number; busiestOtherMs: number } | undefined {
  const after = threadCpuMs();
  if (after.size === 0) return undefined;
  let busiestOtherMs = 0;
  for (const [tid, ms] of after)
    if (tid !== process.pid) busiestOtherMs = Math.max(busiestOtherMs, ms - (before.get(tid) ?? 0));
  return { mainMs: (after.get(process.pid) ?? 0) - (before.get(process.pid) ?? 0), busiestOtherMs };
}

/** The last line a measuring child prints. */
export function reportMeasurement(measurement: Omit<ChildMeasurement, 'peakRssBytes'>): void {
  process.stdout.write(`${JSON.stringify({ ...measurement, peakRssBytes: peakRss() })}\n`);
}

/**
 * True when `moduleUrl` is the script Node was started with (`npx tsx bench/x.ts`). Node names a
 * module by its real path, so the script is compared by its real path too: below a linked
 * node_modules (a second checkout sharing one), the two differ by the link.
 */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  return real(fileURLToPath(moduleUrl)) === real(entry);
}
