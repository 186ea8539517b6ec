/**
 * The outcome of `npm run bench`: one table (figure, value, baseline, ratio, target, PASS/MISS)
 * for the terminal, and the same rows with the run's circumstances in bench/results.json.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { imageEnv } from './child.js';
import type { BenchRow } from './types.js';

export const RESULTS_PATH = fileURLToPath(new URL('./results.json', import.meta.url));

export interface BenchReport {
  ranAt: string;
  /** What the numbers were measured on: they are only comparable within one report. */
  machine: {
    node: string;
    cpus: number;
    cpuModel: string;
    loadAverage: number[];
    /** The environment every measured side ran with (child.ts, imageEnv). */
    env: Record<string, string>;
  };
  /** The benchmarks asked for, in order. */
  benchmarks: string[];
  rows: BenchRow[];
  /** Skipped or failed benchmarks, and what each measured on the side (absolute times). */
  notes: string[];
}

export function createReport(benchmarks: string[], rows: BenchRow[], notes: string[]): BenchReport {
  return {
    ranAt: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
      env: imageEnv(),
    },
    benchmarks,
    rows,
    notes,
  };
}

const number = (value: number) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        maximumFractionDigits: Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2,
      })
    : String(value);

/** A CPU-bound row's CPU time per unit, its side's then the baseline's: `2.05 / 3.78 ms per 1,000 entries`. */
const cpuCell = (cpu: BenchRow['cpu']) =>
  cpu ? `${cpu.value.toFixed(2)} / ${cpu.baseline.toFixed(2)} ms per ${cpu.per}` : '';

/** The rows as a plain-text table; numbers right-aligned, ratios as `1.24×`. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['figure', 'value', 'baseline', 'ratio', 'CPU time (value / baseline)', 'target', 'result'];
  const body = rows.map((row) => [
    row.figure,
    number(row.value),
    number(row.baseline),
    Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}×` : String(row.ratio),
    cpuCell(row.cpu),
    row.target,
    row.pass ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((cells) => cells[i]!.length)));
  const numeric = new Set([1, 2, 3]);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** The table, then the notes, as printed at the end of a run. */
export function formatReport(report: BenchReport): string {
  const missed = report.rows.filter((row) => !row.pass).length;
  const lines = [
    formatTable(report.rows),
    '',
    `${report.rows.length} figures, ${missed} missed · node ${report.machine.node}, ${report.machine.cpus} CPUs (${report.machine.cpuModel}), load ${report.machine.loadAverage.join(' ')}, measured sides with ${Object.entries(
      report.machine.env,
    )
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')}`,
  ];
  if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `· ${note}`));
  return lines.join('\n');
}

export async function writeResults(report: BenchReport, path = RESULTS_PATH): Promise<void> {
  // JSON has no NaN or Infinity: a figure that could not be computed is written as null.
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
