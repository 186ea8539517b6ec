import { WAF_OPERATORS, type WafEnum } from '../../platform/schemas.js';
import { closestName } from '../../policy/suggest.js';
import { md } from '../../reply/markup.js';
import { ephemeral, type ReplyBlock } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import { defineOperation, type RunContext } from '../engine/types.js';

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

function describe(item: WafEnum): string {
  return item.enumValues
    .map((value) => {
      const premium = value.isPremium ? '  [premium]' : '';
      const operator = value.recommendedOperator?.operator;
      const recommended =
        operator === undefined ? '' : `  recommended: ${WAF_OPERATORS[operator] ?? `operator ${operator}`}`;
      const values = value.recommendedOperator?.values?.length
        ? ` ${value.recommendedOperator.values.join(', ')}`
        : '';
      return `${value.name ?? '(unnamed)'} = ${value.value ?? '?'}${premium}${recommended}${values}`;
    })
    .join('\n');
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
    const blocks: ReplyBlock[] = [
      { type: 'header', text: name ? `WAF enumeration ${wanted[0]?.enumName ?? name}` : 'WAF enumerations' },
    ];
    for (const item of wanted) {
      blocks.push({
        type: 'text',
        text: md`*${item.enumName ?? '(unnamed)'}* (${counted(item.enumValues.length, 'value')})`,
      });
      blocks.push({ type: 'code', text: describe(item) || '(no values)' });
    }
    return ephemeral(counted(wanted.length, 'WAF enumeration'), blocks);
  },
});
