import { WAF_OPERATORS, type WafEnum } from '../../platform/schemas.js';
import { closestName } from '../../policy/suggest.js';
import { md } from '../../reply/markup.js';
import { ephemeral, type ReplyCell, type ReplyColumn, type ReplyTable } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import { defineOperation, type RunContext } from '../engine/types.js';
import { tableWithCsv } from '../shared/table-csv.js';

/** The WAF enums change with platform releases, not minute to minute. */
export const WAF_ENUMS_TTL_MS = 10 * 60_000;
const CACHE_KEY = 'shield.waf-enums';

async function wafEnums(ctx: RunContext): Promise<WafEnum[]> {
  const cached = ctx.services.cache.get<WafEnum[]>(CACHE_KEY);
  if (cached) return cached;
  const enums = await ctx.services.platform.getWafEnums();
  ctx.services.cache.set(CACHE_KEY, enums, WAF_ENUMS_TTL_MS);
  return enums;
}

const VALUE_COLUMNS: ReplyColumn[] = [
  { header: 'Name', kind: 'text' },
  { header: 'Value', kind: 'number' },
  { header: 'Premium', kind: 'text' },
  { header: 'Recommended operator', kind: 'text' },
  { header: 'Recommended values', kind: 'text' },
];

/** One row a value; every enumeration's values in one table name their enumeration first. */
function enumTable(items: readonly WafEnum[], named: boolean): ReplyTable {
  const rows = items.flatMap((item) =>
    item.enumValues.map((value): ReplyCell[] => {
      const operator = value.recommendedOperator?.operator;
      const cells: ReplyCell[] = [
        value.name ?? '(unnamed)',
        value.value ?? '?',
        value.isPremium ? 'yes' : 'no',
        operator === undefined ? '—' : (WAF_OPERATORS[operator] ?? `operator ${operator}`),
        value.recommendedOperator?.values?.length ? value.recommendedOperator.values.join(', ') : '—',
      ];
      return named ? cells : [item.enumName ?? '(unnamed)', ...cells];
    }),
  );
  return {
    columns: named ? VALUE_COLUMNS : [{ header: 'Enumeration', kind: 'text' }, ...VALUE_COLUMNS],
    rows,
  };
}

/** `/edge shield enums [NAME]`: the WAF enumerations, cached for 10 minutes. */
export const shieldEnums = defineOperation({
  id: 'shield.enums',
  words: ['shield', 'enums'],
  usage: '/edge shield enums [NAME]',
  summary: 'show the WAF enumerations (names, values, premium flag, recommended operator)',
  example: '/edge shield enums',
  flags: {},
  parse: (positionals) =>
    positionals.length > 1
      ? { ok: false, error: 'give at most one enumeration name' }
      : { ok: true, args: { name: positionals[0] } },
  target: (args) => args.name,
  async run(ctx, { name }) {
    const enums = await wafEnums(ctx);
    const wanted = name
      ? enums.filter((item) => (item.enumName ?? '').toLowerCase() === name.toLowerCase())
      : enums;
    if (name && wanted.length === 0) {
      const names = enums.flatMap((item) => (item.enumName ? [item.enumName] : []));
      const guess = closestName(name, names);
      const mean = guess ? ` (did you mean /edge shield enums ${guess}?)` : '';
      return ephemeral(`No enumeration named ${name}`, [
        {
          type: 'text',
          text: md`:warning: There is no WAF enumeration named "${name}"${mean}. Known: ${names.join(', ')}.`,
        },
      ]);
    }
    const named = name === undefined ? undefined : (wanted[0]?.enumName ?? name);
    const title = named ? `WAF enumeration ${named}` : 'WAF enumerations';
    // One table a message: without a name, every enumeration's values are rows of the one table.
    const values = tableWithCsv(enumTable(wanted, named !== undefined), {
      filename: named ? `waf-enum-${named.replace(/[^A-Za-z0-9.-]/g, '_')}.csv` : 'waf-enums.csv',
      title,
    });
    const reply = ephemeral(counted(wanted.length, 'WAF enumeration'), [
      { type: 'header', text: title },
      values.table.rows.length > 0
        ? { type: 'table', table: values.table }
        : { type: 'text', text: md`_No values._` },
      {
        type: 'context',
        text: md`${wanted.map((item) => `${item.enumName ?? '(unnamed)'}: ${counted(item.enumValues.length, 'value')}`).join(' · ')}`,
      },
    ]);
    return values.files.length > 0 ? { ...reply, files: values.files } : reply;
  },
});
