/**
 * A table too long for a message shows its first rows and names the CSV; the menu below it, the
 * only way to act on a row, is never the part left out.
 */
import { describe, expect, it } from 'vitest';
import { fitReply } from '../../src/reply/fit.js';
import { md } from '../../src/reply/markup.js';
import { ephemeral } from '../../src/reply/model.js';

function zones(n: number) {
  const rows = Array.from({ length: n }, (_, i) => [String(10000 + i), `zone${i}.example.com`, '12', 'no']);
  const options = rows.slice(0, 100).map((row) => ({
    text: row[1]!,
    actionId: 'dns:records',
    value: JSON.stringify({ id: Number(row[0]), domain: row[1] }),
  }));
  return ephemeral('DNS zones', [
    { type: 'header', text: `DNS zones (${n})` },
    {
      type: 'table',
      table: {
        columns: ['Id', 'Domain', 'Records', 'DNSSEC'].map((header) => ({ header, kind: 'text' as const })),
        rows,
        file: 'zones.csv',
      },
    },
    { type: 'context', text: md`Page 1.` },
    { type: 'menu', placeholder: 'Records of a zone…', groups: [{ label: 'Records', options }] },
    { type: 'actions', closing: true, buttons: [{ text: 'Next', actionId: 'dns:page', value: '2' }] },
  ]);
}

describe('a long table with a menu below it', () => {
  it.each([20, 100, 200])('keeps the menu whole beside the first rows of %i', (n) => {
    const reply = { ...zones(n), files: [{ filename: 'zones.csv', title: 'zones', content: 'x' }] };
    const fitted = fitReply(reply);
    const menu = fitted.blocks.find((block) => block.type === 'menu');
    expect(menu?.type === 'menu' ? menu.groups[0]!.options.length : 0).toBe(Math.min(n, 100));
    expect(fitted.blocks.map((block) => block.type)).toContain('context');
    expect(fitted.overflow).toBeUndefined();
  });
});
