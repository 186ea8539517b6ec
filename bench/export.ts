/**
 * PRODUCT §8: the Shield export passes through our parse-and-rewrite with peak memory flat
 * (under 150 MB) whatever its size, and its throughput is reported next to a plain HTTP copy
 * of the same body to a file. A local server on 127.0.0.1 serves a generated CSV; each side
 * downloads it in its own process, from compiled JavaScript as in production. Run alone: `npx tsx bench/export.ts [megabytes]`.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { request } from 'undici';
import { writeShieldExportCsv } from '../src/reports/export-csv.js';
import { createReportPool } from '../src/reports/pool.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow } from './types.js';

const MB = 1024 * 1024;
const HEADER = 'timestamp,ruleId,ruleName,action,feature,ip,country,asn,ja4,method,url,userAgent\r\n';

/** About 1 MiB of event rows like the platform's, hostile cells and quoting included. */
function rowBlock(): Buffer {
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
      'DE',
      '13335',
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
  const block = rowBlock();
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

async function plainSide(url: string, out: string): Promise<void> {
  const started = performance.now();
  const { body } = await request(url, { method: 'POST' });
  await pipeline(body, createWriteStream(out));
  reportMeasurement({ ms: performance.now() - started });
}

async function oursSide(url: string, out: string): Promise<void> {
  const pool = createReportPool();
  // A running bot has its worker thread up already: start it before the clock does.
  await writeShieldExportCsv({ source: Readable.from([Buffer.from('a,b\r\n')]), path: out, pool });
  const started = performance.now();
  const { body } = await request(url, { method: 'POST' });
  const result = await writeShieldExportCsv({ source: body, path: out, pool });
  const ms = performance.now() - started;
  await pool.close();
  reportMeasurement({ ms, detail: { rows: result.rows, bytes: result.bytes } });
}

async function measure(script: string, megabytes: number, side: 'plain' | 'ours', dir: string) {
  const server = await startServer(megabytes);
  try {
    const result = await measureInChild(script, [
      '--side',
      side,
      server.url,
      join(dir, `${side}-${megabytes}.csv`),
    ]);
    return { ...result, bodyBytes: server.bodyBytes };
  } finally {
    server.close();
  }
}

export async function benchExport(megabytes = 200): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-export-'));
  // Imported here, not at the top: the measured sides load this module and must not load TypeScript.
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  const script = compiled.script('bench/export.ts');
  try {
    const plain = await measure(script, megabytes, 'plain', dir);
    const ours = await measure(script, megabytes, 'ours', dir);
    const small = await measure(script, Math.max(1, Math.round(megabytes / 4)), 'ours', dir);
    const throughput = (m: { bodyBytes: number; ms: number }) => m.bodyBytes / MB / (m.ms / 1000);
    const oursMb = ours.peakRssBytes / MB;
    const plainMb = plain.peakRssBytes / MB;
    const smallMb = small.peakRssBytes / MB;
    return [
      {
        figure: `Shield export pass-through peak RSS, ${megabytes} MB body (MB)`,
        value: Math.round(oursMb),
        baseline: Math.round(plainMb),
        ratio: oursMb / plainMb,
        target: '< 150 MB',
        pass: oursMb < 150,
      },
      {
        figure: `Shield export peak RSS, ${megabytes} MB body vs a quarter of it (MB)`,
        value: Math.round(oursMb),
        baseline: Math.round(smallMb),
        ratio: oursMb / smallMb,
        target: 'flat: within 20 MB',
        pass: oursMb - smallMb < 20,
      },
      {
        figure: `Shield export throughput, ${megabytes} MB body (MB/s)`,
        value: Math.round(throughput(ours)),
        baseline: Math.round(throughput(plain)),
        ratio: throughput(ours) / throughput(plain),
        target: 'reported against a plain HTTP copy',
        pass: true,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--side') {
    const [, side, url, out] = args;
    if (side === 'plain' && url && out) await plainSide(url, out);
    else if (side === 'ours' && url && out) await oursSide(url, out);
    else throw new Error(`unknown side: ${args.join(' ')}`);
  } else {
    console.table(await benchExport(args[0] ? Number(args[0]) : undefined));
  }
}
