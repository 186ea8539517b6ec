import { describe, expect, it } from 'vitest';
import {
  originErrorsFilename,
  originErrorsWindowFilename,
  shieldExportFilename,
} from '../../src/reports/filenames.js';

describe('report file names', () => {
  it('names the origin-error CSV after the UTC day, even late in the evening west of UTC', () => {
    expect(originErrorsFilename(308006, new Date('2026-11-21T23:59:59.999Z'))).toBe(
      'origin-errors-308006-2026-11-21.csv',
    );
    expect(originErrorsFilename(7, Date.UTC(2027, 0, 1))).toBe('origin-errors-7-2027-01-01.csv');
  });

  it('names the origin-error CSV of a window that spans days after its bounds in compact UTC', () => {
    expect(
      originErrorsWindowFilename(308006, Date.UTC(2026, 10, 20, 22, 20), Date.UTC(2026, 10, 21, 0, 20)),
    ).toBe('origin-errors-308006-20261120T2220Z-20261121T0020Z.csv');
  });

  it('names the Shield export after its window in compact UTC', () => {
    expect(shieldExportFilename(42, Date.UTC(2026, 10, 21, 14), Date.UTC(2026, 10, 21, 15, 30))).toBe(
      'shield-events-42-20261121T1400Z-20261121T1530Z.csv',
    );
  });

  it('keeps the seconds of a window bound that has them', () => {
    expect(shieldExportFilename(42, Date.UTC(2026, 10, 21, 14, 0, 5), Date.UTC(2026, 10, 21, 15))).toBe(
      'shield-events-42-20261121T140005Z-20261121T1500Z.csv',
    );
  });
});
