/**
 * Issue 30's row: `/edge logs ID --last 1h` asked again 30 s (of the bot's clock) after the first
 * time, on a pull zone with 1,000,000 entries a day, against the first time. The first reads today
 * so far and all of yesterday from the sandbox over HTTP; the second is answered from the kept
 * days, reading only the hours it counts. Both run the whole engine: plan, summary, chart, CSV.
 * Run alone: `npx tsx bench/logs-repeat.ts`.
 */
import { isMain } from './child.js';
import type { BenchRow } from './types.js';

const ZONE = 308006;
const ENTRIES = 1_000_000;
const TARGET = 0.2;

export async function benchLogsRepeat(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  // Imported here: the runner loads every bench module before it runs any.
  const { headlineIn, startEngineTestbed } = await import('../test/support/engine.js');
  const bed = await startEngineTestbed();
  try {
    bed.clock.set('2026-11-21T14:20:00.000Z');
    bed.sandbox.knobs.setLogDay(ZONE, ENTRIES);
    const ask = async (channelId: string) => {
      const before = bed.sandbox.requests.count('logs.origin');
      const started = performance.now();
      const records = await bed.run(`logs ${ZONE} --last 1h`, { channelId });
      const ms = performance.now() - started;
      headlineIn(records);
      return { ms, calls: bed.sandbox.requests.count('logs.origin') - before };
    };
    const first = await ask('C0BENCH1');
    bed.clock.advance(30_000);
    const second = await ask('C0BENCH2');
    log(
      `logs-repeat: first ${Math.round(first.ms)} ms (${first.calls} day downloads), again 30 s later ${Math.round(second.ms)} ms (${second.calls} downloads, ${Math.round(bed.runtime.services.keptDays.keptBytes() / 1024 ** 2)} MB kept)`,
    );
    const ratio = second.ms / first.ms;
    return [
      {
        figure: '/edge logs --last 1h asked again 30 s later, 1,000,000 entries a day (ms)',
        value: Math.round(second.ms),
        baseline: Math.round(first.ms),
        ratio,
        target: `≤ ${TARGET}× the first`,
        pass: ratio <= TARGET && second.calls === 0,
      },
    ];
  } finally {
    await bed.close();
  }
}

if (isMain(import.meta.url)) {
  const rows = await benchLogsRepeat((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}
