/** One figure of `npm run bench`: a measurement next to the baseline it is judged against. */
export interface BenchRow {
  /** What was measured, with its unit: "origin-log summary time (ms)". */
  figure: string;
  value: number;
  /** The same measurement of the baseline, in the same run and unit. */
  baseline: number;
  /** value / baseline. */
  ratio: number;
  /** The target in words: "≤ 1.5× baseline", "< 300 MB". */
  target: string;
  pass: boolean;
  /**
   * For a CPU-bound figure, the CPU time (every thread of the side's process) per unit of work of
   * each side: what a slower core moves as much as the code does, printed beside the ratio.
   */
  cpu?: { value: number; baseline: number; per: 'MB' | '1,000 entries' };
}

/** What a measuring child process prints as its last line. */
export interface ChildMeasurement {
  ms: number;
  /** The process's peak resident set size (getrusage maxrss), bytes. */
  peakRssBytes: number;
  /** Anything else the side wants on record (rows, bytes…). */
  detail?: Record<string, number>;
}
