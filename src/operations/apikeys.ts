import type { z } from 'zod';
import type { ApiKey } from '../platform/schemas.js';
import { md, trusted } from '../reply/markup.js';
import { ephemeral, type Reply, type ReplyTable } from '../reply/model.js';
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
import { tableWithCsv } from './shared/table-csv.js';

type Paging = z.infer<typeof PagingArgsSchema>;

/** One row a key: only its masked form, here and in the CSV, never the key itself. */
function keyTable(keys: readonly ApiKey[]): ReplyTable {
  return {
    columns: [
      { header: 'Key (masked)', kind: 'text' },
      { header: 'Id', kind: 'text' },
      { header: 'Roles', kind: 'text' },
    ],
    rows: keys.map((key) => [
      maskSecret(key.Key),
      key.Id === undefined ? 'not given' : String(key.Id),
      key.Roles.length > 0 ? key.Roles.join(', ') : '(none)',
    ]),
  };
}

async function page(ctx: RunContext, paging: Paging, asked?: number): Promise<Reply> {
  const list = await ctx.services.platform.listApiKeys(paging);
  const last = lastPageInstead(paging.page, list.TotalItems, paging.perPage);
  if (last !== undefined) return page(ctx, { ...paging, page: last }, paging.page);
  const { total, where, hasMore } = pageFacts(list, paging);
  // More keys than a table shows (--per-page up to 1,000): every row goes to a CSV as well.
  const keys = tableWithCsv(keyTable(list.Items), {
    filename: `api-keys-page-${paging.page}.csv`,
    title: 'API keys (masked)',
  });
  return {
    ...ephemeral(total === undefined ? `API keys, ${where.toLowerCase()}` : counted(total, 'API key'), [
      { type: 'header', text: total === undefined ? 'API keys' : `API keys (${total})` },
      list.Items.length > 0
        ? { type: 'table', table: keys.table }
        : { type: 'text', text: trusted('_No API keys on this page._') },
      {
        type: 'context',
        text: md`${where}.${pastLastPage(asked, paging.page)} Keys are masked; the full value is never shown here.`,
      },
      { type: 'actions', closing: true, buttons: pagingButtons('apikeys:page', paging, hasMore) },
    ]),
    ...(keys.files.length > 0 ? { files: keys.files } : {}),
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
