/**
 * Acknowledgement latency measured like load, not like a stress test: signed `/edge help`
 * requests arrive as a Poisson process at a fixed offered rate, whether or not earlier ones
 * were answered (an open loop), so what is measured is what a user waits for, not the CPU time
 * per request that a saturating closed loop measures.
 * - ack-open: p50 and p99 of the bot against the bare Bolt app at 20, 50, 100 and 200 commands/s,
 *   in alternating rounds of the same run, at least 5,000 samples per side and rate; target
 *   p99 ≤ 1.2× bare at 50/s and at 100/s. The answering side below runs in the same rounds, so
 *   each rate also shows the bot against an app that answers but does nothing else.
 * - capacity: the highest offered rate (stepping up) at which each side's p99 stays under 1 s
 *   and no command is answered as busy (the bot's receiving thread acknowledges `/edge` however
 *   far behind its main thread is, and answers "busy, not run" past 2,000 waiting: such a
 *   command is not served); target: the bot's ≥ 0.5× bare Bolt's. A third side, bare Bolt that posts a fixed answer the
 *   size of the bot's help to each response_url, shows what answering at all costs here: the
 *   answers land in the fake Slack, which shares the machine's cores, as the load sender does.
 * Latency counts from when a request was due, not when it was sent, so a late sender does not
 * hide a queue. Run alone: `npx tsx bench/ack-open.ts`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { type LoadResult, percentile, type SignedRequest } from './ack.js';
import { isMain } from './child.js';
import type { BenchRow } from './types.js';

/**
 * The rates measured; `EDGEOPS_BENCH_ACK_RATES=50` measures that one alone (a quick before/after of
 * one row), and `EDGEOPS_BENCH_ACK_CAPACITY=off` skips the capacity steps.
 */
const RATES: readonly number[] = process.env.EDGEOPS_BENCH_ACK_RATES
  ? process.env.EDGEOPS_BENCH_ACK_RATES.split(',').map(Number)
  : [20, 50, 100, 200];
const MEASURE_CAPACITY = process.env.EDGEOPS_BENCH_ACK_CAPACITY !== 'off';
/** Samples per side and rate, split into alternating rounds. */
const SAMPLES = 5_000;
/** Short rounds, so that a slow spell of this shared machine falls on both sides alike. */
const ROUNDS = 10;
/** Each side is warmed up at this many requests (JIT, connections, caches) before it is measured. */
const WARM_UP = 1_000;
const TARGET_RATES = [50, 100];
const TARGET_RATIO = 1.2;
/** Capacity: each step offers this many seconds of arrivals; rates double, then step by a quarter. */
const CAPACITY_STEP_SECONDS = 8;
const CAPACITY_START = 200;
/** Far above what two cores serve; bare Bolt is not capped below its own limit. */
const CAPACITY_MAX = 40_000;
const CAPACITY_P99_MS = 1_000;
/** Enough connections that the client never queues what the open loop means to send. */
const CONNECTIONS = 1_024;

type Side = 'real' | 'bare' | 'answering';
const SIDES: readonly Side[] = ['bare', 'answering', 'real'];
const CAPACITY_NAMES: Record<Side, string> = {
  real: 'bot',
  bare: 'bare Bolt',
  answering: 'bare Bolt posting a fixed answer',
};

/** Sends `requests` as Poisson arrivals at `rate` per second, each timed from when it was due. */
export async function sendOpenLoop(
  target: { pool: Pool; path: string },
  requests: readonly SignedRequest[],
  rate: number,
  random: () => number = Math.random,
): Promise<LoadResult & { refused: number }> {
  const result = { latencies: [] as number[], sentAt: [] as number[], failures: 0, refused: 0 };
  const start = performance.now();
  let due = start;
  const inFlight: Promise<void>[] = [];
  for (const request of requests) {
    due += (-Math.log(1 - random()) / rate) * 1000;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    // Timers fire to the millisecond: one sent before it was due counts from when it was sent.
    const dueAt = Math.min(due, performance.now());
    inFlight.push(
      target.pool
        .request({
          path: target.path,
          method: 'POST',
          headers: request.headers,
          body: request.body,
          headersTimeout: 30_000,
          bodyTimeout: 30_000,
        })
        .then(async (response) => {
          // An ack with a body is the bot's "too busy, not run" (threaded-receiver.ts): not served.
          const body = await response.body.text();
          if (response.statusCode !== 200) result.failures++;
          else if (body !== '') result.refused++;
          else {
            result.latencies.push(performance.now() - dueAt);
            result.sentAt.push(dueAt);
          }
        })
        .catch(() => {
          result.failures++;
        }),
    );
  }
  await Promise.all(inFlight);
  return result;
}

const ms = (value: number) => Math.round(value * 10) / 10;

/**
 * The highest of the stepped rates at which `target`'s p99 ack stays under 1 s with every request
 * answered and none refused as busy (0 when the first step misses).
 */
async function capacityOf(
  name: string,
  target: { pool: Pool; path: string },
  commands: (count: number) => SignedRequest[],
  log: (line: string) => void,
): Promise<number> {
  let capacity = 0;
  for (let rate = CAPACITY_START; rate <= CAPACITY_MAX; rate = rate < 1_600 ? rate * 2 : rate * 1.25) {
    const result = await sendOpenLoop(target, commands(Math.round(rate * CAPACITY_STEP_SECONDS)), rate);
    const p99 = percentile(result.latencies, 0.99);
    log(
      `capacity, ${name} at ${Math.round(rate)}/s: p99 ${ms(p99)} ms, ${result.failures} failed, ${result.refused} answered as busy`,
    );
    if (!(p99 < CAPACITY_P99_MS) || result.failures > 0 || result.refused > 0) break;
    capacity = Math.round(rate);
    // Let the queue drain before the next step.
    await sleep(2_000);
  }
  return capacity;
}

/** The mean size of the bot's answer to `/edge help`, as posted to the response_url. */
async function helpAnswerBytes(
  rig: Awaited<ReturnType<typeof import('./ack.js').ackRig>>,
  bot: { pool: Pool; path: string },
): Promise<number> {
  const before = await rig.answers();
  const sent = 50;
  await sendOpenLoop(bot, rig.commands(sent), 100);
  for (let tries = 0; tries < 100; tries++) {
    const now = await rig.answers();
    if (now.count - before.count >= sent)
      return Math.round((now.bytes - before.bytes) / (now.count - before.count));
    await sleep(100);
  }
  throw new Error('the bot did not answer /edge help through its response_url');
}

export async function benchAckOpenLoop(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  const { ackRig } = await import('./ack.js');
  const rig = await ackRig();
  const pools: Pool[] = [];
  const open = (url: string) => {
    const pool = new Pool(new URL(url).origin, { connections: CONNECTIONS });
    pools.push(pool);
    return { pool, path: new URL(url).pathname };
  };
  try {
    const measured = { real: open(rig.urls.real), bare: open(rig.urls.bare) };
    // A third side shows what answering at all costs: bare Bolt posting, after each ack, a fixed
    // answer the size of the bot's help to the response_url (to the same fake Slack).
    await sendOpenLoop(measured.real, rig.commands(WARM_UP), 200);
    const answerBytes = await helpAnswerBytes(rig, measured.real);
    const sides: Record<Side, { pool: Pool; path: string }> = {
      ...measured,
      answering: open(await rig.startAnswering(answerBytes)),
    };
    for (const side of ['bare', 'answering'] as const)
      await sendOpenLoop(sides[side], rig.commands(WARM_UP), 200);
    const rows: BenchRow[] = [];
    for (const rate of RATES) {
      const rounds: Record<Side, number[][]> = { real: [], bare: [], answering: [] };
      let failures = 0;
      let refused = 0;
      for (let round = 0; round < ROUNDS; round++)
        // Each round starts with another side, so that none always follows the same one.
        for (const side of SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!)) {
          // Signed just before they are sent: Slack's signatures are good for five minutes.
          const result = await sendOpenLoop(sides[side], rig.commands(SAMPLES / ROUNDS), rate);
          rounds[side].push(result.latencies);
          failures += result.failures;
          refused += result.refused;
        }
      const p = (side: Side, q: number) => percentile(rounds[side].flat(), q);
      const spread = (side: Side) => {
        const p99s = rounds[side].map((latencies) => percentile(latencies, 0.99));
        return `${ms(Math.min(...p99s))}–${ms(Math.max(...p99s))}`;
      };
      const ratio = p('real', 0.99) / p('bare', 0.99);
      log(
        `ack-open at ${rate}/s: bot p50 ${ms(p('real', 0.5))} ms, p99 ${ms(p('real', 0.99))} ms (p99 of its ${ROUNDS} rounds ${spread('real')} ms); ` +
          `bare Bolt p50 ${ms(p('bare', 0.5))} ms, p99 ${ms(p('bare', 0.99))} ms (rounds ${spread('bare')} ms); ` +
          `bare Bolt answering p50 ${ms(p('answering', 0.5))} ms, p99 ${ms(p('answering', 0.99))} ms (rounds ${spread('answering')} ms); ` +
          `${SIDES.map((side) => rounds[side].flat().length).join('/')} samples; ${failures} failed, ${refused} answered as busy`,
      );
      const targeted = TARGET_RATES.includes(rate);
      rows.push({
        figure: `/edge help ack p99, Poisson arrivals at ${rate}/s, bot vs bare Bolt (ms, ${SAMPLES} per side)`,
        value: ms(p('real', 0.99)),
        baseline: ms(p('bare', 0.99)),
        ratio,
        target: targeted ? `≤ ${TARGET_RATIO}× bare Bolt, every request answered` : 'reported',
        pass: targeted ? ratio <= TARGET_RATIO && failures === 0 && refused === 0 : true,
      });
      rows.push({
        figure: `/edge help ack p99 at ${rate}/s, bot vs bare Bolt that also posts a fixed ${answerBytes}-byte answer (ms)`,
        value: ms(p('real', 0.99)),
        baseline: ms(p('answering', 0.99)),
        ratio: p('real', 0.99) / p('answering', 0.99),
        target: 'reported: what answering at all costs',
        pass: true,
      });
    }

    if (!MEASURE_CAPACITY) return rows;
    const capacity: Record<Side, number> = { real: 0, bare: 0, answering: 0 };
    for (const side of SIDES)
      capacity[side] = await capacityOf(CAPACITY_NAMES[side], sides[side], rig.commands, log);
    log(
      `capacity: bot ${capacity.real}/s, bare Bolt ${capacity.bare}/s, bare Bolt posting a fixed ${answerBytes}-byte answer ${capacity.answering}/s`,
    );
    rows.push(
      {
        figure: `capacity: highest offered /edge help rate with ack p99 < 1 s and none answered as busy, bot vs bare Bolt (per second)`,
        value: capacity.real,
        baseline: capacity.bare,
        ratio: capacity.real / capacity.bare,
        target: '≥ 0.5× bare Bolt',
        pass: capacity.bare > 0 && capacity.real / capacity.bare >= 0.5,
      },
      {
        figure: `capacity: bot vs bare Bolt that also posts a fixed ${answerBytes}-byte answer, the help's size (per second)`,
        value: capacity.real,
        baseline: capacity.answering,
        ratio: capacity.real / capacity.answering,
        target: 'reported: what answering at all costs',
        pass: true,
      },
    );
    return rows;
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await rig.close();
  }
}

if (isMain(import.meta.url)) {
  console.table(await benchAckOpenLoop((line) => process.stderr.write(`${line}\n`)));
}
