/**
 * PRODUCT §8: the Shield export passes through the formula guard with peak memory flat (under
 * 150 MB) whatever its size, at 0.8× the throughput of a plain HTTP copy of the same body to a
 * file or more, and at most 1.5× its CPU time (every thread of the process, per MB of body). The export's side ends as an upload starts: with the file scrub counting the
 * bot's secrets in the file (src/slack/upload.ts), which may cost at most 10% of the throughput. A local server on 127.0.0.1 serves a generated CSV; each side downloads it in
 * its own process, from compiled JavaScript as in production, in alternating rounds so that a
 * busy moment of this shared machine touches both; the export computes the Shield summary in
 * the same pass, as the bot does. The guard is also timed in memory: alone, with the summary
 * counted from bytes (shipped), and with a summary counted from string cells (the other design).
 * Run alone: `npx tsx bench/export.ts [megabytes]`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { type CsvColumnTap, CsvFormulaGuard, type CsvGuardOptions } from '../src/reports/csv/guard.js';
import { createReportPool } from '../src/reports/pool.js';
import { writeShieldExportCsv } from '../src/reports/shield/export.js';
import { ShieldTally } from '../src/reports/shield/summary.js';
import { BoundedTally, SpaceSavingCounter } from '../src/reports/top-counts.js';
import { createFileScrub, fileSecretForms } from '../src/secrets/file-scrub.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { isMain, measureInChild, reportMeasurement, threadCpuMs, threadSplit } from './child.js';
import type { BenchRow, ChildMeasurement } from './types.js';

const MB = 1024 * 1024;
/** The export's throughput against a plain copy's, and its CPU time against the copy's: a slower core moves the first, not the second. */
const THROUGHPUT_TARGET = 0.8;
const CPU_TARGET = 1.5;
/** Rounds of plain copy and export, alternating which goes first. */
const ROUNDS = 5;
/** The columns a Shield summary (counts by action, rule, country, ASN, IP per time bucket) reads. */
const SUMMARY_COLUMNS = ['timestamp', 'ruleId', 'ruleName', 'action', 'ip', 'country', 'asn'];
const HEADER = 'timestamp,ruleId,ruleName,action,feature,ip,country,asn,ja4,method,url,userAgent\r\n';

/** About 1 MiB of event rows like the platform's, hostile cells and quoting included. */
async function rowBlock(): Promise<Buffer> {
  // Loaded here: the measured sides of the export must not carry what only the generator needs.
  const { stringify } = await import('csv-stringify/sync');
  const rows: string[][] = [];
  let size = 0;
  for (let i = 0; size < MB; i++) {
    const row = [
      new Date(Date.UTC(2026, 10, 21, 14) + i * 37).toISOString(),
      i % 7 === 0 ? '=HYPERLINK("http://evil.example","x")' : '941100',
      'XSS Attack Detected via libinjection',
      ['Block', 'Log', 'Challenge'][i % 3]!,
      'waf',
      `203.0.113.${i % 256}`,
      ['DE', 'US', 'NL', 'CN', 'BR'][i % 5]!,
      ['13335', '16509', '24940', '4134'][i % 4]!,
      't13d1516h2_8daaf6152771_02713d6af862',
      'GET',
      i % 5 === 0 ? `/search?q=${i},"quoted"` : `/assets/app.${i}.js`,
      i % 11 === 0 ? '-sqlmap/1.7' : 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36',
    ];
    rows.push(row);
    size += row.join(',').length + 2;
  }
  return Buffer.from(stringify(rows, { record_delimiter: '\r\n', quote_record_delimiter: true }));
}

/** Serves HEADER then the block, `megabytes` times, as fast as the client reads. */
async function startServer(
  megabytes: number,
): Promise<{ url: string; bodyBytes: number; close: () => void }> {
  const block = await rowBlock();
  const server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/csv' });
    Readable.from(
      (function* () {
        yield Buffer.from(HEADER);
        for (let i = 0; i < megabytes; i++) yield block;
      })(),
    ).pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/shield/event-logs/42/export`,
    bodyBytes: HEADER.length + block.length * megabytes,
    close: () => server.close(),
  };
}

/** CPU time of every thread of this process since `since`: what a saturated machine divides up. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * The largest heap, external and ArrayBuffer memory seen while a side runs (every 10 ms): what of
 * the peak RSS the JavaScript side accounts for; the rest is code, threads and freed pages.
 */
function memoryPeaks(): () => Record<string, number> {
  const peaks = { heapMb: 0, externalMb: 0, arrayBuffersMb: 0 };
  const sample = () => {
    const { heapTotal, external, arrayBuffers } = process.memoryUsage();
    peaks.heapMb = Math.max(peaks.heapMb, heapTotal / MB);
    peaks.externalMb = Math.max(peaks.externalMb, external / MB);
    peaks.arrayBuffersMb = Math.max(peaks.arrayBuffersMb, arrayBuffers / MB);
  };
  const timer = setInterval(sample, 10);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

async function plainSide(url: string, out: string): Promise<void> {
  const peaks = memoryPeaks();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { body } = await request(url, { method: 'POST' });
  await pipeline(body, createWriteStream(out));
  reportMeasurement({ ms: performance.now() - started, detail: { cpuMs: cpuMs(cpu), ...peaks() } });
}

/** The secrets a running bot holds from its start, shaped as they are: Slack's, the platform key, a database token. */
function startupSecrets(): SecretRegistry {
  const secrets = new SecretRegistry();
  const digits = () => String(1e12 + Math.floor(Math.random() * 9e12));
  secrets.add(
    `xoxb-${digits()}-${digits()}-${randomBytes(18).toString('base64url')}`,
    randomBytes(16).toString('hex'),
    `xapp-1-A0${digits()}-${digits()}-${randomBytes(32).toString('hex')}`,
    `${randomUUID()}${randomUUID()}`,
    `eyJ${randomBytes(150).toString('base64url')}`,
  );
  return secrets;
}

/**
 * The export as the bot runs it, up to the upload's first request: the report thread counts the
 * bot's secrets in the file as it writes it, and the upload takes that count (`scrubbed`); or the
 * export with no file scrub at all, to measure what the scrub costs.
 */
async function oursSide(url: string, out: string, scrubbed: boolean): Promise<void> {
  const peaks = memoryPeaks();
  const pool = createReportPool();
  const registry = startupSecrets();
  const scrub = createFileScrub(registry);
  const secrets = scrubbed ? fileSecretForms(registry) : undefined;
  // A running bot has its worker thread up already: start it before the clock does.
  const warmUp = `${out}.warm-up`;
  const warm = await writeShieldExportCsv({
    source: Readable.from([Buffer.from('a,b\r\n')]),
    path: warmUp,
    pool,
    secrets,
  });
  if (scrubbed) await scrub.count(warmUp, warm.secretCount);
  // The bot's file is new and empty when the export starts (temporaryCsvPath).
  await writeFile(out, '', { flag: 'wx', mode: 0o600 });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const threads = threadCpuMs();
  const { body } = await request(url, { method: 'POST' });
  const result = await writeShieldExportCsv({ source: body, path: out, pool, secrets });
  // What an upload does before the bytes go: the secrets in the file and its masked length.
  const counted = scrubbed ? await scrub.count(out, result.secretCount) : { masked: 0 };
  if (scrubbed && result.secretCount === undefined) throw new Error('the export counted no secret');
  const ms = performance.now() - started;
  const used = cpuMs(cpu);
  const split = threadSplit(threads);
  await pool.close();
  reportMeasurement({
    ms,
    detail: {
      rows: result.rows,
      bytes: result.bytes,
      cpuMs: used,
      masked: counted.masked,
      ...split,
      ...peaks(),
    },
  });
}

/**
 * The summary computed from string cells, as a design to measure the shipped one against: the
 * guard's column tap makes a string of every named cell, counted in Maps as top-counts.ts does.
 */
function stringSummary(): CsvColumnTap {
  const labels = SUMMARY_COLUMNS.slice(1).map(() => new BoundedTally(1_000));
  const ips = new SpaceSavingCounter(2_000);
  const minutes = new Map<number, number>();
  const ipAt = SUMMARY_COLUMNS.indexOf('ip');
  return {
    columns: SUMMARY_COLUMNS,
    onRow: ([timestamp = '', ...rest]) => {
      const minute = Math.floor(Date.parse(timestamp) / 60_000);
      minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
      rest.forEach((cell, i) => {
        if (i + 1 === ipAt) ips.add(cell);
        else labels[i]!.add(cell);
      });
    },
  };
}

/**
 * The guard alone over the same rows in memory: without a summary, with the shipped one
 * (shield/summary.ts, counting cells from their bytes), and with one counting string cells.
 */
async function guardSide(megabytes: number): Promise<void> {
  const block = await rowBlock();
  const chunks: Buffer[] = [];
  for (let at = 0; at < block.length; at += 256 * 1024) chunks.push(block.subarray(at, at + 256 * 1024));
  const designs = {
    none: () => ({}),
    bytes: () => ({ cells: new ShieldTally() }),
    strings: () => ({ columns: stringSummary() }),
  };
  type Design = keyof typeof designs;
  const pass = (design: Design): number => {
    const options: CsvGuardOptions = designs[design]();
    const guard = new CsvFormulaGuard({ reuseOutput: true, ...options });
    const started = performance.now();
    guard.push(Buffer.from(HEADER));
    for (let i = 0; i < megabytes; i++) for (const chunk of chunks) guard.push(chunk);
    guard.end();
    const ms = performance.now() - started;
    // The thread's counting memory goes to the next round's summary, as after an export.
    if (options.cells instanceof ShieldTally) options.cells.release();
    return ms;
  };
  const times: Record<Design, number[]> = { none: [], bytes: [], strings: [] };
  for (let run = 0; run < ROUNDS + 1; run++)
    for (const design of Object.keys(designs) as Design[]) times[design].push(pass(design));
  // The first round warms the JIT up; the fastest of the others is the least disturbed.
  const fastest = (runs: number[]) => Math.min(...runs.slice(1));
  reportMeasurement({
    ms: fastest(times.none),
    detail: {
      bytesMs: fastest(times.bytes),
      stringsMs: fastest(times.strings),
      bytes: block.length * megabytes,
    },
  });
}

/** Measurements taken, for a new file name each. */
let measured = 0;

async function measure(
  script: string,
  megabytes: number,
  side: 'plain' | 'ours' | 'unscrubbed',
  dir: string,
) {
  const server = await startServer(megabytes);
  // A new file each time, as the bot's is, and removed after: not written over an earlier round's.
  const out = join(dir, `${side}-${megabytes}-${++measured}.csv`);
  try {
    const result = await measureInChild(script, ['--side', side, server.url, out]);
    return { ...result, bodyBytes: server.bodyBytes };
  } finally {
    server.close();
    await rm(out, { force: true });
    await rm(`${out}.warm-up`, { force: true });
  }
}

/** Where the export's CPU time went: the event loop, and the report worker that guards and counts. */
const threadsOf = (side: ChildMeasurement) =>
  side.detail?.mainMs === undefined
    ? ''
    : `; export: event loop ${Math.round(side.detail.mainMs)} ms, report thread ${Math.round(side.detail.busiestOtherMs ?? Number.NaN)} ms`;

const throughput = (m: { bodyBytes: number; ms: number }) => m.bodyBytes / MB / (m.ms / 1000);
const loads = () =>
  loadavg()
    .map((load) => load.toFixed(1))
    .join(' ');

export async function benchExport(
  log: (line: string) => void = () => undefined,
  megabytes = 200,
): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-export-'));
  // Imported here, not at the top: the measured sides load this module and must not load TypeScript.
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  const script = compiled.script('bench/export.ts');
  try {
    log(`export: load average ${loads()} at the start`);
    const ratios: number[] = [];
    const plains: number[] = [];
    const ours: number[] = [];
    /** Per round, the throughput with the file scrub over the throughput of the export alone. */
    const scrubRatios: number[] = [];
    const unscrubbed: number[] = [];
    /** Per round, each side's CPU time (every thread) per MB of body. */
    const plainCpu: number[] = [];
    const oursCpu: number[] = [];
    let peakRss = 0;
    let plainRss = 0;
    const sides = ['plain', 'ours', 'unscrubbed'] as const;
    for (let round = 0; round < ROUNDS; round++) {
      // Each side goes first, second and last in turn.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      const runs: Record<string, ChildMeasurement & { bodyBytes: number }> = {};
      for (const side of order) runs[side] = await measure(script, megabytes, side, dir);
      const plain = runs.plain!;
      const mine = runs.ours!;
      const bare = runs.unscrubbed!;
      ratios.push(throughput(mine) / throughput(plain));
      plains.push(throughput(plain));
      ours.push(throughput(mine));
      scrubRatios.push(throughput(mine) / throughput(bare));
      unscrubbed.push(throughput(bare));
      if (mine.detail?.masked !== 0)
        throw new Error('the export held a secret of the bench: nothing to compare');
      peakRss = Math.max(peakRss, mine.peakRssBytes / MB);
      plainRss = Math.max(plainRss, plain.peakRssBytes / MB);
      const cpu = (side: ChildMeasurement) => Math.round(side.detail?.cpuMs ?? Number.NaN);
      plainCpu.push((plain.detail?.cpuMs ?? Number.NaN) / (plain.bodyBytes / MB));
      oursCpu.push((mine.detail?.cpuMs ?? Number.NaN) / (mine.bodyBytes / MB));
      const js = (side: ChildMeasurement) =>
        `heap ${Math.round(side.detail?.heapMb ?? Number.NaN)}, external ${Math.round(side.detail?.externalMb ?? Number.NaN)} MB`;
      log(
        `export round ${round + 1}: plain copy ${Math.round(throughput(plain))} MB/s, export ${Math.round(throughput(mine))} MB/s ` +
          `(${ratios.at(-1)!.toFixed(2)}×; without the file scrub ${Math.round(unscrubbed.at(-1)!)} MB/s, ${Math.round(cpu(bare))} ms of CPU time); CPU time ${cpu(plain)} and ${cpu(mine)} ms (${(cpu(mine) / cpu(plain)).toFixed(2)}×; ${plainCpu.at(-1)!.toFixed(2)} and ${oursCpu.at(-1)!.toFixed(2)} ms per MB${threadsOf(mine)}); peak RSS ${Math.round(mine.peakRssBytes / MB)} MB, ${js(mine)} (plain copy ${Math.round(plain.peakRssBytes / MB)} MB, ${js(plain)}); load ${loads()}`,
      );
    }
    const quarter = Math.max(1, Math.round(megabytes / 4));
    const small = await measure(script, quarter, 'ours', dir);
    const smallMb = small.peakRssBytes / MB;
    const guard = await measureInChild(script, ['--side', 'guard', String(quarter)]);
    const guardBytes = guard.detail?.bytes ?? 0;
    const guardAlone = guardBytes / MB / (guard.ms / 1000);
    const withBytes = guardBytes / MB / ((guard.detail?.bytesMs ?? Number.NaN) / 1000);
    const withStrings = guardBytes / MB / ((guard.detail?.stringsMs ?? Number.NaN) / 1000);
    log(
      `export: guard alone ${Math.round(guardAlone)} MB/s; with the Shield summary counted from bytes ${Math.round(withBytes)} MB/s, ` +
        `from string cells ${Math.round(withStrings)} MB/s; peak RSS at ${quarter} MB ${Math.round(smallMb)} MB; load ${loads()}`,
    );
    const ratio = median(ratios);
    const cpuPerMb = { value: median(oursCpu), baseline: median(plainCpu), per: 'MB' as const };
    const cpuRatio = median(oursCpu.map((ours, round) => ours / plainCpu[round]!));
    return [
      {
        figure: `Shield export peak RSS, ${megabytes} MB body, largest of ${ROUNDS} (MB)`,
        value: Math.round(peakRss),
        baseline: Math.round(plainRss),
        ratio: peakRss / plainRss,
        target: '< 150 MB',
        pass: peakRss < 150,
      },
      {
        figure: `Shield export peak RSS, ${megabytes} MB body vs ${quarter} MB (MB)`,
        value: Math.round(peakRss),
        baseline: Math.round(smallMb),
        ratio: peakRss / smallMb,
        target: 'flat: within 20 MB',
        pass: peakRss - smallMb < 20,
      },
      {
        figure: `Shield export throughput, ${megabytes} MB body, vs a plain HTTP copy (MB/s, median of ${ROUNDS} rounds)`,
        value: Math.round(median(ours)),
        baseline: Math.round(median(plains)),
        ratio,
        target: `≥ ${THROUGHPUT_TARGET}× the plain copy`,
        pass: ratio >= THROUGHPUT_TARGET,
        cpu: cpuPerMb,
      },
      {
        figure: `Shield export CPU time of every thread per MB, ${megabytes} MB body, vs a plain HTTP copy's (ms, median of ${ROUNDS} rounds)`,
        value: cpuPerMb.value,
        baseline: cpuPerMb.baseline,
        ratio: cpuRatio,
        target: `≤ ${CPU_TARGET}× the plain copy's CPU time`,
        pass: cpuRatio <= CPU_TARGET,
        cpu: cpuPerMb,
      },
      {
        figure: `Shield export with the file scrub vs without it (MB/s, median of ${ROUNDS} rounds)`,
        value: Math.round(median(ours)),
        baseline: Math.round(median(unscrubbed)),
        ratio: median(scrubRatios),
        target: '≥ 0.9×: the scrub costs at most 10%',
        pass: median(scrubRatios) >= 0.9,
      },
      {
        figure: 'formula guard with the Shield summary, counted from bytes vs from string cells (MB/s)',
        value: Math.round(withBytes),
        baseline: Math.round(withStrings),
        ratio: withBytes / withStrings,
        target: 'reported: the faster design is the one shipped',
        pass: true,
      },
      {
        figure: 'formula guard with the Shield summary vs the guard alone (MB/s)',
        value: Math.round(withBytes),
        baseline: Math.round(guardAlone),
        ratio: withBytes / guardAlone,
        target: 'reported: the cost of the summary in the same pass',
        pass: true,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--side') {
    const [, side, url, out] = args;
    if (side === 'plain' && url && out) await plainSide(url, out);
    else if ((side === 'ours' || side === 'unscrubbed') && url && out)
      await oursSide(url, out, side === 'ours');
    else if (side === 'guard' && url) await guardSide(Number(url));
    else throw new Error(`unknown side: ${args.join(' ')}`);
  } else {
    const report = (line: string) => process.stderr.write(`${line}\n`);
    console.table(await benchExport(report, args[0] ? Number(args[0]) : undefined));
  }
}
