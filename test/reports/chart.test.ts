import { describe, expect, it } from 'vitest';
import { hourlyBars } from '../../src/reports/chart.js';

describe('the errors-per-hour chart', () => {
  it('draws one line per hour, the busiest hour full width, with grouped counts', () => {
    const counts = new Array<number>(24).fill(0);
    counts[14] = 1234;
    counts[15] = 617;
    const lines = hourlyBars(counts, 10);
    expect(lines).toHaveLength(24);
    expect(lines[14]).toBe('14:00 ██████████ 1,234');
    expect(lines[15]).toBe('15:00 █████      617');
    expect(lines[0]).toBe(`00:00 ${' '.repeat(10)} 0`);
  });

  it('uses eighth blocks for the fraction of a cell', () => {
    // 13/16 of 2 cells = 1 5/8 cells.
    expect(hourlyBars([16, 13], 2)[1]).toBe('01:00 █▋ 13');
    expect(hourlyBars([8, 1], 1)[1]).toBe('01:00 ▏ 1');
  });

  it('keeps a single error visible next to a very busy hour', () => {
    const [, quiet] = hourlyBars([1_000_000, 1], 30);
    expect(quiet).toBe(`01:00 ▏${' '.repeat(29)} 1`);
  });

  it('draws no bars when nothing happened, and ignores values that are not counts', () => {
    expect(hourlyBars([0, Number.NaN, -3], 4)).toEqual(['00:00      0', '01:00      0', '02:00      0']);
  });
});
