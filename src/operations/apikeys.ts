import type { z } from 'zod';
import { md, trusted } from '../reply/markup.js';
import { ephemeral, type Reply } from '../reply/model.js';
import { counted } from '../reply/words.js';
import { maskSecret } from '../secrets/registry.js';
import { UserFacingError } from './engine/errors.js';
import { defineOperation, parseWith, type RunContext } from './engine/types.js';
import {
  lastPageInstead,
  PagingArgsSchema,
  pageFacts,
  pagingButtons,
  pagingFlags,
  pastLastPage,
  readPagingState,
} from './shared/paging.js';

type Paging = z.infer<typeof PagingArgsSchema>;

async function page(ctx: RunContext, paging: Paging, asked?: number): Promise<Reply> {
  const list = await ctx.services.platform.listApiKeys(paging);
  const last = lastPageInstead(paging.page, list.TotalItems, paging.perPage);
  if (last !== undefined) return page(ctx, { ...paging, page: last }, paging.page);
  const lines = list.Items.map(
    (key) =>
      md`• \`${maskSecret(key.Key)}\`  id ${key.Id ?? '(not given)'}  roles: ${key.Roles.length > 0 ? key.Roles.join(', ') : '(none)'}`,
  );
  const { total, where, hasMore } = pageFacts(list, paging);
  return {
    ...ephemeral(total === undefined ? `API keys, ${where.toLowerCase()}` : counted(total, 'API key'), [
      { type: 'header', text: total === undefined ? 'API keys' : `API keys (${total})` },
      {
        type: 'text',
        text: lines.length > 0 ? trusted(lines.join('\n')) : trusted('_No API keys on this page._'),
      },
      {
        type: 'context',
        text: md`${where}.${pastLastPage(asked, paging.page)} Keys are masked; the full value is never shown here.`,
      },
      { type: 'actions', closing: true, buttons: pagingButtons('apikeys:page', paging, hasMore) },
    ]),
  };
}

/** `/edge apikeys [--page N] [--per-page N]`: the account's API keys, masked, with their roles. */
export const apikeys = defineOperation({
  id: 'apikey.list',
  words: ['apikeys'],
  usage: '/edge apikeys [--page N] [--per-page N]',
  summary: 'list the account’s API keys (masked) and their roles',
  example: '/edge apikeys --per-page 20',
  flags: pagingFlags,
  parse(positionals, flags) {
    if (positionals.length > 0) return { ok: false, error: `unexpected argument "${positionals[0]}"` };
    return parseWith(PagingArgsSchema, { page: flags.page, perPage: flags['per-page'] });
  },
  run: (ctx, args) => page(ctx, args),
  actions: {
    async page(ctx, value) {
      const paging = readPagingState(PagingArgsSchema, value);
      if (!paging) throw new UserFacingError('That page button is out of date; run /edge apikeys again.');
      return { ...(await page(ctx, paging)), replaceOriginal: true };
    },
  },
});
