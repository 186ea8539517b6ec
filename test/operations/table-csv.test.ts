/** A table longer than a message: every row goes to a CSV beside it, named by the table. */
import { describe, expect, it } from 'vitest';
import { tableWithCsv } from '../../src/operations/shared/table-csv.js';
import type { ReplyTable } from '../../src/reply/model.js';

const table = (count: number): ReplyTable => ({
  columns: [
    { header: 'Name', kind: 'text' },
    { header: 'Requests', kind: 'number' },
  ],
  rows: Array.from({ length: count }, (_, i) => [i === 0 ? '=HYPERLINK("x")' : `zone-${i}`, i]),
});

describe('tableWithCsv', () => {
  it('leaves a table that fits a message as it is, with no file', () => {
    expect(tableWithCsv(table(99), { filename: 'z.csv', title: 'Zones' })).toEqual({
      table: table(99),
      files: [],
    });
  });

  it('puts every row of a longer table in a CSV the table names, formulas neutralised', () => {
    const { table: named, files } = tableWithCsv(table(150), { filename: 'z.csv', title: 'Zones' });
    expect(named.file).toBe('z.csv');
    expect(files).toHaveLength(1);
    const lines = String(files[0]!.content).trim().split(/\r?\n/);
    expect(lines[0]).toBe('Name,Requests');
    expect(lines).toHaveLength(151);
    expect(lines[1]).not.toMatch(/^"?=/);
    expect(files[0]!.about).toBe('all 150 rows');
  });
});

describe('tableWithCsv with links and members', () => {
  it('writes a link as its words and a member as their id', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [
      { text: `ap_${i}`, url: `https://example.slack.com/archives/C0/p${i}` },
      { user: 'U0ANN' },
    ]);
    const { files } = tableWithCsv(
      {
        columns: [
          { header: 'Request', kind: 'text' },
          { header: 'Requester', kind: 'text' },
        ],
        rows,
      },
      { filename: 'r.csv', title: 'Requests' },
    );
    const lines = String(files[0]!.content).trim().split(/\r?\n/);
    expect(lines[1]).toBe('ap_0,U0ANN');
  });
});
